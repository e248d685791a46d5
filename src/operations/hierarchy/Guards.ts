/**
 * Refusals that protect the caller's own tmux context: no tool may kill, respawn or otherwise
 * destroy the pane this MCP server runs in, or the window or session that contains it.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { InvocationContext } from "../../context/InvocationContext.js"
import { isRemoteHost } from "../../context/RemoteHosts.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { Denied, type TmuxError } from "../../domain/Errors.js"
import { decode, queryTree } from "../../tmux/Query.js"
import { paneIdsRecord } from "../../tmux/Records.js"
import type { Tmux } from "../../tmux/Tmux.js"

const refuse = (reason: string) => Effect.fail(new Denied({ kind: "self", reason }))

/**
 * Whether the caller might run on this socket (unknown identity counts as "might"). The caller
 * runs on this machine: a remote host's socket is never its own by path (see InvocationContext).
 */
const callerPaneOn = (socket: ResolvedSocket) =>
  Effect.map(InvocationContext, (context): Option.Option<string | null> =>
    isRemoteHost(socket.host)
      ? Option.none()
      : context.uncertain
      ? Option.some(null)
      : Option.flatMap(context.caller, (caller) => (context.isCallerSocket(socket) ? Option.some(caller.paneId) : Option.none())))

/** Refuses when `paneId` is the caller's own pane. */
export const refuseCallerPane = (
  socket: ResolvedSocket,
  paneId: string,
  action: string
): Effect.Effect<void, Denied, InvocationContext> =>
  Effect.flatMap(callerPaneOn(socket), (caller) =>
    Option.isSome(caller) && (caller.value === null || caller.value === paneId)
      ? refuse(`Refusing to ${action} ${paneId}: it is (or may be) the pane this MCP server runs in.`)
      : Effect.void)

/** Refuses when the window or session contains the caller's own pane. */
export const refuseCallerWithin = (
  socket: ResolvedSocket,
  target: { readonly kind: "window" | "session"; readonly id: string },
  action: string
): Effect.Effect<void, Denied | TmuxError, InvocationContext | Tmux> =>
  Effect.gen(function*() {
    const caller = yield* callerPaneOn(socket)
    if (Option.isNone(caller)) return
    const denial = `Refusing to ${action} ${target.kind} ${target.id}: it contains the pane this MCP server runs in${
      caller.value === null ? " (or may: $TMUX and $TMUX_PANE do not both identify the caller's pane)" : ` (${caller.value})`
    }.`
    if (caller.value === null) return yield* refuse(denial)
    const callerPane = caller.value
    const scope = target.kind === "session" ? ["-s", "-t", target.id] : ["-t", target.id]
    const output = yield* queryTree(socket, (m) => [["list-panes", ...scope, "-F", paneIdsRecord.format(m)]], target)
    const panes = yield* decode(paneIdsRecord, output)
    if (panes.some((pane) => pane.pane_id === callerPane)) return yield* refuse(denial)
  })
