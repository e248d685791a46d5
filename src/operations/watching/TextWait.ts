/**
 * Waiting until a pane prints something: text matching a pattern, or anything at all. Only output
 * written after the wait starts counts (or after a cursor the caller took earlier), including text
 * that lands on the cursor's own row, such as `printf done` without a newline.
 *
 * The first look takes a cursor; every later look (one tmux invocation) reads what is new since the
 * last one, re-reading the row the pane's cursor was on, because that row may still grow. Rows the
 * pane's cursor has left are final and go into the tail once. In a full-screen program (alternate
 * screen) there is no scrollback to read on from: a row counts as new when it changed since the last look.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { InvalidInput, type TmuxError } from "../../domain/Errors.js"
import { PaneId } from "../../domain/Ids.js"
import { NonNegativeInt } from "../../domain/Model.js"
import type { Tmux } from "../../tmux/Tmux.js"
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

export const WaitOutcome = Schema.Literal("matched", "stopped", "timeout", "pane_died").annotations({
  description:
    "matched: a pattern (or, with patterns null, any text) appeared; stopped: a stop pattern appeared first; timeout: neither within effective_timeout; pane_died: the pane's program exited, the pane or its server went away, or it was respawned."
})

export const MatchedLine = Schema.Struct({
  text: Schema.String,
  pattern_index: Schema.NullOr(NonNegativeInt).annotations({
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
  matched_lines: Schema.Array(MatchedLine).annotations({
    description: `The new lines that ended the wait, at most ${MAX_MATCHED_LINES}; empty on timeout and pane_died.`
  }),
  tail: Schema.String.annotations({ description: "The newest lines of everything new the wait saw, oldest first." }),
  ...boundedTextFields,
  missed: Schema.Boolean.annotations({
    description:
      "Output may have been lost after since or between two looks, as capture_since's missed says; the tail then holds everything the pane held at that look."
  }),
  elapsed_ms: NonNegativeInt,
  ...timeoutFields,
  cursor: Schema.String.annotations({ description: "A capture_since cursor at the pane's cursor at the last look: read on from there." })
})
export type TextWaitResult = typeof TextWaitResult.Type

/**
 * What to wait for (patterns, stop patterns, literal or regex), for how long, and how much tail to
 * return.
 */
export interface TextWaitRequest {
  /** Null: any new text ends the wait. */
  readonly patterns: ReadonlyArray<string> | null
  readonly stopPatterns?: ReadonlyArray<string> | undefined
  readonly regex?: boolean | undefined
  readonly ignoreCase?: boolean | undefined
  readonly timeout: EffectiveTimeout
  /** Lines of the tail returned at most. */
  readonly maxLines: number
  /** A capture_since cursor: count output written after it instead of after the call starts. */
  readonly since?: string | undefined
}

type Ending = { readonly outcome: "matched" | "stopped"; readonly lines: ReadonlyArray<typeof MatchedLine.Type> } | {
  readonly outcome: "pane_died"
}

