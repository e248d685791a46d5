/** Destroying objects: kill_session, kill_window, kill_pane (destructive tier, explicit ids only). */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { PaneId, SessionId, WindowId } from "../domain/Ids.js"
import { Teardown } from "../domain/Model.js"
import { killPane, killSession, killWindow } from "../operations/lifecycle/Teardown.js"
import { generationArgument } from "./internal/Arguments.js"
import { type AnyTool, defineTool, socketArguments } from "./Tool.js"

const RESULT =
  "Returns what closed with it (sessions, windows, pane ids, with counts), sessions_remaining, and server_exited: true when nothing is left and the tmux server exits (exit-empty)."

export const killSessionTool = defineTool({
  name: "kill_session",
  title: "Kill tmux Session",
  description:
    `Kills one session by session_id (never by name), with its windows and their processes; windows also linked into another session live on there (windows_kept). Refuses the session that holds the pane this MCP server runs in. ${RESULT}`,
  tier: "destructive",
  group: "lifecycle",
  hints: { idempotent: false },
  input: Schema.Struct({
    session_id: SessionId.annotations({ description: "The session to kill, e.g. $1 (from list_sessions)." }),
    generation: generationArgument,
    ...socketArguments
  }),
  output: Teardown,
  handler: (input) =>
    Effect.flatMap(resolveSocket(input), (socket) => killSession(socket, input.session_id, { generation: input.generation }))
})

export const killWindowTool = defineTool({
  name: "kill_window",
  title: "Kill tmux Window",
  description:
    `Kills one window by window_id, with its panes and their processes, in every session it is linked into; a session whose only window it was closes too. Refuses the window that holds the pane this MCP server runs in. ${RESULT}`,
  tier: "destructive",
  group: "lifecycle",
  hints: { idempotent: false },
  input: Schema.Struct({
    window_id: WindowId.annotations({ description: "The window to kill, e.g. @2 (from list_windows)." }),
    generation: generationArgument,
    ...socketArguments
  }),
  output: Teardown,
  handler: (input) =>
    Effect.flatMap(resolveSocket(input), (socket) => killWindow(socket, input.window_id, { generation: input.generation }))
})

export const killPaneTool = defineTool({
  name: "kill_pane",
  title: "Kill tmux Pane",
  description:
    `Kills one pane by pane_id and its process (SIGHUP); the last pane of a window takes the window with it, and so on up. Refuses the pane this MCP server runs in. ${RESULT}`,
  tier: "destructive",
  group: "lifecycle",
  hints: { idempotent: false },
  input: Schema.Struct({
    pane_id: PaneId.annotations({ description: "The pane to kill, e.g. %3 (from list_panes)." }),
    generation: generationArgument,
    ...socketArguments
  }),
  output: Teardown,
  handler: (input) => Effect.flatMap(resolveSocket(input), (socket) => killPane(socket, input.pane_id, { generation: input.generation }))
})

export const teardownTools: ReadonlyArray<AnyTool> = [killSessionTool, killWindowTool, killPaneTool]
