/**
 * A pane's state and screen rows read together: one `display-message` record and one
 * `capture-pane`, in one command list, so both describe the same instant (tmux runs a command list
 * without taking in pane output between its commands). snapshot_pane shows it as it is;
 * capture_since and wait_for_text read rows from it by absolute position.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { DisplayText, stripControls, withoutCaptureEscapes } from "../../domain/ControlText.js"
import { Failed, type TmuxError } from "../../domain/Errors.js"
import { PaneId } from "../../domain/Ids.js"
import { Generation, generationOf, NonNegativeInt } from "../../domain/Model.js"
import * as Format from "../../tmux/Format.js"
import { runTree } from "../../tmux/Query.js"
import type { Tmux, TmuxCommand } from "../../tmux/Tmux.js"

const paneViewFields = {
  server_pid: Format.int("pid"),
  server_start_time: Format.int("start_time"),
  socket_path: Format.string("socket_path"),
  pane_id: Format.string("pane_id"),
  pane_pid: Format.nullableInt("pane_pid"),
  pane_dead: Format.bool("pane_dead"),
  pane_in_mode: Format.bool("pane_in_mode"),
  pane_mode: Format.string("pane_mode"),
  scroll_position: Format.nullableInt("scroll_position"),
  alternate_on: Format.bool("alternate_on"),
  cursor_x: Format.int("cursor_x"),
  cursor_y: Format.int("cursor_y"),
  width: Format.int("pane_width"),
  height: Format.int("pane_height"),
  history_size: Format.int("history_size"),
  history_limit: Format.int("history_limit"),
  pane_current_command: Format.string("pane_current_command"),
  pane_current_path: Format.string("pane_current_path"),
  title: Format.string("pane_title")
}
const paneViewRecord = Format.record("pvw", paneViewFields)

export type PaneState = Format.Decoded<typeof paneViewFields> & {
  /** The answering server instance (see `generationOf`). */
  readonly generation: string
}

/** Where a capture starts: a `-S` line (0 = top screen row, negative = history) or "-" for the oldest row. */
export type CaptureStart = number | "-"

/** Rows read on their own, from absolute row `firstRow` on. */
export interface RowWindow {
  readonly firstRow: number
  readonly rows: ReadonlyArray<string>
}

/**
 * A pane's state and the rows from `firstRow` to the bottom of its screen. Rows are numbered
 * absolutely: row 0 is the oldest history row, the cursor is on row `history_size + cursor_y`.
 * `windows` are further rows read in the same command list, when asked for (see `readPaneView`).
 */
export interface PaneView extends RowWindow {
  readonly state: PaneState
  readonly windows?: ReadonlyArray<RowWindow>
}

/** A `capture-pane -S start -E end` of its own, in screen-relative lines (0 = top screen row, negative = history). */
export interface WindowRequest {
  readonly start: number
  readonly end: number
}

/** The absolute row of the bottom screen row. */
export const lastRow = (state: PaneState): number => state.history_size + state.height - 1

/** The row a `capture-pane -S`/`-E` line names, clamped as tmux 3.3a clamps it (cmd-capture-pane.c). */
const rowOfLine = (state: PaneState, line: CaptureStart): number => {
  if (line === "-" || (line < 0 && -line > state.history_size)) return 0
  return Math.min(state.history_size + line, lastRow(state))
}

/** The rows a window request covers now (tmux swaps an end above the start). */
const windowRowsOf = (state: PaneState, request: WindowRequest): readonly [number, number] => {
  const [top, bottom] = [rowOfLine(state, request.start), rowOfLine(state, request.end)]
  return top <= bottom ? [top, bottom] : [bottom, top]
}

const unreadable = (detail: string) =>
  new Failed({ command: "display-message ; capture-pane", reason: "unparseable", exitCode: null, stderr: detail })

/** Ends the record inside its display-message: the captured text after it can neither extend the record's last field nor pass for a record (the mark is random). */
const textMark = (marks: Format.Marks): string => `${marks.record}txt`

/** Printed before each window's rows, so they cannot run into the rows before them. */
const windowMark = (marks: Format.Marks): string => `${marks.record}win`

/**
 * The command list that prints the pane's state, then its rows from `start` to the bottom of the
 * screen, then each window's rows after a mark of its own.
 */
export const paneViewCommands = (
  paneId: string,
  start: CaptureStart,
  escapes: boolean,
  marks: Format.Marks,
  windows: ReadonlyArray<WindowRequest> = []
): ReadonlyArray<TmuxCommand> => [
  ["display-message", "-p", "-t", paneId, `${paneViewRecord.format(marks)}${textMark(marks)}`],
  ["capture-pane", "-p", "-t", paneId, "-S", String(start), ...(escapes ? ["-e"] : [])],
  ...windows.flatMap((window): ReadonlyArray<TmuxCommand> => [
    ["display-message", "-p", "-t", paneId, windowMark(marks)],
    ["capture-pane", "-p", "-t", paneId, "-S", String(window.start), "-E", String(window.end), ...(escapes ? ["-e"] : [])]
  ])
]

