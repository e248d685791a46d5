/**
 * Waiting until a pane prints something: text matching a pattern, or anything at all. Only output
 * written after the wait starts counts (or after a cursor the caller took earlier), including text
 * that lands on the cursor's own row, such as `printf done` without a newline.
 *
 * The first look takes a cursor; every later look (one tmux invocation) reads what is new since the
 * last one, re-reading the row the pane's cursor was on, because that row may still grow. Rows the
 * pane's cursor has left are final and go into the tail once. In a full-screen program (alternate
 * screen) there is no scrollback to read on from: a row counts as new when it changed since the last look.
 *
 * A settle time (`settleMs`) ends the wait as `settled` once the pane's screen, less the rows an
 * ignore pattern matches (a spinner, a clock), has looked the same for that long: the only honest
 * end for a program with no prompt to wait for. Its tail is then the screen as it settled.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { InvalidInput, type TmuxError } from "../../domain/Errors.js"
import { PaneId } from "../../domain/Ids.js"
import { NonNegativeInt } from "../../domain/Model.js"
import type { Tmux } from "../../tmux/Tmux.js"
import { probeForRunaway } from "../bounds/RegexProbe.js"
import { compileMatcher, type Matcher } from "../bounds/TextMatcher.js"
import { type EffectiveTimeout, pollUntil, timeoutFields } from "../bounds/Waiting.js"
import {
  boundedTextFields,
  type Cursor,
  cursorOf,
  encodeCursor,
  keepNewest,
  parseCursorFor,
  readForCursor,
  readSince,
  screenRows
} from "./PaneCursor.js"
import type { PaneView } from "./Snapshot.js"

export const DEFAULT_WAIT_TAIL_LINES = 50
/** Matching lines reported at most. */
export const MAX_MATCHED_LINES = 20

export const WaitOutcome = Schema.Literals(["matched", "stopped", "settled", "timeout", "pane_died"]).annotate({
  description:
    "matched: a pattern (or, with patterns null and no settle_ms, any text) appeared; stopped: a stop pattern appeared first; settled: the screen did not change for settle_ms (a quiet screen, not a finished job); timeout: none within effective_timeout; pane_died: the pane's program exited, the pane or its server went away, or it was respawned."
})

/** The longest settle time: a screen quiet for a minute is as settled as it gets. */
export const MAX_SETTLE_MS = 60_000

export const MatchedLine = Schema.Struct({
  text: Schema.String,
  pattern_index: Schema.NullOr(NonNegativeInt).annotate({
    description: "Index into patterns (outcome matched) or stop_patterns (outcome stopped); null when patterns is null."
  })
})

/**
 * How a wait for text ended (matched, stopped, timeout, pane_died), the lines that ended it, a
 * bounded tail and the cursor to read on from.
 */
export const TextWaitResult = Schema.Struct({
  outcome: WaitOutcome,
  pane_id: PaneId,
  matched_lines: Schema.Array(MatchedLine).annotate({
    description: `The new lines that ended the wait, at most ${MAX_MATCHED_LINES}; empty on settled, timeout and pane_died.`
  }),
  tail: Schema.String.annotate({
    description:
      "The newest lines of everything new the wait saw, oldest first; with settle_ms, when settled or timed out, the screen as last seen."
  }),
  ...boundedTextFields,
  missed: Schema.Boolean.annotate({
    description:
      "Output may have been lost after since or between two looks, as capture_since's missed says; the tail then holds everything the pane held at that look."
  }),
  elapsed_ms: NonNegativeInt,
  ...timeoutFields,
  cursor: Schema.String.annotate({ description: "A capture_since cursor at the pane's cursor at the last look: read on from there." })
})
export type TextWaitResult = typeof TextWaitResult.Type

/** What ends a wait: patterns, stop patterns (literal or regex), a settle time, and for how long. */
export type WaitCriteria = Pick<
  TextWaitRequest,
  "patterns" | "stopPatterns" | "regex" | "ignoreCase" | "timeout" | "settleMs" | "ignorePatterns"
