/**
 * The lines of a long output that a reader is looking for (a test run's failures among thousands of
 * passes), found as the output is read, so a command printing millions of lines costs memory for
 * the kept matches only. Each match carries its 1-based line number in the output and up to
 * `context` lines before and after it; no line is shown twice, so the context of matches close
 * together merges. Matches past `max_matches` (or past the byte budget) are counted, not kept.
 *
 * Matching runs in batches, each with the regex time box of the other matchers; a runaway
 * expression, or matching that takes longer in all than MATCH_TIME_CAP_MS in one pass over the
 * output, stops the search, and the result says from which line on nothing was searched
 * (`match_missed`). So does a part of the output that was never read.
 */
import * as Schema from "effect/Schema"
import { Int, NonNegativeInt } from "../../domain/Model.js"
import { type Bounded, cutToBytes, HeadTail, type LineSink, MAX_LINE_BYTES } from "./OutputBudget.js"
import { type Matcher, type PatternSpec, REGEX_TIME_BOX_MS } from "./TextMatcher.js"

export const DEFAULT_MAX_MATCHES = 50
export const MAX_MATCHES = 500
export const MAX_MATCH_CONTEXT = 5
/** The most lines a tail-only output keeps (run_command's tail_lines). */
export const MAX_TAIL_LINES = 10_000
/** Lines of output returned with matches when the caller names no tail_lines. */
export const DEFAULT_MATCH_TAIL_LINES = 10
/** Lines matched in one batch (one time-boxed run: a sane pattern takes well under a millisecond for them). */
const BATCH_LINES = 4096
/** Characters held for one batch at most: lines may be 64 KiB each. */
const BATCH_CHARS = 1024 * 1024
/** Matching one pass over the output may take this long in all; past it the rest is not searched. */
export const MATCH_TIME_CAP_MS = 5000

/** What to look for in a command's output. */
export interface MatchSpec extends PatternSpec {
  /** Lines shown before and after each match (0 to MAX_MATCH_CONTEXT). */
  readonly context?: number | undefined
  /** Matches kept (1 to MAX_MATCHES); all are counted. */
  readonly maxMatches?: number | undefined
}

/** One matching line of a command's output, with the context lines kept around it. */
export const OutputMatch = Schema.Struct({
  line: Int.pipe(Schema.check(Schema.isGreaterThan(0))).annotate({ description: "Its 1-based line number in the command's output." }),
  text: Schema.String,
  before: Schema.optional(Schema.Array(Schema.String)),
  after: Schema.optional(Schema.Array(Schema.String))
})
export type OutputMatch = typeof OutputMatch.Type

export const MatchFields = {
  matches: Schema.optional(Schema.Array(OutputMatch)).annotate({
    description: "With match: the matching lines in order, context lines before and after (each line shown once)."
  }),
  match_count: Schema.optional(NonNegativeInt).annotate({ description: "All matching lines, also those not kept." }),
  match_missed: Schema.optional(Schema.String).annotate({
    description: "Present when part of the output was not searched, and why: matches there are missing."
  })
}

export interface MatchReport {
  readonly matches: ReadonlyArray<OutputMatch>
  readonly match_count: number
  readonly match_missed?: string
}

/** How a matching line (or a context line) is kept: cut at MAX_LINE_BYTES, the cut said in the text. */
const keptLine = (text: string): string => {
  const kept = cutToBytes(text, MAX_LINE_BYTES)
  return kept === text ? text : `${kept}[… ${Buffer.byteLength(text, "utf8") - Buffer.byteLength(kept, "utf8")} bytes cut …]`
}

const byteSize = (text: string) => Buffer.byteLength(text, "utf8") + 1

/**
 * What one call matches with. A read of the pane's history starts a new pass at every poll; a
 * pattern found runaway in one pass is not run again in the next (each run would block the event
 * loop for the whole time box).
 */
export interface MatchSession {
  readonly matcher: Matcher
  readonly context: number
  readonly maxMatches: number
  /** How many bytes of matches and context are kept at most. */
  readonly maxBytes: number
  /** The text patterns see for a kept line (without terminal escapes). */
  readonly plain: (line: string) => string
  runaway: boolean
}

interface Pending {
  readonly number: number
  readonly text: string
}

/** Collects the matches of one pass over the output, lines numbered from `firstLine`. */
export class LineMatches {
  private readonly kept: Array<{ line: number; text: string; before?: Array<string>; after?: Array<string> }> = []
  private count = 0
  private bytes = 0
  private next: number
  private batch: Array<Pending> = []
  private batchChars = 0
  /** The lines just before the batch's next one (as many as the context), for a match's before. */
  private recent: Array<Pending> = []
  /** The last line shown (a match, or context): the next match's before starts after it. */
  private lastShown = 0
  /** The match whose after is still taking lines, and how many more. */
  private open: { after: Array<string>; left: number } | undefined
  private unread = 0
  private unknownGapAfter: number | undefined
  /** Once a match did not fit the byte budget, no later one is kept either (matches stay a prefix). */
  private full = false
  private spentMs = 0
  /** The line from which on this pass matched nothing, and why (the regex ran over, or the time cap). */
  private stopped: { readonly line: number; readonly reason: "runaway" | "time" } | undefined

