/**
 * Reading only what is new in a pane since an earlier look, through an opaque cursor.
 *
 * A cursor marks where the pane's cursor was: its absolute row (`history_size + cursor_y`, stable
 * while history grows) and column, bound to the tmux server instance, the pane and the pane's
 * process. Text on that row before the column is old; text after it, and every row below, is new.
 * Rows are screen rows: a line wider than the pane arrives as several rows.
 *
 * Absolute rows shift when tmux drops old rows (history full: it drops a tenth of history-limit at
 * a time) or history is cleared. So the cursor also carries hashes of the text before the column
 * and of the rows just above, and the anchor is looked for where it should be, then further up
 * (where dropped history moves rows), then below (where a narrower pane rewraps long lines). When it is nowhere in the pane any more, what the pane holds is
 * returned with `missed`: the output between may have been lost.
 *
 * One tmux invocation per read: the pane's state and its rows from a little above the anchor to the
 * bottom of the screen. `capture-pane -S` takes a number, not a format, so the start is computed from
 * the history size seen last, with a margin for history that grew since; when it grew by more, a
 * second invocation reads the whole history.
 */
import { createHash } from "node:crypto"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { InvalidInput, type TmuxError } from "../domain/Errors.js"
import { PaneId } from "../domain/Ids.js"
import type { ResolvedSocket } from "../services/SocketResolver.js"
import type { Tmux } from "../tmux/Tmux.js"
import { type PaneState, type PaneView, readPaneView, trimTrailingBlank } from "./Snapshot.js"

/** Rows above the anchor whose text identifies it. */
export const CONTEXT_ROWS = 2
/** Rows read above where the anchor is expected, for history that grew since the last look. */
const MARGIN_ROWS = 200
export const DEFAULT_SINCE_MAX_LINES = 500
const CURSOR_PREFIX = "cs1."

/** The cursor's content; short keys keep the string short. */
const CursorFields = Schema.Struct({
  /** tmux's socket_path of the server. */
  s: Schema.String,
  /** The server's generation (pid.start_time). */
  g: Schema.String,
  /** Pane id. */
  p: Schema.String,
  /** The pane's process id. */
  q: Schema.NullOr(Schema.Number),
  /** Absolute row of the anchor (0 = oldest history row). */
  r: Schema.Number.pipe(Schema.int(), Schema.nonNegative()),
  /** Column (cells) on that row where new text begins. */
  x: Schema.Number.pipe(Schema.int(), Schema.nonNegative()),
  /** history_size when the cursor was taken. */
  h: Schema.Number.pipe(Schema.int(), Schema.nonNegative()),
  /** Taken while a full-screen program had the alternate screen. */
  a: Schema.Boolean,
  /** How many rows above the anchor `k` covers (fewer at the top of the pane). */
  c: Schema.Number.pipe(Schema.int(), Schema.between(0, CONTEXT_ROWS)),
  /** Hash of the rows above the anchor. */
  k: Schema.String,
  /** Hash of the anchor row's text before column `x`. */
  t: Schema.String
})
export type Cursor = typeof CursorFields.Type

const decodeFields = Schema.decodeUnknownEither(Schema.parseJson(CursorFields))

export const encodeCursor = (cursor: Cursor): string =>
  CURSOR_PREFIX + Buffer.from(JSON.stringify(cursor), "utf8").toString("base64url")

const startOver = "Call capture_since without a cursor to get a fresh one."

export const decodeCursor = (text: string, argument = "cursor"): Either.Either<Cursor, InvalidInput> => {
  const invalid = new InvalidInput({
    reason: `${argument} is not a cursor returned by capture_since or wait_for_text. ${startOver}`
  })
  if (!text.startsWith(CURSOR_PREFIX)) return Either.left(invalid)
  const json = Buffer.from(text.slice(CURSOR_PREFIX.length), "base64url").toString("utf8")
  return Either.mapLeft(decodeFields(json), () => invalid)
}

// ---- cells: where the cursor column falls in a row's text ---------------------------------------