/** Where `matcher` matches in `rows`; without a matcher, every row with text (any new output). */
const matchesIn = (
  matcher: Matcher | null,
  rows: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<{ readonly line: number; readonly pattern: number | null }>, InvalidInput> =>
  matcher === null
    ? Effect.succeed(rows.flatMap((text, line) => (text.trim() === "" ? [] : [{ line, pattern: null }])))
    : matcher.matchLines(rows)

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
    const spec = { regex: request.regex, ignoreCase: request.ignoreCase }
    const matcher = request.patterns === null ? null : yield* compileMatcher({ patterns: request.patterns, ...spec })
    const stopper = request.stopPatterns === undefined
      ? null
      : yield* compileMatcher({ patterns: request.stopPatterns, ...spec }, { argument: "stop_patterns" })
    let anchor: Cursor | undefined = request.since === undefined ? undefined : yield* parseCursorFor(request.since, paneId, socket, "since")

    let lastView: PaneView | undefined
    let screen: ReadonlyArray<string> = []
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
        const matches = yield* matchesIn(matcher, rows)
        const report = (found: ReadonlyArray<{ readonly line: number; readonly pattern: number | null }>) =>
          found.slice(0, MAX_MATCHED_LINES).map((match) => ({ text: rows[match.line]!, pattern_index: match.pattern }))
        if (stops.length > 0 && (matches.length === 0 || stops[0]!.line <= matches[0]!.line)) {
          return Option.some({ outcome: "stopped" as const, lines: report(stops) })
        }
        if (matches.length > 0) return Option.some({ outcome: "matched" as const, lines: report(matches) })
        return Option.none()
      })

    const look: Effect.Effect<Option.Option<Ending>, TmuxError | InvalidInput, Tmux> = Effect.gen(function*() {
      const first = looks++ === 0
      if (anchor === undefined) {
        const view = yield* readForCursor(socket, paneId)
        lastView = view
        screen = screenRows(view)
        anchor = cursorOf(view)
        return view.state.pane_dead ? Option.some({ outcome: "pane_died" as const }) : Option.none()
      }
      const since = yield* readSince(socket, paneId, anchor, lastView?.state.history_size).pipe(
        Effect.map(Either.right),
        Effect.catchTags({
          // A pane that exists at the start and is gone later died (with its server, perhaps).
          CursorMismatch: (e) =>
            first
              ? Effect.fail(
                new InvalidInput({ reason: `since does not fit: ${e.reason} Call capture_since without a cursor to get a fresh one.` })
              )
              : Effect.succeed(Either.left("pane_died" as const)),
          NotFound: (e) => (first ? Effect.fail(e) : Effect.succeed(Either.left("pane_died" as const))),
          NoServer: (e) => (first ? Effect.fail(e) : Effect.succeed(Either.left("pane_died" as const)))
        })
      )
      if (Either.isLeft(since)) return Option.some({ outcome: "pane_died" as const })
      const { view } = since.right
      const visible = screenRows(view)
      let rows: ReadonlyArray<string>
      if (view.state.alternate_on) {
        // No scrollback while a full-screen program runs: what changed on its screen is what is new.
        rows = visible.filter((row, index) => row !== "" && row !== screen[index])
        pending = rows
      } else {
        missed ||= since.right.missed
        const cursorRow = view.state.history_size + view.state.cursor_y
        const split = Math.max(0, Math.min(since.right.rows.length, cursorRow - since.right.fromRow))
        rows = since.right.rows
        settle(rows.slice(0, split))
        pending = rows.slice(split)
        // Read on from the start of the cursor's row; on the anchor's own row, from the anchor's column.
        const sameRow = since.right.anchor?.prefixKept === true && cursorRow === since.right.fromRow
        anchor = sameRow ? cursorOf(view, anchor.x) : cursorOf(view, 0)
      }
      lastView = view
      screen = visible
      const ending = yield* decide(rows)
      if (Option.isSome(ending)) return ending
      return view.state.pane_dead ? Option.some({ outcome: "pane_died" as const }) : Option.none()
    })

    const { value, elapsedMs } = yield* pollUntil(look, { timeout: request.timeout, message: `waiting for text in ${paneId}` })
    const ending = Option.getOrUndefined(value)
    const tailRows = [...done, ...pending]
    while (tailRows.length > 0 && tailRows[tailRows.length - 1] === "") tailRows.pop()
    const bounded = keepNewest(tailRows, request.maxLines)
    return {
      outcome: ending?.outcome ?? "timeout",
      pane_id: paneId,
      matched_lines: ending !== undefined && ending.outcome !== "pane_died" ? ending.lines : [],
      tail: bounded.content,
      lines_total: bounded.lines_total + dropped,
      lines_returned: bounded.lines_returned,
      truncated: bounded.truncated || dropped > 0,
      truncated_lines: bounded.truncated_lines + dropped,
      missed,
      elapsed_ms: elapsedMs,
      effective_timeout: request.timeout.seconds,
      timeout_clamped: request.timeout.clamped,
      cursor: encodeCursor(lastView === undefined ? anchor! : cursorOf(lastView), socket)
    }
  })
)
