/** Window read tools. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { SessionId, WindowId } from "../domain/Ids.js"
import { Window } from "../domain/Model.js"
import { paginate } from "../operations/bounds/Paging.js"
import { getPaneWindow, getWindow, listWindows } from "../operations/hierarchy/Hierarchy.js"
import { callerPaneId } from "./internal/CallerTarget.js"
import { Page, pageArguments } from "./internal/Paging.js"
import { defineTool, optional, socketArguments } from "./Tool.js"

export const listWindowsTool = defineTool({
  name: "list_windows",
  title: "List tmux Windows",
  description:
    "Windows in window-id order, paged, for the whole server or one session: id, name, index, session, pane count, active/zoomed flags, size, layout, active pane. A window linked into several sessions appears once per session.",
  tier: "readonly",
  group: "read",
  hints: { idempotent: true },
  input: Schema.Struct({
    session_id: optional(SessionId, "Only this session's windows."),
    ...socketArguments,
    ...pageArguments
  }),
  output: Page(Window),
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      const { items } = yield* listWindows(socket, { session_id: input.session_id })
      return paginate(items, input)
    })
})

export const getWindowInfoTool = defineTool({
  name: "get_window_info",
  title: "Get tmux Window Info",
  description:
    "One window by window_id; without it, the window that contains the caller's own pane (only when this MCP server runs inside tmux on that server).",
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
