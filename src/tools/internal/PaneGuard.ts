/**
 * The guard of the tools that type or paste into a pane: the pane this MCP server runs in is refused
 * unless the caller says `force`, because input there lands in the agent's own terminal.
 */
import * as Effect from "effect/Effect"
import type { InvocationContext } from "../../context/InvocationContext.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { Denied } from "../../domain/Errors.js"
import { refuseCallerPane } from "../../operations/hierarchy/Guards.js"

export const refuseCallerPaneUnlessForced = (
  socket: ResolvedSocket,
  input: { readonly pane_id: string; readonly force?: boolean | undefined },
  /** What the tool would do, as in "Refusing to type into %3". */
  action: "type into" | "paste into" | "run a command in",
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
