/** Pane read tools: the tree's leaves and what they show. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { InvalidInput } from "../domain/Errors.js"
import { PaneId, SessionId, WindowId } from "../domain/Ids.js"
import { Capture, Pane } from "../domain/Model.js"
import { paginate } from "../operations/bounds/Paging.js"
import { PANE_FIELDS, PANE_KEY, type PaneField, projected } from "../operations/hierarchy/Fields.js"
import { getPane, listPaneFields } from "../operations/hierarchy/Hierarchy.js"
import { capturePane, DEFAULT_CAPTURE_MAX_LINES } from "../operations/watching/Capture.js"
import { callerPane } from "./internal/CallerTarget.js"
import { fieldsArgument, fieldsOf } from "./internal/Fields.js"
import { Page, pageArguments } from "./internal/Paging.js"
import { defineTool, Int, optional, socketArguments } from "./Tool.js"

/**
 * What list_panes returns per pane unless asked: where it is, what runs there, whether it is the
 * caller's own or a person watches it. Not cwd (long, and read from /proc per pane), sizes, titles
 * or pids: `fields` asks for them.
 */
export const DEFAULT_PANE_FIELDS: ReadonlyArray<PaneField> = [
  "pane_id",
  "session_id",
  "window_id",
  "window_index",
  "pane_index",
  "active",
  "command",
  "is_caller",
  "is_attended"
]

export const listPanesTool = defineTool({
  name: "list_panes",
  title: "List tmux Panes",
  description:
    "Panes in pane-id order, paged, for the whole server, one session or one window: id, index, window and session, size and position, command, cwd, pid, title, dead/in_mode flags, is_caller (your own pane; null outside tmux) and is_attended (a person's client shows it). Metadata only: use capture_pane for content.",
  tier: "readonly",
  group: "read",
  alwaysLoad: true,
  hints: { idempotent: true },
  input: Schema.Struct({
    session_id: optional(SessionId, "Only this session's panes."),
    window_id: optional(WindowId, "Only this window's panes."),
    fields: fieldsArgument(PANE_FIELDS, DEFAULT_PANE_FIELDS),
    ...socketArguments,
    ...pageArguments
  }),
  output: Page(projected(Pane, PANE_KEY)),
  handler: (input) =>
    Effect.gen(function*() {
      if (input.session_id !== undefined && input.window_id !== undefined) {
        return yield* Effect.fail(new InvalidInput({ reason: "Pass session_id or window_id, not both." }))
      }
      const socket = yield* resolveSocket(input)
      const fields = fieldsOf(input.fields, PANE_FIELDS, PANE_KEY, DEFAULT_PANE_FIELDS)
      const { items } = yield* listPaneFields(socket, { session_id: input.session_id, window_id: input.window_id }, fields)
      return paginate(items, input)
    })
})

export const getPaneInfoTool = defineTool({
  name: "get_pane_info",
  title: "Get tmux Pane Info",
  description: "One pane by pane_id; without it, the caller's own pane (only when this MCP server runs inside tmux on that server).",
  tier: "readonly",
  group: "read",
  hints: { idempotent: true },
  input: Schema.Struct({ pane_id: optional(PaneId), ...socketArguments }),
  output: Pane,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      return input.pane_id === undefined ? yield* callerPane(socket) : yield* getPane(socket, input.pane_id)
    })
})

const CaptureLine = Schema.Union(Int, Schema.Literal("-")).annotations({
  description: "A line number: 0 is the top visible line, negative numbers reach into history, \"-\" means the far end."
})

export const capturePaneTool = defineTool({
  name: "capture_pane",
  title: "Capture tmux Pane",
  description:
    `The text a pane shows, as plain text. Default: the visible screen. start/end select lines (negative = scrollback history, "-" = oldest history / bottom). Keeps the newest max_lines lines (default ${DEFAULT_CAPTURE_MAX_LINES}) and reports how many were left out. join_wrapped joins lines tmux wrapped at the pane width.`,
  tier: "readonly",
  group: "read",
  alwaysLoad: true,
  hints: { idempotent: true },
  input: Schema.Struct({
    pane_id: PaneId,
    start: optional(CaptureLine),
    end: optional(CaptureLine),
    max_lines: optional(Int.pipe(Schema.between(1, 100_000)), "At most this many lines, the newest (default 500)."),
    join_wrapped: optional(Schema.Boolean),
    ...socketArguments
  }),
  output: Capture,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      return yield* capturePane(socket, input.pane_id, {
        start: input.start,
        end: input.end,
        maxLines: input.max_lines ?? DEFAULT_CAPTURE_MAX_LINES,
        joinWrapped: input.join_wrapped ?? false
      })
    })
})
