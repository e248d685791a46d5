/**
 * The guard of the tools that type or paste into a pane: the pane this MCP server runs in is refused
 * unless the caller says `force`, because input there lands in the agent's own terminal.
 */
import * as Effect from "effect/Effect"
import type { InvocationContext } from "../../context/InvocationContext.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { Denied, type TmuxError } from "../../domain/Errors.js"
import { refuseCallerPane } from "../../operations/hierarchy/Guards.js"
import { getPane } from "../../operations/hierarchy/Hierarchy.js"
import type { Tmux } from "../../tmux/Tmux.js"

export const refuseCallerPaneUnlessForced = (
  socket: ResolvedSocket,
  input: { readonly pane_id: string; readonly force?: boolean | undefined },
  /** What the tool would do, as in "Refusing to type into %3". */
  action: "type into" | "paste into" | "run a command in" | "clear",
  /** What force means, as in "Pass force: true if typing into your own terminal is intended." */
  intended: string
): Effect.Effect<void, Denied, InvocationContext> =>
  input.force === true
    ? Effect.void
    : refuseCallerPane(socket, input.pane_id, action).pipe(
      Effect.mapError((denied) =>
        new Denied({ kind: denied.kind, reason: `${denied.reason} Pass force: true if ${intended} is intended.` })
      )
    )

/**
 * The guard of the tools that change what a person may be looking at (leaving their copy mode,
 * clearing a screen): also a pane a person's tmux client shows (`is_attended`) is refused unless
 * `force`, as run_command refuses it.
 */
export const refuseWatchedPaneUnlessForced = (
  socket: ResolvedSocket,
  input: { readonly pane_id: string; readonly force?: boolean | undefined },
  /** What the tool would do, as in "Refusing to clear %3". */
  action: string
): Effect.Effect<void, Denied | TmuxError, InvocationContext | Tmux> =>
  input.force === true ? Effect.void : Effect.flatMap(getPane(socket, input.pane_id), (pane) =>
    pane.is_attended
      ? Effect.fail(
        new Denied({ kind: "watched", reason: `Refusing to ${action} ${input.pane_id}: a person's tmux client shows that pane right now.` })
      )
      : Effect.void)