/** Wide (two-cell) code points, as terminals and tmux's wcwidth count them: East Asian wide, emoji. */
const isWide = (code: number): boolean =>
  (code >= 0x1100 && code <= 0x115f) ||
  (code >= 0x2e80 && code <= 0x303e) ||
  (code >= 0x3041 && code <= 0x33ff) ||
  (code >= 0x3400 && code <= 0x4dbf) ||
  (code >= 0x4e00 && code <= 0x9fff) ||
  (code >= 0xa000 && code <= 0xa4cf) ||
  (code >= 0xac00 && code <= 0xd7a3) ||
  (code >= 0xf900 && code <= 0xfaff) ||
  (code >= 0xfe30 && code <= 0xfe4f) ||
  (code >= 0xff00 && code <= 0xff60) ||
  (code >= 0xffe0 && code <= 0xffe6) ||
  (code >= 0x1f300 && code <= 0x1f64f) ||
  (code >= 0x1f900 && code <= 0x1f9ff) ||
  (code >= 0x20000 && code <= 0x3fffd)

const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u

const cellsOf = (character: string): number => {
  if (ZERO_WIDTH.test(character)) return 0
  return isWide(character.codePointAt(0)!) ? 2 : 1
}

/** Splits a row's text at a cell column: [text before the column, text from it on]. */
export const splitAtColumn = (row: string, column: number): readonly [string, string] => {
  let cells = 0
  let at = 0
  for (const character of row) {
    const width = cellsOf(character)
    if (cells + width > column && width > 0) break
    cells += width
    at += character.length
  }
  return [row.slice(0, at), row.slice(at)]
}

// ---- anchors ------------------------------------------------------------------------------------

const digest = (text: string): string => createHash("sha256").update(text, "utf8").digest("base64url").slice(0, 16)

/** The cursor at the pane's cursor position, or at `column` on that row. */
export const cursorOf = (view: PaneView, column = view.state.cursor_x): Cursor => {
  const { state } = view
  const row = state.history_size + state.cursor_y
  const index = row - view.firstRow
  const context = Math.min(CONTEXT_ROWS, index)
  return {
    s: state.socket_path,
    g: state.generation,
    p: state.pane_id,
    q: state.pane_pid,
    r: row,
    x: column,
    h: state.history_size,
    a: state.alternate_on,
    c: context,
    k: digest(view.rows.slice(index - context, index).join("\n")),
    t: digest(splitAtColumn(view.rows[index] ?? "", column)[0].trimEnd())
  }
}

export interface Anchor {
  /** Index of the anchor row in the view's rows. */
  readonly index: number
  /** The text before the column is as it was; false when the row was rewritten (e.g. a `\r` progress line). */
  readonly prefixKept: boolean
}

/**
 * Where the cursor's anchor row is in the view: at its expected row, else the nearest match above it
 * (rows move up when tmux drops old history), else below it. A row whose context matches at the
 * expected place but whose start changed was rewritten in place. Undefined when the anchor is not in
 * the view.
 */
export const locateAnchor = (view: Pick<PaneView, "firstRow" | "rows">, cursor: Cursor): Anchor | undefined => {
  const { rows } = view
  const expected = cursor.r - view.firstRow
  const contextAt = (i: number) => i - cursor.c >= 0 && digest(rows.slice(i - cursor.c, i).join("\n")) === cursor.k
  const prefixAt = (i: number) => digest(splitAtColumn(rows[i]!, cursor.x)[0].trimEnd()) === cursor.t
  const found = (i: number) => prefixAt(i) && contextAt(i)
  for (let i = Math.min(expected, rows.length - 1); i >= 0; i--) if (found(i)) return { index: i, prefixKept: true }
  // A narrower pane rewraps long lines into more rows, which moves later rows down. Only when the
  // expected row is in the view: when it is above, the rows below are new output, where a short
  // anchor (blank rows above an empty prefix) could match by chance.
  if (expected >= 0) for (let i = expected + 1; i < rows.length; i++) if (found(i)) return { index: i, prefixKept: true }
  if (expected >= 0 && expected < rows.length && contextAt(expected)) return { index: expected, prefixKept: false }
  return undefined
}

/** The rows of the visible screen. */
export const screenRows = (view: PaneView): ReadonlyArray<string> => view.rows.slice(view.state.history_size - view.firstRow)

