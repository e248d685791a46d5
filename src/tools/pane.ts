/** Pane read tools: the tree's leaves and what they show. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { InvalidInput } from "../domain/Errors.js"
import { PaneId, SessionId, WindowId } from "../domain/Ids.js"
import { Capture, Pane, PaneDetail } from "../domain/Model.js"
import { paginate } from "../operations/bounds/Paging.js"
import { PANE_FIELDS, PANE_KEY, type PaneField, projected } from "../operations/hierarchy/Fields.js"
import { getPaneDetail, listPaneFields } from "../operations/hierarchy/Hierarchy.js"
import { getPaneWithVariables } from "../operations/hierarchy/Variables.js"
import { capturePane, DEFAULT_CAPTURE_MAX_LINES } from "../operations/watching/Capture.js"
import { callerPaneId } from "./internal/CallerTarget.js"
import { fieldsArgument, fieldsOf } from "./internal/Fields.js"
import { Page, pageArguments } from "./internal/Paging.js"
import { besideOf, itemFilterOf, whereArgument } from "./internal/Where.js"
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
    "Panes of the server, a session or a window, paged; is_caller marks your own pane, is_attended one a person watches. Text: capture_pane.",
  tier: "readonly",
  group: "read",
  alwaysLoad: true,
  hints: { idempotent: true },
  input: Schema.Struct({
    session_id: optional(SessionId),
    window_id: optional(WindowId),
    fields: fieldsArgument(PANE_FIELDS, DEFAULT_PANE_FIELDS),
    where: whereArgument(Pane.fields, { neighbours: true }, "Also left_of, right_of, above or below: a pane id, for the panes beside it."),
    ...socketArguments,
    ...pageArguments
  }),
  output: Page(projected(PaneDetail, PANE_KEY)),
  handler: (input) =>
    Effect.gen(function*() {
      if (input.session_id !== undefined && input.window_id !== undefined) {
        return yield* Effect.fail(new InvalidInput({ reason: "Pass session_id or window_id, not both." }))
      }
      const beside = besideOf(input.where)
      if (beside.length > 1) return yield* Effect.fail(new InvalidInput({ reason: "where takes one of left_of, right_of, above, below." }))
      if (beside.length > 0 && (input.session_id !== undefined || input.window_id !== undefined)) {
        return yield* Effect.fail(
          new InvalidInput({ reason: "A neighbour key lists the pane's own window: pass it without session_id or window_id." })
        )
      }
      const socket = yield* resolveSocket(input)
      const fields = fieldsOf(input.fields, PANE_FIELDS, PANE_KEY, DEFAULT_PANE_FIELDS)
      const filter = { ...itemFilterOf<PaneField>(input.where), beside: beside[0] }
      const { items } = yield* listPaneFields(socket, { session_id: input.session_id, window_id: input.window_id }, fields, filter)
      return paginate(items, input)
    })
})

export const getPaneInfoTool = defineTool({
  name: "get_pane_info",
  title: "Get tmux Pane Info",
  description: "One pane with every field; default the caller's own.",
  tier: "readonly",
  group: "read",
  hints: { idempotent: true },
  input: Schema.Struct({
    pane_id: optional(PaneId),
    // Names and count are checked by getPaneWithVariables: a pattern here would cost every tools/list its bytes.
    variables: optional(Schema.Array(Schema.String)),
    ...socketArguments
  }),
  output: PaneDetail.pipe(
    Schema.fieldsAssign({
      variables: optional(
        Schema.Record(Schema.String, Schema.String),
        "By name; empty when unset or unknown to this tmux."
      )
    })
  ),
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      const paneId = input.pane_id ?? (yield* callerPaneId(socket, "pane_id"))
      // Every field is the placements too (one command more in the same invocation: tools/list has no
      // room for a fields argument here); variables are read in it, only when asked.
      return input.variables === undefined
        ? yield* getPaneDetail(socket, paneId)
        : yield* getPaneWithVariables(socket, paneId, input.variables)
    })
})

const CaptureLine = Schema.Union([Int, Schema.Literal("-")])

export const capturePaneTool = defineTool({
  name: "capture_pane",
  title: "Capture tmux Pane",
  description: "A pane's text: the screen, or start/end for scrollback; the newest max_lines, what was left out counted.",
  tier: "readonly",
  group: "read",
  alwaysLoad: true,
  hints: { idempotent: true },
  input: Schema.Struct({
    pane_id: PaneId,
    start: optional(CaptureLine, "0 = top visible line, negative = history, \"-\" = the far end."),
    end: optional(CaptureLine, "As start."),
    max_lines: optional(Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 100_000 })))),
    join_wrapped: optional(Schema.Boolean),
    escapes: optional(Schema.Boolean),
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
        joinWrapped: input.join_wrapped ?? false,
        escapes: input.escapes
      })
    })
})
