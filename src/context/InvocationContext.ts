/**
 * Where this MCP server itself runs: inside a tmux pane (from `$TMUX` / `$TMUX_PANE`, or an
 * ancestor's when a client passed neither; frozen at start-up) or not. It answers "is this pane / this server mine?" with two strengths: a confirmed
 * match (same socket file AND same server pid) for `is_caller`, and a cautious one (same socket
 * file OR same server pid) for guards that must never let the caller kill its own context.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { parseTmuxVariable } from "./internal/TmuxVariable.js"
import { samePath } from "./RealPath.js"
import { isRemoteHost } from "./RemoteHosts.js"
import type { ResolvedSocket } from "./SocketResolver.js"
import { TmuxMcpConfig } from "./TmuxMcpConfig.js"

/** How the caller was found: this process's `$TMUX`, or an ancestor's (services/CallerSearch.ts). */
export type CallerSource = "environment" | "process_tree"

/** The caller's tmux context from `$TMUX` / `$TMUX_PANE`: socket, server pid and pane. */
export interface Caller {
  readonly socketPath: string
  readonly serverPid: number
  /** `$TMUX_PANE`, when set and well-formed. */
  readonly paneId: string | null
  readonly source: CallerSource
}

/** Questions about the caller: confirmed matches for `is_caller`, cautious ones for guards. */
export interface InvocationContextShape {
  /** Set when the MCP server was started inside tmux (`$TMUX` was set and parseable). */
  readonly caller: Option.Option<Caller>
  /** `$TMUX_PANE` was set but `$TMUX` was missing or unreadable: identity is uncertain. */
  readonly uncertain: boolean
  /** The socket is the caller's socket file (no liveness implied). False outside tmux and on a remote host. */
  readonly isCallerSocket: (socket: ResolvedSocket) => boolean
  /** Confirmed: the server at `socket` with this pid is the caller's. Null outside tmux. */
  readonly isCallerServer: (socket: ResolvedSocket, serverPid: number) => boolean | null
  /** Confirmed: this pane on this server is the caller's own pane. Null outside tmux. */
  readonly isCallerPane: (socket: ResolvedSocket, serverPid: number, paneId: string) => boolean | null
  /** Cautious: the caller might run in this server (used to refuse destroying it); never a remote host's. */
  readonly mightBeCallerServer: (socket: ResolvedSocket, serverPid: number | null) => boolean
}

/** Where the program runs; `layer` reads the configuration's frozen `TMUX` / `TMUX_PANE`. */
export class InvocationContext extends Context.Service<
  InvocationContext,
  InvocationContextShape
>()("effect-tmux-mcp/InvocationContext") {
  static readonly layer: Layer.Layer<InvocationContext, never, TmuxMcpConfig> = Layer.effect(
    InvocationContext,
    Effect.map(TmuxMcpConfig, (config) => makeInvocationContext(config.callerTmux, config.callerPane, config.callerSource))
  )
}

export const makeInvocationContext = (
  tmuxVariable: string | undefined,
  tmuxPane: string | undefined,
  source: CallerSource = "environment"
): InvocationContextShape => {
  const paneId = tmuxPane !== undefined && /^%\d+$/.test(tmuxPane) ? tmuxPane : null
  const caller: Option.Option<Caller> = Option.fromNullishOr(tmuxVariable).pipe(
    Option.flatMap(parseTmuxVariable),
    Option.map((parsed) => ({ socketPath: parsed.socketPath, serverPid: parsed.serverPid, paneId, source }))
  )
  const uncertain = Option.isNone(caller) && tmuxPane !== undefined
  // By real location too: a symlinked TMUX_TMPDIR must still match. $TMUX is this machine's, and
  // so is the caller: a remote host's server is never the caller's, whatever its path and pid
  // there (machines share the default paths; pane ids mean something only with their host).
  const sameSocket = (c: Caller, socket: ResolvedSocket) => !isRemoteHost(socket.host) && samePath(c.socketPath, socket.path)

  const isCallerServer = (socket: ResolvedSocket, serverPid: number): boolean | null =>
    Option.match(caller, {
      onNone: () => null,
      onSome: (c) => c.serverPid === serverPid && sameSocket(c, socket)
    })

  return {
    caller,
    uncertain,
    isCallerSocket: (socket) => Option.match(caller, { onNone: () => false, onSome: (c) => sameSocket(c, socket) }),
    isCallerServer,
    isCallerPane: (socket, serverPid, pane) =>
      Option.match(caller, {
        onNone: () => null,
        onSome: (c) => c.paneId === pane && isCallerServer(socket, serverPid) === true
      }),
    mightBeCallerServer: (socket, serverPid) =>
      !isRemoteHost(socket.host) && (uncertain ||
        Option.match(caller, {
          onNone: () => false,
          onSome: (c) => c.serverPid === serverPid || sameSocket(c, socket)
        }))
  }
}
