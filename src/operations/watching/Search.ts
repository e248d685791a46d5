/**
 * Searching the text of many panes at once, bounded in panes, history, matches, bytes and time.
 *
 * Two round trips whatever the size of the tree: the pane list (the page is cut from it in pane-id
 * order, so the panes to read are only known after it), then one command list that captures every
 * pane of the page (again without a pane that closed in between, see `capturePanes`). A page too
 * long for one tmux invocation (about 120 panes) is captured in as few as fit (`runInBatches`). Each capture
 * is preceded by a header record printed with the query's random marks; pane text cannot forge it
 * (the token is chosen afresh for every call), so the output splits into panes exactly. The header is printed in the same command list as the capture, so the history
 * size it reports is the one the capture saw, and line numbers are capture_pane's own.
 *
 * Patterns never reach tmux: they are matched here, on the captured text, by the time-boxed
 * `TextMatcher`. No pattern is put into a tmux format or command, so `#{…}`, `#(…)`, `;` or quotes in
 * a pattern are only ever text to look for.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvocationContext } from "../../context/InvocationContext.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { stripControls } from "../../domain/ControlText.js"
import { Failed, type InvalidInput, type TmuxError } from "../../domain/Errors.js"
import { Int, NonNegativeInt, PaneDetail } from "../../domain/Model.js"
import { runInBatches } from "../../tmux/CommandBatches.js"
import * as Format from "../../tmux/Format.js"
import { noCurrentTargetIsNotFound } from "../../tmux/Query.js"
import type { Tmux, TmuxCommand } from "../../tmux/Tmux.js"
import { paginate } from "../bounds/Paging.js"
import { compileMatcher, type PatternSpec } from "../bounds/TextMatcher.js"
import { PANE_KEY, type PaneField, type Projected, projected } from "../hierarchy/Fields.js"
import { listPaneFields, type TreeScope } from "../hierarchy/Hierarchy.js"

export const DEFAULT_HISTORY_LINES = 1000
export const MAX_HISTORY_LINES = 100_000
export const DEFAULT_MAX_PANES = 50
export const MAX_MAX_PANES = 200
/** history_lines x max_panes: what one call may ask tmux to print, beyond the visible screens. */
export const MAX_HISTORY_ROWS = 200_000
export const DEFAULT_MAX_MATCHES_PER_PANE = 20
export const MAX_MATCHES_PER_PANE = 1000
export const DEFAULT_MAX_BYTES = 65_536
export const MIN_MAX_BYTES = 1024
export const MAX_MAX_BYTES = 1_048_576
/** A matching line longer than this is cut (and says so). */
export const MAX_LINE_CHARS = 500
/** How long matching may take in all; panes not reached by then are counted, not searched. */
export const SEARCH_TIME_BOX_MS = 2000
/** Lines per matcher run: small enough that a long history does not look like a runaway regex. */
const BATCH_LINES = 2000
/** Room kept in max_bytes for the totals around the panes. */
const ENVELOPE_BYTES = 512

/**
 * One matching line, with the line number capture_pane would read it at. What would repeat on every
 * match is left out where it says nothing: `text_truncated` is there only when the line was cut,
 * `pattern` only when the search had several patterns.
 */
export const SearchMatch = Schema.Struct({
  line: Int.annotate({
    description:
      "capture_pane's line number when searched: 0 is the top visible line, negative numbers are history. Pass it as capture_pane start/end to read around the match (it shifts as the pane prints more)."
  }),
  text: Schema.String.annotate({ description: `The line, trailing spaces dropped, cut at ${MAX_LINE_CHARS} characters.` }),
  text_truncated: Schema.optionalKey(Schema.Literal(true)).annotate({
    description: "Present when the line was cut."
  }),
  pattern: Schema.optionalKey(NonNegativeInt).annotate({
    description: "With several patterns: the index of the first that matched the line."
  })
})
export type SearchMatch = typeof SearchMatch.Type

