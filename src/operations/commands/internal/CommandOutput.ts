/**
 * What a run_command or wait_for_command result holds of the output: head and tail (max_lines), the
 * tail only (tail_lines), or the lines that match with the tail (match). Checked before anything is
 * typed, so a bad pattern never costs a run.
 */
import * as Effect from "effect/Effect"
import { InvalidInput } from "../../../domain/Errors.js"
import { HeadTail, type LineSink } from "../../bounds/OutputBudget.js"
import {
  DEFAULT_MATCH_TAIL_LINES,
  DEFAULT_MAX_MATCHES,
  MatchedOutput,
  type MatchReport,
  type MatchSession,
  MAX_MATCH_CONTEXT,
  MAX_MATCHES,
  MAX_TAIL_LINES
} from "../../bounds/OutputMatches.js"
import { compileMatcher } from "../../bounds/TextMatcher.js"
import type { OutputOptions } from "../RunCommand.js"
import type { FramedOutput } from "./CommandFraming.js"
import { plainLine } from "./TerminalText.js"

/** One call's output shaping: a fresh sink per pass over the output, its lines numbered from `firstLine`. */
export interface OutputShape {
  readonly sink: (firstLine: number) => () => LineSink
  /** The same bounds without matching: for what the pane showed instead of a command that did not start. */
  readonly unmatched: () => LineSink
  /** Set when the output is searched. */
  readonly matching: boolean
}

const invalid = (reason: string) => Effect.fail(new InvalidInput({ reason }))

const inRange = (value: number | undefined, least: number, most: number) =>
  value === undefined || (Number.isInteger(value) && value >= least && value <= most)

/** Checks the options (compiling match's patterns) and says how the output is to be kept. */
export const outputShape = (options: OutputOptions): Effect.Effect<OutputShape, InvalidInput> =>
  Effect.gen(function*() {
    const { match, maxBytes, maxLines, tailLines } = options
    if (!inRange(tailLines, 0, MAX_TAIL_LINES)) return yield* invalid(`tail_lines must be an integer from 0 to ${MAX_TAIL_LINES}.`)
    if (match === undefined && tailLines === undefined) {
      const headTail = () => new HeadTail(maxLines, maxBytes)
      return { sink: () => headTail, unmatched: headTail, matching: false }
    }
    const tail = tailLines ?? DEFAULT_MATCH_TAIL_LINES
    const tailOnly = () => new HeadTail(tail, maxBytes, true)
    if (match === undefined) return { sink: () => tailOnly, unmatched: tailOnly, matching: false }
    if (!inRange(match.context, 0, MAX_MATCH_CONTEXT)) {
      return yield* invalid(`match.context must be an integer from 0 to ${MAX_MATCH_CONTEXT} (lines before and after each match).`)
    }
    if (!inRange(match.maxMatches, 1, MAX_MATCHES)) return yield* invalid(`match.max_matches must be an integer from 1 to ${MAX_MATCHES}.`)
    const matcher = yield* compileMatcher(match, { argument: "match.patterns", subject: "the command's output" })
    const session: MatchSession = {
      matcher,
      context: match.context ?? 0,
      maxMatches: match.maxMatches ?? DEFAULT_MAX_MATCHES,
      maxBytes,
      plain: options.keepEscapes ? plainLine : (line) => line,
      runaway: false
    }
    return { sink: (firstLine) => () => new MatchedOutput(session, firstLine, tail, maxBytes), unmatched: tailOnly, matching: true }
  })

/** The matches a pass found, when it looked for any. */
export const matchReportOf = (sink: LineSink): MatchReport | undefined => sink instanceof MatchedOutput ? sink.matches.report() : undefined

/**
 * What of the output a search could not see: a start lost from the pane's history, the middles of
 * lines too long to keep whole, and the middle of a host's log that was never fetched.
 */
export const unreadNotes = (framed: FramedOutput): ReadonlyArray<string> => {
  const { bytes, lines } = framed.unfetched
  return [
    ...(framed.startLost
      ? ["the output's first lines scrolled out of the pane's history before they were read; line numbers count from the first line kept"]
      : []),
    ...(framed.longLinesCut > 0 ? [`the middles of ${framed.longLinesCut} lines over 64 KiB were not read`] : []),
    ...(bytes > 0 ? [`${bytes} bytes of the output's middle${lines === null ? "" : ` (${lines} lines)`} stayed on the host unread`] : [])
  ]
}