/** Captured text as rows (controls stripped as `escapes` says); `expected` is how many tmux printed for the range asked. */
const capturedRows = (text: string, expected: number, escapes: boolean): Result.Result<Array<string>, Failed> => {
  const rows = (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n").map((line) => stripControls(line, escapes).trimEnd())
  return rows.length === expected ? Result.succeed(rows) : Result.fail(unreadable(`expected ${expected} captured rows, got ${rows.length}`))
}

/** Reads what `paneViewCommands` printed (with the same `escapes` and windows). */
export const parsePaneView = (
  printed: string,
  marks: Format.Marks,
  start: CaptureStart,
  escapes = false,
  windows: ReadonlyArray<WindowRequest> = []
): Result.Result<PaneView, Failed> =>
  Result.gen(function*() {
    const raw = Format.withRawMarks(printed, marks)
    const mark = `${textMark(marks)}\n`
    const at = raw.indexOf(mark)
    if (at < 0) return yield* Result.fail(unreadable("no pane record before the captured text"))
    const [row] = yield* paneViewRecord.decodeAll(Format.parseOutput(raw.slice(0, at), marks))
    if (row === undefined) return yield* Result.fail(unreadable("no pane record"))
    const state: PaneState = { ...row, generation: generationOf({ pid: row.server_pid, start_time: row.server_start_time }) }
    const [text = "", ...windowTexts] = raw.slice(at + mark.length).split(`${windowMark(marks)}\n`)
    if (windowTexts.length !== windows.length) {
      return yield* Result.fail(unreadable(`expected ${windows.length} row windows, got ${windowTexts.length}`))
    }
    const firstRow = rowOfLine(state, start)
    const rows = yield* capturedRows(text, lastRow(state) - firstRow + 1, escapes)
    if (windows.length === 0) return { state, firstRow, rows }
    const read: Array<RowWindow> = []
    for (const [i, request] of windows.entries()) {
      const [top, bottom] = windowRowsOf(state, request)
      read.push({ firstRow: top, rows: yield* capturedRows(windowTexts[i]!, bottom - top + 1, escapes) })
    }
    return { state, firstRow, rows, windows: read }
  })

/**
 * Reads the pane's state and its rows from `start` to the bottom of the screen in one invocation,
 * and the rows of each window asked for (their lines are relative to the screen's top at that
 * instant, like `start`). `escapes` keeps colours and attributes as escape sequences (capture-pane -e).
 */
export const readPaneView = (
  socket: ResolvedSocket,
  paneId: string,
  start: CaptureStart,
  escapes = false,
  windows: ReadonlyArray<WindowRequest> = []
): Effect.Effect<PaneView, TmuxError, Tmux> => {
  const marks = Format.newMarks()
  return runTree(socket, paneViewCommands(paneId, start, escapes, marks, windows), { kind: "pane", id: paneId }).pipe(
    Effect.flatMap((raw) => Effect.fromResult(parsePaneView(raw, marks, start, escapes, windows)))
  )
}

/** Drops the blank rows at the end (rows of colour sequences only included): screen below the output, not content. */
export const trimTrailingBlank = (rows: ReadonlyArray<string>): Array<string> => {
  let end = rows.length
  while (end > 0 && withoutCaptureEscapes(rows[end - 1]!) === "") end--
  return rows.slice(0, end)
}

/** A pane's visible text with its cursor, modes, scroll position, size, history, process and title. */
export const PaneSnapshot = Schema.Struct({
  pane_id: PaneId,
  content: Schema.String.annotate({
    description: "The visible screen, rows joined by newlines (trailing spaces and the blank rows at the bottom dropped)."
  }),
  cursor_x: NonNegativeInt.annotate({ description: "Cursor column, 0-based, in terminal cells." }),
  cursor_y: NonNegativeInt.annotate({ description: "Cursor row on the visible screen, 0-based." }),
  pane_in_mode: Schema.Boolean.annotate({
    description: "The pane is in copy mode or another tmux mode (the screen shown to people is that mode's view)."
  }),
  pane_mode: Schema.NullOr(Schema.String).annotate({ description: "The mode's name, e.g. \"copy-mode\"; null when in no mode." }),
  scroll_position: Schema.NullOr(NonNegativeInt).annotate({
    description: "How many rows copy mode is scrolled up into history (0 at the bottom); null outside copy mode."
  }),
  alternate_on: Schema.Boolean.annotate({
    description: "A full-screen program (vim, less, htop) uses the alternate screen: no scrollback while it runs."
  }),
  width: NonNegativeInt,
  height: NonNegativeInt,
  history_size: NonNegativeInt.annotate({ description: "Rows in the scrollback history above the screen." }),
  history_limit: NonNegativeInt.annotate({ description: "Most history rows the pane keeps; older rows are dropped." }),
  pane_current_command: DisplayText,
  pane_current_path: DisplayText,
  pane_dead: Schema.Boolean.annotate({ description: "The pane's program exited (the pane stays because of remain-on-exit)." }),
  pane_pid: Schema.NullOr(NonNegativeInt),
  title: DisplayText,
  generation: Generation
})
export type PaneSnapshot = typeof PaneSnapshot.Type

/** What a pane shows and where its cursor and modes are, in one round trip. */
export const snapshotPane = Effect.fn("Snapshot.snapshotPane")((
  socket: ResolvedSocket,
  paneId: string,
  options: { readonly escapes?: boolean | undefined } = {}
): Effect.Effect<PaneSnapshot, TmuxError, Tmux> =>
  Effect.map(readPaneView(socket, paneId, 0, options.escapes === true), ({ rows, state }) => ({
    pane_id: state.pane_id,
    content: trimTrailingBlank(rows).join("\n"),
    cursor_x: state.cursor_x,
    cursor_y: state.cursor_y,
    pane_in_mode: state.pane_in_mode,
    pane_mode: state.pane_mode === "" ? null : state.pane_mode,
    scroll_position: state.scroll_position,
    alternate_on: state.alternate_on,
    width: state.width,
    height: state.height,
    history_size: state.history_size,
    history_limit: state.history_limit,
    pane_current_command: state.pane_current_command,
    pane_current_path: state.pane_current_path,
    pane_dead: state.pane_dead,
    pane_pid: state.pane_pid,
    title: state.title,
    generation: state.generation
  }))
)
