/** Window read tools. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { SessionId, WindowId } from "../domain/Ids.js"
import { Window } from "../domain/Model.js"
import { paginate } from "../operations/bounds/Paging.js"
import { projected, WINDOW_FIELDS, WINDOW_KEY, type WindowField } from "../operations/hierarchy/Fields.js"
import { getPaneWindow, getWindow, listWindowFields } from "../operations/hierarchy/Hierarchy.js"
import { callerPaneId } from "./internal/CallerTarget.js"
import { fieldsArgument, fieldsOf } from "./internal/Fields.js"
import { Page, pageArguments } from "./internal/Paging.js"
import { itemFilterOf, whereArgument } from "./internal/Where.js"
import { defineTool, optional, socketArguments } from "./Tool.js"

/** What list_windows returns per window unless asked (not the layout string, sizes or zoom). */
export const DEFAULT_WINDOW_FIELDS: ReadonlyArray<WindowField> = [
  "window_id",
  "session_id",
  "window_index",
  "window_name",
  "pane_count",
  "active"
]

export const listWindowsTool = defineTool({
  name: "list_windows",
  title: "List tmux Windows",
  description: "Windows of the server or a session, paged; a linked window once per session.",
  tier: "readonly",
  group: "read",
  hints: { idempotent: true },
  input: Schema.Struct({
    session_id: optional(SessionId),
    fields: fieldsArgument(WINDOW_FIELDS, DEFAULT_WINDOW_FIELDS),
    where: whereArgument(Window.fields),
    ...socketArguments,
    ...pageArguments
  }),
  output: Page(projected(Window, WINDOW_KEY)),
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      const fields = fieldsOf(input.fields, WINDOW_FIELDS, WINDOW_KEY, DEFAULT_WINDOW_FIELDS)
      const { items } = yield* listWindowFields(socket, { session_id: input.session_id }, fields, itemFilterOf(input.where))
      return paginate(items, input)
    })
})

export const getWindowInfoTool = defineTool({
  name: "get_window_info",
  title: "Get tmux Window Info",
  description: "One window with size and layout; default the caller's own.",
  tier: "readonly",
  group: "read",
  hints: { idempotent: true },
  input: Schema.Struct({ window_id: optional(WindowId), ...socketArguments }),
  output: Window,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      return input.window_id !== undefined
        ? yield* getWindow(socket, input.window_id)
        : yield* getPaneWindow(socket, yield* callerPaneId(socket, "window_id"))
    })
})
