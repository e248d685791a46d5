/**
 * Read tools default to the caller's own pane / window / session, never to "the first one".
 * That default exists only when this MCP server runs inside tmux and the tools query that server.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { InvocationContext } from "../../context/InvocationContext.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { InvalidInput } from "../../domain/Errors.js"

/**
 * The caller's own pane id, as the default for `argument`, checked without asking tmux: there is
 * one only inside tmux, and only when the tools query the caller's server. Operations look the
 * pane up in the same invocation as what they read about it (a missing pane is NotFound there).
 */
export const callerPaneId = (
  socket: ResolvedSocket,
  argument: "pane_id" | "window_id" | "session_id"
): Effect.Effect<string, InvalidInput, InvocationContext> =>
  Effect.flatMap(InvocationContext, (context) => {
    const caller = Option.getOrNull(context.caller)
    if (caller === null || caller.paneId === null) {
      return Effect.fail(
        new InvalidInput({
          reason: `${argument} is required: this MCP server is not running inside tmux, so there is no "own" ${
            argument.replace("_id", "")
          }. Call where_am_i or list_panes to pick one.`
        })
      )
    }
    if (!context.isCallerSocket(socket)) {
      return Effect.fail(
        new InvalidInput({
          reason: `${argument} is required: the tools query ${socket.label}, not the caller's server (${caller.socketPath}).`
        })
      )
    }
    return Effect.succeed(caller.paneId)
  })