/** One pane's matching lines, with the pane fields asked for (`pane_id` always) and what was left out. */
export const PaneMatches = Schema.Struct({
  ...projected(PaneDetail, PANE_KEY).fields,
  match_count: NonNegativeInt.annotate({ description: "Lines of the searched range that matched." }),
  matches: Schema.Array(SearchMatch).annotate({ description: "The first matching lines, oldest first." }),
  matches_truncated: Schema.Boolean.annotate({
    description: "match_count exceeds the matches returned (max_matches_per_pane or max_bytes)."
  })
})
export type PaneMatches = typeof PaneMatches.Type

/** A page of panes with matches, and counts of what was searched and left out. */
export const SearchResult = Schema.Struct({
  panes: Schema.Array(PaneMatches).annotate({ description: "Panes of this page with at least one match, in pane-id order." }),
  panes_total: NonNegativeInt.annotate({ description: "Panes in the scope, before paging." }),
  offset: NonNegativeInt,
  max_panes: NonNegativeInt,
  next_offset: Schema.NullOr(NonNegativeInt).annotate({
    description: "Pass as offset to search the next panes; null when this page was the last."
  }),
  history_lines: NonNegativeInt.annotate({
    description: "Lines of history searched above each visible screen (fewer where a pane has less)."
  }),
  panes_searched: NonNegativeInt,
  panes_with_matches: NonNegativeInt,
  panes_omitted: NonNegativeInt.annotate({ description: "Panes with matches left out of panes because max_bytes was reached." }),
  panes_not_searched: NonNegativeInt.annotate({ description: "Panes of this page not searched because the time box ran out." }),
  panes_closed: NonNegativeInt.annotate({ description: "Panes of this page that closed before they could be read." }),
  total_matches: NonNegativeInt.annotate({ description: "Matching lines in all searched panes, returned or not." }),
  matches_returned: NonNegativeInt,
  bytes_exhausted: Schema.Boolean.annotate({
    description: "max_bytes was reached: later matches and panes are counted but not returned."
  }),
  time_exhausted: Schema.Boolean.annotate({
    description: `Matching took longer than ${SEARCH_TIME_BOX_MS} ms in all; the rest of the page is counted in panes_not_searched.`
  }),
  truncated: Schema.Boolean.annotate({
    description: "Something was left out: more panes after this page, matches beyond a cap, or panes not searched."
  })
})
export type SearchResult = typeof SearchResult.Type

/** Where to search, for what, how far back, and the bounds of the answer. */
export interface SearchOptions {
  readonly scope: TreeScope
  /** The fields of each pane with matches (`pane_id` always): they are all that is listed of the scope. */
  readonly fields: ReadonlyArray<PaneField>
  readonly patterns: PatternSpec
  readonly historyLines: number
  readonly offset: number
  readonly maxPanes: number
  readonly maxMatchesPerPane: number
  readonly maxBytes: number
}

/** Printed before each capture: which pane, and what the capture spans. */
const captureHeader = Format.record("cap", {
  pane_id: Format.string("pane_id"),
  history_size: Format.int("history_size"),
  height: Format.int("pane_height")
})

export interface PaneText {
  readonly pane_id: string
  readonly height: number
  /** Every captured row, oldest first; the last `height` rows are the visible screen. */
  readonly rows: ReadonlyArray<string>
}

/** Per pane, its header and its capture: a unit that stays in one invocation. */
const captureUnits = (paneIds: ReadonlyArray<string>, historyLines: number, marks: Format.Marks): Array<Array<TmuxCommand>> =>
  paneIds.map((paneId) => [
    ["display-message", "-p", "-t", paneId, captureHeader.format(marks)],
    ["capture-pane", "-p", "-t", paneId, "-S", String(-historyLines)]
  ])

const unreadable = (detail: string) => new Failed({ command: "capture-pane", reason: "unparseable", exitCode: null, stderr: detail })

