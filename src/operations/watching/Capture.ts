/**
 * Reading what a pane shows, bounded: the newest lines are kept when the range is too long.
 */
import * as Effect from "effect/Effect"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { stripControls, withoutCaptureEscapes } from "../../domain/ControlText.js"
import type { TmuxError } from "../../domain/Errors.js"
import type { Capture } from "../../domain/Model.js"
import { runTree } from "../../tmux/Query.js"
import type { Tmux } from "../../tmux/Tmux.js"

/** A tmux capture line: 0 is the first visible line, negative numbers reach into history, "-" is the far end. */
export type CaptureLine = number | "-"

/** Which lines `capturePane` reads and how many it keeps. */
export interface CaptureOptions {
  /** First line; default: the top of the visible screen. */
  readonly start?: CaptureLine | undefined
  /** Last line; default: the bottom of the visible screen. */
  readonly end?: CaptureLine | undefined
  /** Keep at most this many lines, the newest ones. */
  readonly maxLines: number
  /** Join lines that tmux wrapped because they were wider than the pane. */
  readonly joinWrapped: boolean
  /** Keep colours and attributes as escape sequences (capture-pane -e). Default false. */
  readonly escapes?: boolean | undefined
}

export const DEFAULT_CAPTURE_MAX_LINES = 500

/**
/**
 * Captured rows as capture_pane returns them. -J keeps trailing spaces; they carry no meaning for a
 * reader, and blank rows below the last output are screen, not content (a row of colour sequences
 * alone is blank too).
 */
export const contentLines = (rows: ReadonlyArray<string>): Array<string> => {
  const lines = rows.map((row) => row.trimEnd())
  while (lines.length > 0 && withoutCaptureEscapes(lines[lines.length - 1]!).trim() === "") lines.pop()
  return lines
}

/**
 * The text a pane shows, or a history range of it, control characters stripped (but the ESC of
 * colour sequences with `escapes`); the newest
 * `maxLines` lines are kept and the rest counted.
 */
export const capturePane = Effect.fn("Capture.capturePane")((
  socket: ResolvedSocket,
  paneId: string,
  options: CaptureOptions
): Effect.Effect<Capture, TmuxError, Tmux> =>
  Effect.gen(function*() {
    const command = ["capture-pane", "-p", "-t", paneId]
    if (options.start !== undefined) command.push("-S", String(options.start))
    if (options.end !== undefined) command.push("-E", String(options.end))
    if (options.joinWrapped) command.push("-J")
    if (options.escapes === true) command.push("-e")
    const output = yield* runTree(socket, [command], { kind: "pane", id: paneId })
    // Lines are kept or dropped whole, so no escape sequence is ever cut.
    const lines = contentLines(output.split("\n").map((line) => stripControls(line, options.escapes)))
    const kept = lines.length > options.maxLines ? lines.slice(lines.length - options.maxLines) : lines
    return {
      pane_id: paneId,
      content: kept.join("\n"),
      lines_total: lines.length,
      lines_returned: kept.length,
      truncated: kept.length < lines.length,
      truncated_lines: lines.length - kept.length
    }
  })
)