>

/**
 * What to wait for (patterns, stop patterns, literal or regex), for how long, and how much tail to
 * return.
 */
export interface TextWaitRequest {
  /** Null: any new text ends the wait (with `settleMs`: only the settle time does). */
  readonly patterns: ReadonlyArray<string> | null
  readonly stopPatterns?: ReadonlyArray<string> | undefined
  readonly regex?: boolean | undefined
  readonly ignoreCase?: boolean | undefined
  readonly timeout: EffectiveTimeout
  /** Lines of the tail returned at most. */
  readonly maxLines: number
  /** A capture_since cursor: count output written after it instead of after the call starts. */
  readonly since?: string | undefined
  /**
   * A look at the pane taken in the same tmux command list as the input the caller sent (see
   * `lookCommands`): count output written after it. The pane existed then, so its going away is `pane_died`.
   */
  readonly from?: PaneView | undefined
  /** End as `settled` once the screen has not changed for this many milliseconds. */
  readonly settleMs?: number | undefined
  /** Rows matching these never count as a change of the screen (a spinner, a clock). */
  readonly ignorePatterns?: ReadonlyArray<string> | undefined
}

/** Pauses between looks while settling: short enough to see a quiet spell end on time, at most 500 ms. */
const settleInterval = (settleMs: number): number => Math.min(500, Math.max(50, Math.floor(settleMs / 4)))

type Ending = { readonly outcome: "matched" | "stopped"; readonly lines: ReadonlyArray<typeof MatchedLine.Type> } | {
  readonly outcome: "pane_died" | "settled"
}