// ---- reading since a cursor ---------------------------------------------------------------------

/** The cursor belongs to another server, server instance or pane process than the pane read now. */
export class CursorMismatch extends Data.TaggedError("CursorMismatch")<{ readonly reason: string }> {}

const mismatch = (cursor: Cursor, state: PaneState): string | undefined => {
  if (cursor.s !== state.socket_path) {
    return `the cursor was taken on the tmux server at ${cursor.s}, but this call reached ${state.socket_path}.`
  }
  if (cursor.g !== state.generation) return `the tmux server restarted since the cursor was taken (pane ids may now name other panes).`
  if (cursor.q !== state.pane_pid) return `pane ${state.pane_id} runs another process than when the cursor was taken (it was respawned).`
  return undefined
}

export interface Since {
  /** The latest look at the pane. */
  readonly view: PaneView
  /** New rows, oldest first; the first may be the rest of the anchor row. Trailing blank rows kept. */
  readonly rows: ReadonlyArray<string>
  /** Absolute row of `rows[0]`. */
  readonly fromRow: number
  /** Where the anchor was found, when it was. */
  readonly anchor: Anchor | undefined
  /** `rows[0]` is the rest of a row whose beginning was read before. */
  readonly continues: boolean
  /** Output between the cursor and now may have been lost (dropped from history, or cleared). */
  readonly missed: boolean
  /** The cursor to read on from: at the pane's cursor now (in a full-screen program, see `readSince`). */
  readonly next: Cursor
}

/**
 * Reads what is new in the pane since `cursor`. `knownHistory` is the pane's history size at the
 * last look (default: when the cursor was taken); it only decides how much to read.
 *
 * While a full-screen program holds the alternate screen there is no scrollback to read on from:
 * the rows are that screen, and the cursor taken on the normal screen is handed back unchanged
 * (the normal screen and its history wait untouched until the program exits).
 */
export const readSince = (
  socket: ResolvedSocket,
  paneId: string,
  cursor: Cursor,
  knownHistory = cursor.h
): Effect.Effect<Since, TmuxError | CursorMismatch, Tmux> =>
  Effect.gen(function* () {
    const start = Math.min(-CONTEXT_ROWS, cursor.r - cursor.c - knownHistory - MARGIN_ROWS)
    let view = yield* readPaneView(socket, paneId, start)
    const wrong = mismatch(cursor, view.state)
    if (wrong !== undefined) return yield* Effect.fail(new CursorMismatch({ reason: wrong }))

    const screenOnly = (missed: boolean, next: Cursor): Since => ({
      view,
      rows: screenRows(view),
      fromRow: view.state.history_size,
      anchor: undefined,
      continues: false,
      missed,
      next
    })
    if (view.state.alternate_on) return screenOnly(false, cursor.a ? cursorOf(view) : cursor)
    // Taken on a full-screen program's screen: the normal screen's cursor row was not visible then.
    if (cursor.a) return screenOnly(view.state.history_size > cursor.h, cursorOf(view))

    let anchor = locateAnchor(view, cursor)
    if (anchor === undefined && view.firstRow > 0) {
      view = yield* readPaneView(socket, paneId, "-")
      const changed = mismatch(cursor, view.state)
      if (changed !== undefined) return yield* Effect.fail(new CursorMismatch({ reason: changed }))
      if (view.state.alternate_on) return screenOnly(false, cursor)
      anchor = locateAnchor(view, cursor)
    }
    const next = cursorOf(view)
    if (anchor === undefined) {
      return { view, rows: view.rows, fromRow: view.firstRow, anchor, continues: false, missed: true, next }
    }
    const [before, after] = splitAtColumn(view.rows[anchor.index]!, cursor.x)
    return {
      view,
      rows: [anchor.prefixKept ? after : before + after, ...view.rows.slice(anchor.index + 1)],
      fromRow: view.firstRow + anchor.index,
      anchor,
      continues: anchor.prefixKept && before.trimEnd() !== "",
      missed: false,
      next
    }
  })