/** Splits the capture list's output at the headers; each header's own line ends before the pane text. */
const parseCaptures = (
  output: string,
  marks: Format.Marks,
  paneIds: ReadonlyArray<string>,
  historyLines: number
): Effect.Effect<Array<PaneText>, Failed> =>
  Effect.gen(function*() {
    const texts: Array<PaneText> = []
    for (const chunk of Format.withRawMarks(output, marks).split(marks.record).slice(1)) {
      const newline = chunk.indexOf("\n")
      const header = newline === -1 ? chunk : chunk.slice(0, newline)
      const body = newline === -1 ? "" : chunk.slice(newline + 1)
      const [row] = yield* Effect.fromResult(captureHeader.decodeAll(Format.parseOutput(marks.record + header, marks)))
      if (row === undefined) return yield* unreadable("a capture without its header")
      const rows = body === "" ? [] : body.replace(/\n$/, "").split("\n").map((text) => stripControls(text))
      // Line numbers count back from the screen; a capture of another length would shift them all.
      const expected = Math.min(historyLines, row.history_size) + row.height
      if (rows.length !== expected) {
        return yield* unreadable(`${row.pane_id}: ${rows.length} rows captured, expected ${expected}`)
      }
      texts.push({ pane_id: row.pane_id, height: row.height, rows })
    }
    // display-message falls back to another pane when its target is gone; capture-pane would have failed.
    const wrong = paneIds.findIndex((paneId, i) => texts[i]?.pane_id !== paneId)
    if (texts.length !== paneIds.length || wrong !== -1) {
      const at = wrong === -1 ? paneIds.length : wrong
      return yield* unreadable(
        `expected captures of ${paneIds.length} panes, got ${texts.length}; capture ${at + 1} is not of ${paneIds[at] ?? "any pane"}`
      )
    }
    return texts
  })

/**
 * Captures the panes in one command list (or as few as fit). tmux stops a list at a pane that
 * closed since the listing; that pane is dropped and the rest captured again, so every retry has
 * fewer panes and the loop ends.
 */
export const capturePanes = (
  socket: ResolvedSocket,
  paneIds: ReadonlyArray<string>,
  historyLines: number
): Effect.Effect<{ readonly texts: Array<PaneText>; readonly closed: number }, TmuxError, Tmux> =>
  Effect.gen(function*() {
    let remaining = paneIds
    while (remaining.length > 0) {
      const marks = Format.newMarks()
      const attempt = yield* Effect.result(
        runInBatches(socket, captureUnits(remaining, historyLines, marks)).pipe(
          noCurrentTargetIsNotFound(socket, { kind: "pane", id: remaining[0]! })
        )
      )
      if (Result.isSuccess(attempt)) {
        return { texts: yield* parseCaptures(attempt.success, marks, remaining, historyLines), closed: paneIds.length - remaining.length }
      }
      const error = attempt.failure
      if (error._tag !== "NotFound" || error.kind !== "pane" || !remaining.includes(error.target)) return yield* Effect.fail(error)
      remaining = remaining.filter((id) => id !== error.target)
    }
    return { texts: [], closed: paneIds.length }
  })

/** Cuts at `max` UTF-16 units without splitting a surrogate pair. */
const cut = (text: string, max: number): string => {
  if (text.length <= max) return text
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]!) ? max - 1 : max
  return text.slice(0, end)
}

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), "utf8")

interface PaneFound {
  readonly pane: Projected<PaneDetail>
  readonly match_count: number
  readonly matches: ReadonlyArray<SearchMatch>
}