/** Where `matcher` matches in `rows`; without a matcher, every row with text (any new output). */
const matchesIn = (
  matcher: Matcher | null,
  rows: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<{ readonly line: number; readonly pattern: number | null }>, InvalidInput> =>
  matcher === null
    ? Effect.succeed(rows.flatMap((text, line) => (text.trim() === "" ? [] : [{ line, pattern: null }])))
    : matcher.matchLines(rows)

/** What a request waits for, compiled; InvalidInput when a pattern or the settle time cannot be used. */
const compileWait = (request: WaitCriteria) =>
  Effect.gen(function*() {
    const spec = { regex: request.regex, ignoreCase: request.ignoreCase }
    const settleMs = request.settleMs
    if (settleMs !== undefined && settleMs >= request.timeout.seconds * 1000) {
      return yield* Effect.fail(
        new InvalidInput({
          reason: `settle_ms (${settleMs}) must be shorter than the timeout (${request.timeout.seconds} s${
            request.timeout.clamped ? ", the server's ceiling" : ""
          }): a screen cannot be seen quiet for longer than the wait lasts. Lower settle_ms or raise timeout.`
        })
      )
    }
    // With a settle time and no patterns, only the quiet screen ends the wait, not any new text.
    const anyText = request.patterns === null && settleMs === undefined
    const matcher = request.patterns === null ? null : yield* compileMatcher({ patterns: request.patterns, ...spec })
    const stopper = request.stopPatterns === undefined
      ? null
      : yield* compileMatcher({ patterns: request.stopPatterns, ...spec }, { argument: "stop_patterns" })
    const ignorer = request.ignorePatterns === undefined || request.ignorePatterns.length === 0
      ? null
      : yield* compileMatcher({ patterns: request.ignorePatterns, ...spec }, { argument: "ignore_patterns" })
    return { anyText, ignorer, matcher, settleMs, stopper }
  })

/**
 * Checks what a wait would wait for without waiting: a tool that sends input first (send_keys with
 * `wait`) refuses bad patterns before anything is sent, and regular expressions that run away on
 * a test line (RegexProbe) too.
 */
export const checkTextWait = (request: WaitCriteria): Effect.Effect<void, InvalidInput> =>
  Effect.gen(function*() {
    yield* compileWait(request)
    const spec = { regex: request.regex, ignoreCase: request.ignoreCase }
    if (request.patterns !== null) yield* probeForRunaway({ patterns: request.patterns, ...spec }, "patterns")
    if (request.stopPatterns !== undefined) yield* probeForRunaway({ patterns: request.stopPatterns, ...spec }, "stop_patterns")
    if (request.ignorePatterns !== undefined) yield* probeForRunaway({ patterns: request.ignorePatterns, ...spec }, "ignore_patterns")
  })

/**
 * Waits until new output in a pane matches a pattern or a stop pattern, the timeout passes or the
 * pane dies; text already on screen (or before `since`) is ignored. Reports progress through
 * `Progress`.
 */
export const waitForText = Effect.fn("TextWait.waitForText")((
  socket: ResolvedSocket,
  paneId: string,
  request: TextWaitRequest
): Effect.Effect<TextWaitResult, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    const { anyText, ignorer, matcher, settleMs, stopper } = yield* compileWait(request)
    const from = request.from
    let anchor: Cursor | undefined = from !== undefined
      ? cursorOf(from)
      : request.since === undefined
      ? undefined
      : yield* Effect.fromResult(parseCursorFor(request.since, paneId, socket, "since"))

    /** The screen as the settle time compares it, and when it last changed. */
    let compared: ReadonlyArray<string> | undefined
    let changedAt = 0
    const settleRows = (view: PaneView): Effect.Effect<ReadonlyArray<string>, InvalidInput> =>
      Effect.gen(function*() {
        const rows = screenRows(view)
        const ignored = new Set(ignorer === null ? [] : (yield* ignorer.matchLines(rows)).map((match) => match.line))
        return rows.filter((_, index) => !ignored.has(index))
      })
    /** Whether the screen has now been quiet for the settle time (a change starts the count again). */
    const quietFor = (view: PaneView): Effect.Effect<boolean, InvalidInput> =>
      Effect.gen(function*() {
        if (settleMs === undefined) return false
        const now = yield* Clock.currentTimeMillis
        const rows = yield* settleRows(view)
        if (compared === undefined || rows.length !== compared.length || rows.some((row, index) => row !== compared![index])) {
          compared = rows
          changedAt = now
          return false
        }
        return now - changedAt >= settleMs
      })

    let lastView: PaneView | undefined = from
    let screen: ReadonlyArray<string> = from === undefined ? [] : screenRows(from)
    if (from !== undefined) yield* quietFor(from)
    let missed = false
    let looks = 0
    /** Final rows (the pane's cursor has left them), the newest `maxLines`, and how many were dropped. */
    const done: Array<string> = []
    let dropped = 0
    /** The rows from the pane's cursor row down, as last seen: they may still change. */
    let pending: ReadonlyArray<string> = []
    const settle = (rows: ReadonlyArray<string>) => {
      done.push(...rows)
      if (done.length > request.maxLines) dropped += done.splice(0, done.length - request.maxLines).length
    }

    const decide = (rows: ReadonlyArray<string>): Effect.Effect<Option.Option<Ending>, InvalidInput> =>
      Effect.gen(function*() {
        const stops = stopper === null ? [] : yield* stopper.matchLines(rows)
        const matches = anyText || matcher !== null ? yield* matchesIn(matcher, rows) : []
        const report = (found: ReadonlyArray<{ readonly line: number; readonly pattern: number | null }>) =>
          found.slice(0, MAX_MATCHED_LINES).map((match) => ({ text: rows[match.line]!, pattern_index: match.pattern }))
        if (stops.length > 0 && (matches.length === 0 || stops[0]!.line <= matches[0]!.line)) {
          return Option.some({ outcome: "stopped" as const, lines: report(stops) })
        }
        if (matches.length > 0) return Option.some({ outcome: "matched" as const, lines: report(matches) })
        return Option.none()
      })

    const look: Effect.Effect<Option.Option<Ending>, TmuxError | InvalidInput, Tmux> = Effect.gen(function*() {
      // A pane seen with the caller's input existed: its going away later is the pane dying.
      const first = looks++ === 0 && from === undefined
      if (anchor === undefined) {
        const view = yield* readForCursor(socket, paneId)
        lastView = view
        screen = screenRows(view)
        anchor = cursorOf(view)
        yield* quietFor(view)
        return view.state.pane_dead ? Option.some({ outcome: "pane_died" as const }) : Option.none()
      }
      const since = yield* readSince(socket, paneId, anchor, lastView?.state.history_size).pipe(
        Effect.map(Result.succeed),
        Effect.catchTags({
          // A pane that exists at the start and is gone later died (with its server, perhaps).
          CursorMismatch: (e) =>
            first
              ? Effect.fail(
                new InvalidInput({ reason: `since does not fit: ${e.reason} Call capture_since without a cursor to get a fresh one.` })
              )
              : Effect.succeed(Result.fail("pane_died" as const)),
          NotFound: (e) => (first ? Effect.fail(e) : Effect.succeed(Result.fail("pane_died" as const))),
          NoServer: (e) => (first ? Effect.fail(e) : Effect.succeed(Result.fail("pane_died" as const)))
        })
      )
      if (Result.isFailure(since)) return Option.some({ outcome: "pane_died" as const })
      const { view } = since.success
      const visible = screenRows(view)
      let rows: ReadonlyArray<string>
      if (view.state.alternate_on) {
        // No scrollback while a full-screen program runs: what changed on its screen is what is new.
        rows = visible.filter((row, index) => row !== "" && row !== screen[index])
        pending = rows
      } else {
        missed ||= since.success.missed
        const cursorRow = view.state.history_size + view.state.cursor_y
        const split = Math.max(0, Math.min(since.success.rows.length, cursorRow - since.success.fromRow))
        rows = since.success.rows
        settle(rows.slice(0, split))
        pending = rows.slice(split)
        // Read on from the start of the cursor's row; on the anchor's own row, from the anchor's column.
        const sameRow = since.success.anchor?.prefixKept === true && cursorRow === since.success.fromRow
        anchor = sameRow ? cursorOf(view, anchor.x) : cursorOf(view, 0)
      }
      lastView = view
      screen = visible
      const ending = yield* decide(rows)
      if (Option.isSome(ending)) return ending
      if (view.state.pane_dead) return Option.some({ outcome: "pane_died" as const })
      return (yield* quietFor(view)) ? Option.some({ outcome: "settled" as const }) : Option.none()
    })

    const { value, elapsedMs } = yield* pollUntil(look, {
      timeout: request.timeout,
      message: `waiting for text in ${paneId}`,
      ...(settleMs === undefined ? {} : { maxInterval: settleInterval(settleMs) })
    })
    const ending = Option.getOrUndefined(value)
    // Settled, or never so within the time: what the program shows is the answer (a full-screen
    // program redraws its screen in place, so new rows alone would miss it).
    const settled = settleMs !== undefined && lastView !== undefined && (ending === undefined || ending.outcome === "settled")
    const tailRows = settled ? [...screenRows(lastView!)] : [...done, ...pending]
    while (tailRows.length > 0 && tailRows[tailRows.length - 1] === "") tailRows.pop()
    const bounded = keepNewest(tailRows, request.maxLines)
    const cut = settled ? 0 : dropped
    return {
      outcome: ending?.outcome ?? "timeout",
      pane_id: paneId,
      matched_lines: ending !== undefined && "lines" in ending ? ending.lines : [],
      tail: bounded.content,
      lines_total: bounded.lines_total + cut,
      lines_returned: bounded.lines_returned,
      truncated: bounded.truncated || cut > 0,
      truncated_lines: bounded.truncated_lines + cut,
      missed,
      elapsed_ms: elapsedMs,
      effective_timeout: request.timeout.seconds,
      timeout_clamped: request.timeout.clamped,
      cursor: encodeCursor(lastView === undefined ? anchor! : cursorOf(lastView), socket)
    }
  })
)
