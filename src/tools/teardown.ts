/** Destroying objects: kill_session, kill_window, kill_pane (destructive tier, explicit ids only). */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { PaneId, SessionId, WindowId } from "../domain/Ids.js"
import { Teardown } from "../domain/Model.js"
import { killPane, killSession, killWindow } from "../operations/lifecycle/Teardown.js"
import { generationArgument } from "./internal/Arguments.js"
import { type AnyTool, defineTool, socketArguments } from "./Tool.js"

export const killSessionTool = defineTool({
  name: "kill_session",
  title: "Kill tmux Session",
  description: "Kills a session by id. Refuses the caller's. Returns what closed.",
  tier: "destructive",
  group: "lifecycle",
  hints: { idempotent: false },
  input: Schema.Struct({
    session_id: SessionId,
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
  description: "Kills a window by id, in every session. Refuses the caller's. Returns what closed.",
  tier: "destructive",
  group: "lifecycle",
  hints: { idempotent: false },
  input: Schema.Struct({
    window_id: WindowId,
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
  description: "Kills a pane by id. Refuses the caller's. Returns what closed.",
  tier: "destructive",
  group: "lifecycle",
  hints: { idempotent: false },
  input: Schema.Struct({
    pane_id: PaneId,
    generation: generationArgument,
    ...socketArguments
  }),
  output: Teardown,
  handler: (input) => Effect.flatMap(resolveSocket(input), (socket) => killPane(socket, input.pane_id, { generation: input.generation }))
})

export const teardownTools: ReadonlyArray<AnyTool> = [killSessionTool, killWindowTool, killPaneTool]