/** Looks once at the pane, for a cursor at its cursor position now. */
export const readForCursor = (socket: ResolvedSocket, paneId: string): Effect.Effect<PaneView, TmuxError, Tmux> =>
  readPaneView(socket, paneId, -CONTEXT_ROWS)

// ---- capture_since ------------------------------------------------------------------------------

/** Keeps the newest `maxLines` rows. */
export const keepNewest = (rows: ReadonlyArray<string>, maxLines: number) => {
  const kept = rows.length > maxLines ? rows.slice(rows.length - maxLines) : rows
  return {
    content: kept.join("\n"),
    lines_total: rows.length,
    lines_returned: kept.length,
    truncated: kept.length < rows.length,
    truncated_lines: rows.length - kept.length
  }
}

const NonNegativeInt = Schema.Number.pipe(Schema.int(), Schema.nonNegative())

/** The fields that bound returned text, as capture_pane reports them. */
export const boundedTextFields = {
  lines_total: NonNegativeInt.annotations({ description: "Lines there were to return (trailing blank lines dropped)." }),
  lines_returned: NonNegativeInt,
  truncated: Schema.Boolean,
  truncated_lines: NonNegativeInt.annotations({ description: "Oldest lines left out to stay within max_lines." })
}

export const CapturedSince = Schema.Struct({
  pane_id: PaneId,
  content: Schema.String.annotations({
    description: "The new text, oldest first, lines joined by newlines; empty when nothing is new."
  }),
  ...boundedTextFields,
  continues_line: Schema.Boolean.annotations({
    description: "The first line is the rest of a line whose beginning was returned before (text written after the old cursor position)."
  }),
  missed: Schema.Boolean.annotations({
    description:
      "Output may have been lost: it scrolled past the pane's history-limit, or history was cleared (e.g. by `clear`), so content is everything the pane still holds."
  }),
  alternate_on: Schema.Boolean.annotations({
    description: "A full-screen program holds the screen: content is its current screen, not new lines."
  }),
  pane_dead: Schema.Boolean,
  cursor: Schema.String.annotations({ description: "Pass to the next capture_since (or wait_for_text's since) to read on from here." })
})
export type CapturedSince = typeof CapturedSince.Type

export interface CaptureSinceOptions {
  readonly cursor?: string | undefined
  /** Without a cursor: return the visible screen too. */
  readonly includeCurrent?: boolean | undefined
  readonly maxLines: number
}

/** Checks a caller's cursor before anything is sent: it must decode and name this pane. */
export const parseCursorFor = (text: string, paneId: string, argument = "cursor"): Either.Either<Cursor, InvalidInput> =>
  Either.flatMap(decodeCursor(text, argument), (cursor) =>
    cursor.p === paneId
      ? Either.right(cursor)
      : Either.left(new InvalidInput({ reason: `${argument} belongs to pane ${cursor.p}, not ${paneId}. ${startOver}` }))
  )

export const captureSince = (
  socket: ResolvedSocket,
  paneId: string,
  options: CaptureSinceOptions
): Effect.Effect<CapturedSince, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function* () {
    if (options.cursor === undefined) {
      const view = yield* readForCursor(socket, paneId)
      const rows = options.includeCurrent === true ? trimTrailingBlank(screenRows(view)) : []
      return {
        pane_id: paneId,
        ...keepNewest(rows, options.maxLines),
        continues_line: false,
        missed: false,
        alternate_on: view.state.alternate_on,
        pane_dead: view.state.pane_dead,
        cursor: encodeCursor(cursorOf(view))
      }
    }
    const cursor = yield* parseCursorFor(options.cursor, paneId)
    const since = yield* readSince(socket, paneId, cursor).pipe(
      Effect.catchTag("CursorMismatch", (e) => Effect.fail(new InvalidInput({ reason: `cursor does not fit: ${e.reason} ${startOver}` })))
    )
    const rows = trimTrailingBlank(since.rows)
    return {
      pane_id: paneId,
      ...keepNewest(rows, options.maxLines),
      continues_line: since.continues && rows.length > 0,
      missed: since.missed,
      alternate_on: since.view.state.alternate_on,
      pane_dead: since.view.state.pane_dead,
      cursor: encodeCursor(since.next)
    }
  })
