/**
 * Bounding long output the way a reader wants it: the first lines and the last lines, with the
 * count of lines elided between them. Lines arrive one at a time, so a command printing millions of
 * lines costs memory for the kept lines only.
 */
import * as Schema from "effect/Schema"
import { NonNegativeInt } from "../../domain/Model.js"

export const DEFAULT_MAX_LINES = 200
export const DEFAULT_MAX_BYTES = 65_536
/** A single line longer than this is cut (the cut is counted in `cut_lines`). */
export const MAX_LINE_BYTES = 4096

export const BudgetFields = {
  lines_total: NonNegativeInt.annotate({ description: "Lines the output had in all." }),
  elided_lines: NonNegativeInt.annotate({ description: "Lines left out between the head and the tail." }),
  elided_after_line: Schema.NullOr(NonNegativeInt).annotate({
    description: "How many head lines come before the elided part (null when nothing was elided)."
  }),
  truncated: Schema.Boolean.annotate({ description: "Some output was left out or cut (see elided_lines, cut_lines)." }),
  cut_lines: NonNegativeInt.annotate({ description: `Lines cut at ${MAX_LINE_BYTES} bytes.` })
}

export interface Bounded {
  readonly lines: ReadonlyArray<string>
  readonly lines_total: number
  readonly elided_lines: number
  readonly elided_after_line: number | null
  readonly truncated: boolean
  readonly cut_lines: number
}

/** `line` within `limit` UTF-8 bytes, cut at a character boundary. */
export const cutToBytes = (line: string, limit: number): string => {
  if (Buffer.byteLength(line, "utf8") <= limit) return line
  // Cut at a character boundary.
  return Buffer.from(line, "utf8").subarray(0, limit).toString("utf8").replace(/\uFFFD$/, "")
}

/** Where output lines go as they are read: kept within a budget, and counted. */
export interface LineSink {
  push(line: string): void
  /** `lines` lines were never read (null: how many is not known); they come after every line pushed so far. */
  elide(lines: number | null): void
  result(): Bounded
}

/** Keeps the first and the last lines within the budget (or the last only: `tailOnly`). */
export class HeadTail implements LineSink {
  private readonly head: Array<string> = []
  private tail: Array<string> = []
  private tailStart = 0
  private headBytes = 0
  private tailBytes = 0
  private headFull = false
  private total = 0
  private cutCount = 0
  private readonly headLines: number
  private readonly tailLines: number
  private readonly headByteLimit: number
  private readonly tailByteLimit: number

  constructor(maxLines = DEFAULT_MAX_LINES, maxBytes = DEFAULT_MAX_BYTES, tailOnly = false) {
    this.headLines = tailOnly ? 0 : Math.floor(maxLines / 2)
    this.tailLines = maxLines - this.headLines
    this.headByteLimit = tailOnly ? 0 : Math.floor(maxBytes / 2)
    this.tailByteLimit = maxBytes - this.headByteLimit
  }

  push(raw: string): void {
    this.total++
    const line = cutToBytes(raw, Math.min(MAX_LINE_BYTES, this.tailByteLimit - 1))
    if (line !== raw) this.cutCount++
    const bytes = Buffer.byteLength(line, "utf8") + 1
    if (!this.headFull && this.head.length < this.headLines && this.headBytes + bytes <= this.headByteLimit) {
      this.head.push(line)
      this.headBytes += bytes
      return
    }
    this.headFull = true
    this.tail.push(line)
    this.tailBytes += bytes
    while (this.tail.length - this.tailStart > this.tailLines || this.tailBytes > this.tailByteLimit) {
      this.tailBytes -= Buffer.byteLength(this.tail[this.tailStart]!, "utf8") + 1
      this.tailStart++
    }
    // Compact now and then so dropped lines do not pile up.
    if (this.tailStart > 1024 && this.tailStart * 2 > this.tail.length) {
      this.tail = this.tail.slice(this.tailStart)
      this.tailStart = 0
    }
  }

  /**
   * Counts `lines` that were never read (the middle of an output too long to fetch) as elided: they
   * come after every line kept so far, so the lines now in the tail are elided with them.
   */
  elide(lines: number | null): void {
    if (lines === null || lines <= 0) return
    this.headFull = true
    this.total += lines
    this.tail = []
    this.tailStart = 0
    this.tailBytes = 0
  }

  result(): Bounded {
    const tail = this.tail.slice(this.tailStart)
    const elided = this.total - this.head.length - tail.length
    return {
      lines: [...this.head, ...tail],
      lines_total: this.total,
      elided_lines: elided,
      elided_after_line: elided > 0 ? this.head.length : null,
      truncated: elided > 0 || this.cutCount > 0,
      cut_lines: this.cutCount
    }
  }
}

/** The kept lines as one text, with a visible note where lines were elided. */
export const joinBounded = (bounded: Bounded): string => {
  if (bounded.elided_after_line === null) return bounded.lines.join("\n")
  const head = bounded.lines.slice(0, bounded.elided_after_line)
  const tail = bounded.lines.slice(bounded.elided_after_line)
  return [...head, `[… ${bounded.elided_lines} lines elided …]`, ...tail].join("\n")
}
