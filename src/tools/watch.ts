/** Watching panes: snapshot_pane, capture_since, wait_for_text. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { PaneId } from "../domain/Ids.js"
import { effectiveTimeout } from "../operations/bounds/Waiting.js"
import { CapturedSince, captureSince, DEFAULT_SINCE_MAX_LINES } from "../operations/watching/PaneCursor.js"
import { PaneSnapshot, snapshotPane } from "../operations/watching/Snapshot.js"
import { DEFAULT_WAIT_TAIL_LINES, TextWaitResult, waitForText } from "../operations/watching/TextWait.js"
import { patternArguments, PatternList, timeoutArgument } from "./internal/Arguments.js"
import { SettleMs } from "./internal/WaitAfter.js"
import { type AnyTool, defineTool, Int, optional, socketArguments } from "./Tool.js"

const maxLinesArgument = (fallback: number) =>
  optional(Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 100_000 }))), `The newest; default ${fallback}.`)

export const snapshotPaneTool = defineTool({
  name: "snapshot_pane",
  title: "Snapshot tmux Pane",
  description: "A pane's screen in one call: text, cursor, modes, size, history, command, directory.",
  tier: "readonly",
  group: "read",
  hints: { idempotent: true },
  input: Schema.Struct({
    pane_id: PaneId,
    escapes: optional(Schema.Boolean),
    ...socketArguments
  }),
  output: PaneSnapshot,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      return yield* snapshotPane(socket, input.pane_id, { escapes: input.escapes })
    })
})

export const captureSinceTool = defineTool({
  name: "capture_since",
  title: "Capture New tmux Pane Output",
  description: "What a pane printed since a cursor (omit it to get one); returns the new lines and the next cursor.",
  tier: "readonly",
  group: "read",
  hints: { idempotent: true },
  input: Schema.Struct({
    pane_id: PaneId,
    cursor: optional(Schema.String, "Omit to start."),
    include_current: optional(Schema.Boolean),
    max_lines: maxLinesArgument(DEFAULT_SINCE_MAX_LINES),
    escapes: optional(Schema.Boolean),
    ...socketArguments
  }),
  output: CapturedSince,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      return yield* captureSince(socket, input.pane_id, {
        cursor: input.cursor,
        includeCurrent: input.include_current,
        maxLines: input.max_lines ?? DEFAULT_SINCE_MAX_LINES,
        escapes: input.escapes
      })
    })
})

export const waitForTextTool = defineTool({
  name: "wait_for_text",
  title: "Wait for Text in tmux Pane",
  description:
    "Blocks until a pane prints new text matching patterns or stop_patterns (since: a capture_since cursor), or settle_ms of a still screen (TUIs; prefer patterns); returns matching lines and a tail.",
  tier: "readonly",
  group: "read",
  hints: { idempotent: true },
  input: Schema.Struct({
    pane_id: PaneId,
    patterns: Schema.NullOr(PatternList).annotate({
      description: "null: any new text."
    }),
    stop_patterns: optional(PatternList),
    ...patternArguments,
    timeout: timeoutArgument,
    max_lines: maxLinesArgument(DEFAULT_WAIT_TAIL_LINES),
    since: optional(Schema.String),
    settle_ms: optional(SettleMs),
    ignore_patterns: optional(PatternList, "Rows that never settle (a spinner, a clock)."),
    ...socketArguments
  }),
  output: TextWaitResult,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      return yield* waitForText(socket, input.pane_id, {
        patterns: input.patterns,
        stopPatterns: input.stop_patterns,
        regex: input.regex,
        ignoreCase: input.ignore_case,
        timeout: yield* effectiveTimeout(input.timeout),
        maxLines: input.max_lines ?? DEFAULT_WAIT_TAIL_LINES,
        since: input.since,
        settleMs: input.settle_ms,
        ignorePatterns: input.ignore_patterns
      })
    })
})

export const watchTools: ReadonlyArray<AnyTool> = [snapshotPaneTool, captureSinceTool, waitForTextTool]
