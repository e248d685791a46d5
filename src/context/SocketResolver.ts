/**
 * Which tmux server a call talks to. Precedence (visible in where_am_i):
 * per-call socket_path / socket_name > LIBTMUX_SOCKET_PATH > LIBTMUX_SOCKET (either replaced by its
 * command-line flag) > the caller's socket
 * (from `$TMUX`) > tmux's default socket. The effective path is always known, the default included.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { basename, dirname, join } from "node:path"
import { InvalidInput } from "../domain/Errors.js"
import { parseTmuxVariable } from "./internal/TmuxVariable.js"
import { realPathOrSelf } from "./RealPath.js"
import { TmuxMcpConfig, type TmuxMcpConfigShape } from "./TmuxMcpConfig.js"

/** The precedence rule that chose a socket, as where_am_i and doctor name it. */
export type SocketRule =
  | "socket_path argument"
  | "socket_name argument"
  | "--socket-path"
  | "--socket-name"
  | "LIBTMUX_SOCKET_PATH"
  | "LIBTMUX_SOCKET"
  | "caller ($TMUX)"
  | "tmux default"

/**
 * A socket to talk to, with how it was chosen and the tmux flags that address it: every operation
 * takes one.
 */
export interface ResolvedSocket {
  /** The `-L` name when the socket lives in tmux's socket directory, else null. */
  readonly name: string | null
  /** The socket file's path (what tmux itself would compute for a name). */
  readonly path: string
  /** Which precedence rule chose this socket. */
  readonly rule: SocketRule
  /** The tmux flags that address it. */
  readonly flags: ReadonlyArray<string>
  /** How messages name it. */
  readonly label: string
}

/** Per-call socket selectors, as every server-targeting tool accepts them. */
export interface SocketSelector {
  readonly socket_name?: string | undefined
  readonly socket_path?: string | undefined
}

/** The resolver's operations. */
export interface SocketResolverShape {
  /** tmux's socket directory for this user: `<TMUX_TMPDIR>/tmux-<uid>`. */
  readonly socketDirectory: string
  readonly resolve: (selector?: SocketSelector) => Effect.Effect<ResolvedSocket, InvalidInput>
  /** A socket given by path, e.g. one found by list_servers. */
  readonly fromPath: (path: string, rule?: SocketRule) => ResolvedSocket
}

/** Resolves per-call socket selectors against the configuration; `layer` needs `TmuxMcpConfig`. */
export class SocketResolver extends Context.Tag("effect-tmux-mcp/SocketResolver")<SocketResolver, SocketResolverShape>() {
  static readonly layer: Layer.Layer<SocketResolver, never, TmuxMcpConfig> = Layer.effect(
    SocketResolver,
    Effect.map(TmuxMcpConfig, (config) => makeSocketResolver(config))
  )
}

/** The socket a call's selectors choose (the configured default without them), as every tool resolves it. */
export const resolveSocket = (selector?: SocketSelector): Effect.Effect<ResolvedSocket, InvalidInput, SocketResolver> =>
  Effect.flatMap(SocketResolver, (resolver) => resolver.resolve(selector))

/** A Unix socket address holds a path of at most 107 bytes (sun_path is 108, its NUL included). */
export const MAX_SOCKET_PATH_BYTES = 107

/** No NUL (no path holds one) and a socket address that can hold the path; the value is never echoed. */
const checkPathFits = (argument: string, value: string, path: string): Effect.Effect<void, InvalidInput> => {
  if (value.includes("\0")) return Effect.fail(new InvalidInput({ reason: `${argument} must not contain NUL characters.` }))
  const bytes = Buffer.byteLength(path, "utf8")
  return bytes <= MAX_SOCKET_PATH_BYTES
    ? Effect.void
    : Effect.fail(
      new InvalidInput({
        reason: `${argument} makes a socket path of ${bytes} bytes; a Unix socket address holds at most ${MAX_SOCKET_PATH_BYTES}.`
      })
    )
}

export const makeSocketResolver = (config: TmuxMcpConfigShape): SocketResolverShape => {
  // tmux resolves TMUX_TMPDIR through realpath before appending `tmux-<uid>`; so do we.
  const socketDirectory = join(realPathOrSelf(config.tmuxTmpdir), `tmux-${config.uid}`)

  const byName = (name: string, rule: SocketRule): ResolvedSocket => {
    const path = join(socketDirectory, name)
    return { name, path, rule, flags: ["-L", name], label: `${name} (${path})` }
  }
  const fromPath = (path: string, rule: SocketRule = "socket_path argument"): ResolvedSocket => {
    const name = dirname(path) === socketDirectory ? basename(path) : null
    return { name, path, rule, flags: ["-S", path], label: name === null ? path : `${name} (${path})` }
  }

  const caller = Option.fromNullable(config.callerTmux).pipe(Option.flatMap(parseTmuxVariable))
  const fallback: ResolvedSocket = config.socketPath !== undefined
    ? fromPath(config.socketPath, config.socketFromFlag ? "--socket-path" : "LIBTMUX_SOCKET_PATH")
    : config.socketName !== undefined
    ? byName(config.socketName, config.socketFromFlag ? "--socket-name" : "LIBTMUX_SOCKET")
    : Option.match(caller, {
      onSome: (c) => fromPath(c.socketPath, "caller ($TMUX)"),
      onNone: () => byName("default", "tmux default")
    })

  const resolve = (selector: SocketSelector = {}): Effect.Effect<ResolvedSocket, InvalidInput> => {
    const { socket_name, socket_path } = selector
    if (socket_name !== undefined && socket_path !== undefined) {
      return Effect.fail(new InvalidInput({ reason: "socket_name and socket_path are exclusive; pass one of them." }))
    }
    if (socket_path !== undefined) {
      if (!socket_path.startsWith("/")) {
        return Effect.fail(new InvalidInput({ reason: "socket_path must be an absolute path (list_servers shows them)." }))
      }
      return Effect.as(checkPathFits("socket_path", socket_path, socket_path), fromPath(socket_path))
    }
    if (socket_name !== undefined) {
      if (socket_name === "" || socket_name.includes("/")) {
        return Effect.fail(
          new InvalidInput({ reason: "socket_name must be a non-empty name without '/'; use socket_path for a path." })
        )
      }
      const socket = byName(socket_name, "socket_name argument")
      return Effect.as(checkPathFits("socket_name", socket_name, socket.path), socket)
    }
    return Effect.succeed(fallback)
  }

  return { socketDirectory, resolve, fromPath }
}