/** Lays out what was found in pane order until max_bytes is spent; the rest is counted. */
const fillBudget = (found: ReadonlyArray<PaneFound>, maxBytes: number) => {
  let used = ENVELOPE_BYTES
  let exhausted = false
  let omitted = 0
  const panes: Array<PaneMatches> = []
  for (const { pane, match_count, matches } of found) {
    const entry: PaneMatches = {
      ...pane,
      match_count,
      matches: [],
      matches_truncated: true
    }
    const headerBytes = jsonBytes(entry) + 1
    if (exhausted || used + headerBytes > maxBytes) {
      exhausted = true
      omitted++
      continue
    }
    used += headerBytes
    const kept: Array<SearchMatch> = []
    for (const match of matches) {
      const bytes = jsonBytes(match) + 1
      if (used + bytes > maxBytes) {
        exhausted = true
        break
      }
      used += bytes
      kept.push(match)
    }
    panes.push({ ...entry, matches: kept, matches_truncated: kept.length < match_count })
  }
  return { panes, omitted, exhausted }
}

/**
 * Searches the screens and recent history of the scope's panes for patterns (matched in this
 * process, never by tmux), paged over panes, bounded in matches, bytes and time.
 */
export const searchPanes = Effect.fn("Search.searchPanes")((
  socket: ResolvedSocket,
  options: SearchOptions
): Effect.Effect<SearchResult, TmuxError | InvalidInput, Tmux | InvocationContext> =>
  Effect.gen(function*() {
    // Compiled first: a bad pattern costs no tmux call.
    const matcher = yield* compileMatcher(options.patterns)
    const { items } = yield* listPaneFields(socket, options.scope, options.fields)
    const page = paginate(items, { offset: options.offset, limit: options.maxPanes })
    const { texts, closed } = yield* capturePanes(
      socket,
      page.items.map((pane) => pane.pane_id!),
      options.historyLines
    )

    const started = yield* Clock.currentTimeMillis
    let timeExhausted = false
    let notSearched = 0
    const found: Array<PaneFound> = []
    let totalMatches = 0
    for (const text of texts) {
      const pane = page.items.find((p) => p.pane_id === text.pane_id)!
      // The last `height` rows are the screen, rows 0..height-1; the rest is history above it.
      const firstLine = -(text.rows.length - text.height)
      const lines = text.rows.map((row) => row.trimEnd())
      const hits: Array<{ readonly line: number; readonly pattern: number }> = []
      for (let start = 0; start < lines.length && !timeExhausted; start += BATCH_LINES) {
        if ((yield* Clock.currentTimeMillis) - started > SEARCH_TIME_BOX_MS) {
          timeExhausted = true
          break
        }
        for (const hit of yield* matcher.matchLines(lines.slice(start, start + BATCH_LINES))) {
          hits.push({ line: start + hit.line, pattern: hit.pattern })
        }
      }
      if (timeExhausted) {
        notSearched++
        continue
      }
      totalMatches += hits.length
      if (hits.length === 0) continue
      found.push({
        pane,
        match_count: hits.length,
        matches: hits.slice(0, options.maxMatchesPerPane).map(({ line, pattern }) => {
          const full = lines[line]!
          const text = cut(full, MAX_LINE_CHARS)
          return {
            line: firstLine + line,
            text,
            ...(text.length < full.length ? { text_truncated: true as const } : {}),
            ...(options.patterns.patterns.length > 1 ? { pattern } : {})
          }
        })
      })
    }

    const { panes, omitted, exhausted } = fillBudget(found, options.maxBytes)
    const matchesReturned = panes.reduce((sum, pane) => sum + pane.matches.length, 0)
    const nextOffset = page.truncated ? options.offset + page.items.length : null
    return {
      panes,
      panes_total: page.total,
      offset: options.offset,
      max_panes: options.maxPanes,
      next_offset: nextOffset,
      history_lines: options.historyLines,
      panes_searched: texts.length - notSearched,
      panes_with_matches: found.length,
      panes_omitted: omitted,
      panes_not_searched: notSearched,
      panes_closed: closed,
      total_matches: totalMatches,
      matches_returned: matchesReturned,
      bytes_exhausted: exhausted,
      time_exhausted: timeExhausted,
      truncated: nextOffset !== null || matchesReturned < totalMatches || notSearched > 0 || omitted > 0
    }
  })
)