  constructor(private readonly session: MatchSession, firstLine: number) {
    this.next = firstLine
  }

  push(line: string): void {
    this.batch.push({ number: this.next++, text: line })
    this.batchChars += line.length
    if (this.batch.length >= BATCH_LINES || this.batchChars >= BATCH_CHARS) this.flush()
  }

  /** `lines` lines were never read (null: an unknown number): nothing of them is searched. */
  elide(lines: number | null): void {
    this.flush()
    this.recent = []
    this.open = undefined
    if (lines === null) this.unknownGapAfter ??= this.next - 1
    else {
      this.unread += lines
      this.next += lines
    }
  }

  report(): MatchReport {
    this.flush()
    const missed = this.missed()
    // Context a match did not get (the first line, a match right after another) is left out, not shown empty.
    const matches = this.kept.map(({ after, before, ...match }) => ({
      ...match,
      ...(before !== undefined && before.length > 0 ? { before } : {}),
      ...(after !== undefined && after.length > 0 ? { after } : {})
    }))
    return { matches, match_count: this.count, ...(missed === undefined ? {} : { match_missed: missed }) }
  }

  private missed(): string | undefined {
    const notes: Array<string> = []
    const stopped = this.stopped
    if (stopped !== undefined) {
      notes.push(
        stopped.reason === "runaway"
          ? `a regular expression ran longer than ${REGEX_TIME_BOX_MS} ms (catastrophic backtracking?): lines from ${stopped.line} on were not searched; simplify it or use literal patterns`
          : `matching took over ${
            MATCH_TIME_CAP_MS / 1000
          } s: lines from ${stopped.line} on were not searched; use fewer or simpler patterns`
      )
    }
    if (this.unread > 0) notes.push(`${this.unread} lines in the middle of the output were never read (too long to fetch)`)
    if (this.unknownGapAfter !== undefined) {
      notes.push(`a part of the output after line ${this.unknownGapAfter} was never read; line numbers after it count without it`)
    }
    return notes.length === 0 ? undefined : notes.join("; ")
  }

  private flush(): void {
    const batch = this.batch
    if (batch.length === 0) return
    this.batch = []
    this.batchChars = 0
    const session = this.session
    let matched: ReadonlySet<number> = new Set()
    if (this.stopped === undefined && session.runaway) this.stopped = { line: batch[0]!.number, reason: "runaway" }
    if (this.stopped === undefined) {
      const started = performance.now()
      const found = session.matcher.matchBatch(batch.map((line) => session.plain(line.text)), REGEX_TIME_BOX_MS)
      this.spentMs += performance.now() - started
      if (found === "ran_over") {
        session.runaway = true
        this.stopped = { line: batch[0]!.number, reason: "runaway" }
      } else matched = new Set(found.map((match) => match.line))
      if (this.stopped === undefined && this.spentMs > MATCH_TIME_CAP_MS) {
        this.stopped = { line: batch[batch.length - 1]!.number + 1, reason: "time" }
      }
    }
    batch.forEach((line, index) => this.take(line, matched.has(index)))
  }

  private take(line: Pending, isMatch: boolean): void {
    const { context, maxBytes, maxMatches } = this.session
    if (isMatch) {
      this.count++
      const before = this.recent.filter((earlier) => earlier.number > this.lastShown).map((earlier) => keptLine(earlier.text))
      const text = keptLine(line.text)
      const size = [text, ...before].reduce((sum, kept) => sum + byteSize(kept), 0)
      this.full ||= this.kept.length >= maxMatches || this.bytes + size > maxBytes
      if (!this.full) {
        const after: Array<string> = []
        this.kept.push({ line: line.number, text, ...(context > 0 ? { before, after } : {}) })
        this.bytes += size
        this.lastShown = line.number
        this.open = context > 0 ? { after, left: context } : undefined
      } else this.open = undefined
    } else if (this.open !== undefined) {
      const text = keptLine(line.text)
      if (this.bytes + byteSize(text) <= maxBytes) {
        this.open.after.push(text)
        this.bytes += byteSize(text)
        this.lastShown = line.number
        if (--this.open.left === 0) this.open = undefined
      } else this.open = undefined
    }
    if (context > 0) {
      this.recent.push(line)
      if (this.recent.length > context) this.recent.shift()
    }
  }
}

/** A command's output read for matches: the matches, and the last lines as the output. */
export class MatchedOutput implements LineSink {
  readonly tail: HeadTail
  readonly matches: LineMatches

  constructor(session: MatchSession, firstLine: number, tailLines: number, maxBytes: number) {
    this.tail = new HeadTail(tailLines, maxBytes, true)
    this.matches = new LineMatches(session, firstLine)
  }

  push(line: string): void {
    this.tail.push(line)
    this.matches.push(line)
  }

  elide(lines: number | null): void {
    this.tail.elide(lines)
    this.matches.elide(lines)
  }

  result(): Bounded {
    return this.tail.result()
  }
}
