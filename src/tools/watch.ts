/** Watching panes: snapshot_pane, capture_since, wait_for_text. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { PaneId } from "../domain/Ids.js"
import { effectiveTimeout } from "../operations/bounds/Waiting.js"
import { CapturedSince, captureSince, DEFAULT_SINCE_MAX_LINES } from "../operations/watching/PaneCursor.js"
import { PaneSnapshot, snapshotPane } from "../operations/watching/Snapshot.js"
import { DEFAULT_WAIT_TAIL_LINES, MAX_MATCHED_LINES, TextWaitResult, waitForText } from "../operations/watching/TextWait.js"
import { patternArguments, timeoutArgument } from "./internal/Arguments.js"
import { type AnyTool, defineTool, Int, optional, socketArguments } from "./Tool.js"

const maxLinesArgument = (fallback: number, what: string) =>
  optional(Int.pipe(Schema.between(1, 100_000)), `At most this many lines of ${what}, the newest (default ${fallback}).`)

export const snapshotPaneTool = defineTool({
  name: "snapshot_pane",
  title: "Snapshot tmux Pane",
  description:
    "Everything about a pane's screen in one round trip: the visible text, cursor position, copy mode and its scroll position, whether a full-screen program holds the alternate screen, size, history size and limit, current command and directory, dead flag, pid and title. escapes: true keeps colours and attributes as escape sequences. For scrollback use capture_pane; for only what is new use capture_since.",
  tier: "readonly",
  group: "read",
  hints: { idempotent: true },
  input: Schema.Struct({
    pane_id: PaneId,
    escapes: optional(Schema.Boolean, "Keep colour and attribute escape sequences in content. Default false."),
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
  description:
    `Only what a pane printed since an earlier call. Without cursor: returns a cursor marking "now" and no content (include_current: true adds the visible screen). With the cursor from the previous call: returns the lines written since, and a cursor to read on from. Text written on the old cursor's row after its column counts as new (continues_line says the first line is such a rest). missed: true means output may have been lost (it scrolled past the pane's history-limit, history was cleared, e.g. by clear, or the cursor's place can no longer be told for sure): content is then all the pane still holds. A cursor is bound to its server, pane and pane process: from another one it is refused. Keeps the newest max_lines lines (default ${DEFAULT_SINCE_MAX_LINES}). Rows are screen rows: a line wider than the pane comes as several. While a full-screen program holds the screen (alternate_on), content is its current screen.`,
  tier: "readonly",
  group: "read",
  hints: { idempotent: true },
  input: Schema.Struct({
    pane_id: PaneId,
    cursor: optional(Schema.String, "The cursor from the previous capture_since or wait_for_text on this pane. Omit to start."),
    include_current: optional(Schema.Boolean, "Without cursor: also return the visible screen. Default false."),
    max_lines: maxLinesArgument(DEFAULT_SINCE_MAX_LINES, "new output"),
    ...socketArguments
  }),
  output: CapturedSince,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      return yield* captureSince(socket, input.pane_id, {
        cursor: input.cursor,
        includeCurrent: input.include_current,
        maxLines: input.max_lines ?? DEFAULT_SINCE_MAX_LINES
      })
    })
})

const PatternList = Schema.Array(Schema.String)

export const waitForTextTool = defineTool({
  name: "wait_for_text",
  title: "Wait for Text in tmux Pane",
  description:
    `Blocks until a pane prints text matching one of patterns, and returns the matching lines (at most ${MAX_MATCHED_LINES}) and a tail of the new output. Only output written after the call starts counts (text already on screen is ignored), including text on the cursor's own row such as a prompt or \`printf done\` without a newline; pass since (a cursor from capture_since taken before you typed) so output printed before this call is not missed. The echo of a command you type is new text too: match something only its output prints. patterns: null waits for any new text. stop_patterns end the wait as outcome stopped when they appear first (e.g. an error). Outcome: matched | stopped | timeout | pane_died (the program exited, or the pane, its server or its process went away). Reports progress when the client asks for it; a cancelled call stops at once.`,
  tier: "readonly",
  group: "read",
  hints: { idempotent: true },
  input: Schema.Struct({
    pane_id: PaneId,
    patterns: Schema.NullOr(PatternList).annotations({
      description: "Texts to wait for (any one ends the wait), or null to wait for any new text."
    }),
    stop_patterns: optional(PatternList, "Texts that end the wait early with outcome stopped, e.g. an error message."),
    ...patternArguments,
    timeout: timeoutArgument,
    max_lines: maxLinesArgument(DEFAULT_WAIT_TAIL_LINES, "tail"),
    since: optional(
      Schema.String,
      "A cursor from capture_since (or an earlier wait_for_text): count output written after it instead of after this call starts."
    ),
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
        since: input.since
      })
    })
})

export const watchTools: ReadonlyArray<AnyTool> = [snapshotPaneTool, captureSinceTool, waitForTextTool]
