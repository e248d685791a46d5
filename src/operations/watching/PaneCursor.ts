/**
 * Reading only what is new in a pane since an earlier look, through an opaque cursor.
 *
 * A cursor marks where the pane's cursor was: its absolute row (`history_size + cursor_y`, stable
 * while history grows) and column, bound to the tmux server instance, the pane and the pane's
 * process. Text on that row before the column is old; text after it, and every row below, is new.
 * Rows are screen rows: a line wider than the pane arrives as several rows.
 *
 * Absolute rows move only in ways tmux 3.3a's grid.c allows, and the anchor is looked for only
 * where they can have taken it:
 *
 * - A full history (`history_size >= history-limit` before a scroll) drops its oldest
 *   max(1, limit / 10) rows at once (`grid_collect_history`): every row moves up by that chunk, so
 *   the anchor is at its row minus a multiple of the chunk. After a drop the history holds at least
 *   limit - chunk + 1 rows and only a taller pane (rows coming back down, at most its height) makes
 *   it shorter without a clear; so while history + height <= limit - chunk nothing was dropped.
 * - A height change moves no row. A width change rewraps rows (`grid_reflow`) and, in tmux 3.7+,
 *   a history-limit change drops rows: the cursor keeps the width and limit it was taken with,
 *   and when they differ the anchor may be on any row.
 * - `clear-history` and `CSI 3 J` drop the whole history; `clear` without it scrolls the screen into
 *   history like output. After a drop of the whole history the rows left carry other text than
 *   the cursor's hashes, so the anchor is not found: `missed`.
 *
 * So the cursor carries hashes of the text before the column and of the rows above (up to
 * MAX_CONTEXT_SPAN), and the anchor counts as found only where exactly one of the places it may be
 * holds that text. No place, or several (repeated output), is `missed`: what the pane holds is
 * returned instead of a guess, since a place too low loses output and one too high repeats old
 * output as new. An anchor whose rows above did not tell it apart when it was taken (the pane's
 * first rows, blank output, output printed several times) is trusted only at its own row, while
 * nothing can have been dropped. What no cursor can tell: a clear that leaves the pane as it was
 * at the cursor (or, for such an anchor, whose new first rows start like the cursor's), and output
 * printed again exactly, on a place the anchor may have moved to, after the anchor itself was dropped.
 *
 * One tmux invocation per read in the common case: the pane's state and its rows from a little
 * above the anchor to the bottom of the screen, plus a few rows at each place higher up where the
 * anchor may have moved. `capture-pane -S` takes a number, not a format, so these lines are
 * computed from the history size seen last; when it changed since, or the anchor turns out to be
 * higher up, a second invocation reads what the first missed; a pane that keeps printing through
 * three is read whole.
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import { LOCAL_HOST } from "../../context/HostsConfig.js"
import { isRemoteHost } from "../../context/RemoteHosts.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { CAPTURE_ESCAPE, withoutCaptureEscapes } from "../../domain/ControlText.js"
import { InvalidInput, type TmuxError } from "../../domain/Errors.js"
import { PaneId } from "../../domain/Ids.js"
import { Int, NonNegativeInt } from "../../domain/Model.js"
import type { Tmux } from "../../tmux/Tmux.js"
import { opaqueToken } from "../internal/OpaqueToken.js"
import { type CaptureStart, type PaneState, type PaneView, readPaneView, trimTrailingBlank, type WindowRequest } from "./Snapshot.js"

/** Non-blank rows above the anchor its context holds at least. */
export const CONTEXT_ROWS = 2
/** The most rows above the anchor that its context covers (blank rows count). */
export const MAX_CONTEXT_SPAN = 8
/** Rows read above where the anchor is expected, for history that grew since the last look. */
const MARGIN_ROWS = 200
/** Windowed reads before a pane that keeps printing is read whole. */
const WINDOWED_READS = 3
/** More places than this (a history-limit under 20 moves rows one at a time) are read whole. */
const MAX_WINDOWS = 16
export const DEFAULT_SINCE_MAX_LINES = 500
const CURSOR_PREFIX = "cs1."

/**
 * The cursor's content; short keys keep the string short. `n`, `u`, `w` and `l` came later: a
 * cursor without them (from an earlier version) covers `c` rows above, counts as identified when
 * those are two, and is read as if the pane's width may have changed since.
 */
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
  r: NonNegativeInt,
  /** Column (cells) on that row where new text begins. */
  x: NonNegativeInt,
  /** history_size when the cursor was taken. */
  h: NonNegativeInt,
  /** Taken while a full-screen program had the alternate screen. */
  a: Schema.Boolean,
  /** Non-blank rows above the anchor that `k` covers, at most CONTEXT_ROWS (fewer at the top of the pane). */
  c: Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: CONTEXT_ROWS }))),
  /** How many rows above the anchor `k` covers, blank ones included. */
  n: Schema.optional(Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: MAX_CONTEXT_SPAN })))),
  /** Those rows and the text before the column were found nowhere else in the rows read then. */
  u: Schema.optional(Schema.Boolean),
  /** Hash of the rows above the anchor. */
  k: Schema.String,
  /** Hash of the anchor row's text before column `x`. */
  t: Schema.String,
  /** The pane's width when the cursor was taken. */
  w: Schema.optional(NonNegativeInt),
  /** The pane's history-limit when the cursor was taken. */
  l: Schema.optional(NonNegativeInt),
  /** The remote host (a name of the hosts file) of the server; absent: this machine. */
  o: Schema.optional(Schema.String)
})
export type Cursor = typeof CursorFields.Type

const token = opaqueToken(CURSOR_PREFIX, CursorFields)

/** The host a socket or cursor is on, as messages name it. */
const hostOf = (host: string | undefined): string => isRemoteHost(host) ? host : LOCAL_HOST

/**
 * The string handed to the caller for a cursor read on `socket`. A remote host's name goes in (pane
 * ids and socket paths mean something only with their host); on this machine nothing does, so
 * such a cursor is the string it was before hosts existed, with or without a hosts file.
 */
export const encodeCursor = (cursor: Cursor, socket: Pick<ResolvedSocket, "host">): string => {
  const { o: _, ...fields } = cursor
  return token.encode(isRemoteHost(socket.host) ? { ...fields, o: socket.host } : fields)
}

const startOver = "Call capture_since without a cursor to get a fresh one."

export const decodeCursor = (text: string, argument = "cursor"): Result.Result<Cursor, InvalidInput> => {
  const invalid = new InvalidInput({
    reason: `${argument} is not a cursor returned by capture_since or wait_for_text. ${startOver}`
  })
  return Result.mapError(token.decode(text), () => invalid)
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

/**
 * Splits a row's text at a cell column: [text before the column, text from it on]. The colour
 * sequences of a `capture-pane -e` row take no cells; those before the column are repeated at the
 * start of the second part, so it keeps the colours it had.
 */
export const splitAtColumn = (row: string, column: number): readonly [string, string] => {
  let cells = 0
  let at = 0
  let carried = ""
  // Sticky, so it matches only at `at`; one per call, as it keeps its place in lastIndex.
  const escapeHere = row.includes("\x1b") ? new RegExp(CAPTURE_ESCAPE.source, "y") : undefined
  while (at < row.length) {
    if (escapeHere !== undefined && row[at] === "\x1b") {
      escapeHere.lastIndex = at
      const escape = escapeHere.exec(row)?.[0]
      if (escape !== undefined) {
        carried += escape
        at += escape.length
        continue
      }
    }
    const character = String.fromCodePoint(row.codePointAt(at)!)
    const width = cellsOf(character)
    if (cells + width > column && width > 0) break
    cells += width
    at += character.length
  }
  return [row.slice(0, at), carried + row.slice(at)]
}

// ---- anchors ------------------------------------------------------------------------------------

const digest = (text: string): string => createHash("sha256").update(text, "utf8").digest("base64url").slice(0, 16)

/** The rows above the anchor that its context hash covers. */
const spanOf = (cursor: Cursor): number => cursor.n ?? cursor.c

/** The anchor's text told it apart when it was taken (else only its place vouches for it). */
const identified = (cursor: Cursor): boolean => cursor.u ?? cursor.c === CONTEXT_ROWS

/**
 * The context of row `index`: the MAX_CONTEXT_SPAN rows above it (fewer at the top of `rows`), and
 * whether they identify it: at least CONTEXT_ROWS of them hold text, and no other row of `rows`
 * has the same rows above it and the same text before `column`. Output that repeats (a loop
 * printing the same lines) leaves only the place to tell; a long context keeps a command run
 * again from reproducing it, since the rows above the second run differ.
 */
const contextOf = (rows: ReadonlyArray<string>, index: number, column: number) => {
  const span = Math.min(MAX_CONTEXT_SPAN, index)
  const prefix = (at: number) => splitAtColumn(rows[at] ?? "", column)[0].trimEnd()
  const own = prefix(index)
  const sameAs = (at: number) => {
    if (at === index || at - span < 0 || prefix(at) !== own) return false
    for (let i = 1; i <= span; i++) if (rows[at - i] !== rows[index - i]) return false
    return true
  }
  const nonBlank = rows.slice(index - span, index).filter((row) => row !== "").length
  return { span, nonBlank, identified: nonBlank >= CONTEXT_ROWS && !rows.some((_, at) => sameAs(at)) }
}

/** The cursor at the pane's cursor position, or at `column` on that row. */
export const cursorOf = (view: PaneView, column = view.state.cursor_x): Cursor => {
  const { state } = view
  const row = state.history_size + state.cursor_y
  const index = row - view.firstRow
  const { span, nonBlank, identified } = contextOf(view.rows, index, column)
  return {
    s: state.socket_path,
    g: state.generation,
    p: state.pane_id,
    q: state.pane_pid,
    r: row,
    x: column,
    h: state.history_size,
    a: state.alternate_on,
    c: Math.min(nonBlank, CONTEXT_ROWS),
    n: span,
    u: identified,
    k: digest(view.rows.slice(index - span, index).join("\n")),
    t: digest(splitAtColumn(view.rows[index] ?? "", column)[0].trimEnd()),
    w: state.width,
    l: state.history_limit
  }
}

/** What the pane's state says about where its rows can have gone since the cursor. */
export type PaneFacts = Pick<PaneState, "history_size" | "history_limit" | "width" | "height">

/** Rows tmux drops at once from a full history (grid_collect_history). */
const chunkOf = (historyLimit: number): number => Math.max(1, Math.floor(historyLimit / 10))

/**
 * The absolute rows the anchor can be on now, nearest first; "any" when the pane's width or
 * history-limit changed (rows rewrapped or dropped by other amounts).
 */
export const anchorPlaces = (cursor: Cursor, facts: PaneFacts): ReadonlyArray<number> | "any" => {
  const sized = cursor.w === facts.width && cursor.l === facts.history_limit
  if (!sized) return identified(cursor) ? "any" : []
  const chunk = chunkOf(facts.history_limit)
  // Nothing dropped: a drop leaves at least limit - chunk + 1 rows, and only a taller pane (by at
  // most its height) or a clear shortens the history after that.
  const undropped = facts.history_limit > 0 && facts.history_size + facts.height <= facts.history_limit - chunk
  if (!identified(cursor)) return undropped && facts.history_size >= cursor.h ? [cursor.r] : []
  if (undropped) return [cursor.r]
  const places: Array<number> = []
  for (let row = cursor.r; row >= spanOf(cursor); row -= chunk) places.push(row)
  return places
}

/** A row's text, from the main rows or a window; undefined when it was not read. */
const rowAt = (view: Pick<PaneView, "firstRow" | "rows" | "windows">, row: number): string | undefined => {
  for (const part of [view, ...(view.windows ?? [])]) {
    const at = row - part.firstRow
    if (at >= 0 && at < part.rows.length) return part.rows[at]
  }
  return undefined
}

const placesIn = (cursor: Cursor, facts: PaneFacts): ReadonlyArray<number> => {
  const places = anchorPlaces(cursor, facts)
  const span = spanOf(cursor)
  const last = facts.history_size + facts.height - 1
  if (places === "any") return Array.from({ length: Math.max(0, last - span + 1) }, (_, i) => span + i)
  return places.filter((row) => row - span >= 0 && row <= last)
}

/** The places the anchor may be on whose rows (or the rows above them) the view does not hold. */
export const unreadPlaces = (
  view: Pick<PaneView, "firstRow" | "rows" | "windows">,
  cursor: Cursor,
  facts: PaneFacts
): ReadonlyArray<number> =>
  placesIn(cursor, facts).filter((row) => {
    for (let r = row - spanOf(cursor); r <= row; r++) if (rowAt(view, r) === undefined) return true
    return false
  })

export interface Anchor {
  /** The anchor row minus the view's `firstRow`: negative when it is in a window above the main rows. */
  readonly index: number
  /** The text before the column is as it was; false when the row was rewritten (e.g. a `\r` progress line). */
  readonly prefixKept: boolean
}

/**
 * Where the cursor's anchor row is: the one place it may be on (see `anchorPlaces`) whose rows above
 * carry its context and whose start is as it was, or whose start was rewritten in place (a progress
 * line; only for an anchor with context of its own, at a place its size did not change).
 * Undefined when no place fits, several do, or some are not in the view (`unreadPlaces`).
 */
export const locateAnchor = (
  view: Pick<PaneView, "firstRow" | "rows" | "windows">,
  cursor: Cursor,
  facts: PaneFacts
): Anchor | undefined => {
  if (unreadPlaces(view, cursor, facts).length > 0) return undefined
  const rewritable = identified(cursor) && anchorPlaces(cursor, facts) !== "any"
  const span = spanOf(cursor)
  const fits: Array<Anchor> = []
  for (const row of placesIn(cursor, facts)) {
    const above = Array.from({ length: span }, (_, i) => rowAt(view, row - span + i)!)
    if (digest(above.join("\n")) !== cursor.k) continue
    const prefixKept = digest(splitAtColumn(rowAt(view, row)!, cursor.x)[0].trimEnd()) === cursor.t
    if (prefixKept || rewritable) fits.push({ index: row - view.firstRow, prefixKept })
    if (fits.length > 1) return undefined
  }
  return fits[0]
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

/** What one invocation reads: the main rows from `start` (screen-relative) and windows. */
interface ReadPlan {
  readonly start: CaptureStart
  readonly windows: ReadonlyArray<WindowRequest>
}

const WHOLE: ReadPlan = { start: "-", windows: [] }

/**
 * The read that holds the rows from absolute row `from` to the bottom and the places the anchor
 * may be on, if the history size is still `facts.history_size` (screen-relative lines are computed
 * from it; when it changed, the read covers other rows, and the next plan is made from that one).
 */
const planRead = (cursor: Cursor, facts: PaneFacts, from: number): ReadPlan => {
  const places = anchorPlaces(cursor, facts)
  if (places === "any") return WHOLE
  const span = spanOf(cursor)
  const history = facts.history_size
  const above = places.filter((row) => row - span < from)
  // One place above (a cursor at the pane's top, one drop's worth): if the anchor is there, the rows
  // from it down are wanted next, so read them now.
  const start = Math.min(-MAX_CONTEXT_SPAN, (above.length === 1 ? above[0]! - span : from) - history)
  const windows = places.filter((row) => row - span < history + start).map((row) => ({ start: row - span - history, end: row - history }))
  return windows.length > MAX_WINDOWS ? WHOLE : { start, windows }
}

/**
 * Reads what is new in the pane since `cursor`. `knownHistory` is the pane's history size at the
 * last look (default: when the cursor was taken); it only decides what the first invocation reads.
 *
 * While a full-screen program holds the alternate screen there is no scrollback to read on from:
 * the rows are that screen, and the cursor taken on the normal screen is handed back unchanged
 * (the normal screen and its history wait untouched until the program exits).
 */
export const readSince = (
  socket: ResolvedSocket,
  paneId: string,
  cursor: Cursor,
  knownHistory = cursor.h,
  escapes = false
): Effect.Effect<Since, TmuxError | CursorMismatch, Tmux> =>
  Effect.gen(function*() {
    const span = spanOf(cursor)
    // First guess: the pane as at the last look, and tall (reading a few more places costs little).
    const guess: PaneFacts = { history_size: knownHistory, history_limit: cursor.l ?? 0, width: cursor.w ?? 0, height: MARGIN_ROWS }
    let plan = cursor.a ? { start: -MAX_CONTEXT_SPAN, windows: [] } : planRead(cursor, guess, cursor.r - span - MARGIN_ROWS)
    for (let reads = 1;; reads++) {
      if (reads > WINDOWED_READS) plan = WHOLE
      // With escapes, the rows are found by their plain text (as the cursor hashes it) and returned as read.
      const read = yield* readPaneView(socket, paneId, plan.start, escapes, plan.windows)
      const view = escapes ? plainView(read) : read
      const wrong = mismatch(cursor, view.state)
      if (wrong !== undefined) return yield* Effect.fail(new CursorMismatch({ reason: wrong }))

      const screenOnly = (missed: boolean, next: Cursor): Since => ({
        view,
        rows: screenRows(read),
        fromRow: view.state.history_size,
        anchor: undefined,
        continues: false,
        missed,
        next
      })
      if (view.state.alternate_on) return screenOnly(false, cursor.a ? cursorOf(view) : cursor)
      // Taken on a full-screen program's screen: the normal screen's cursor row was not visible then.
      if (cursor.a) return screenOnly(view.state.history_size > cursor.h, cursorOf(view))

      const facts = view.state
      if (unreadPlaces(view, cursor, facts).length > 0) {
        plan = planRead(cursor, facts, view.firstRow)
        continue
      }
      const anchor = locateAnchor(view, cursor, facts)
      if (anchor === undefined) {
        if (view.firstRow > 0) {
          // Lost: everything the pane holds is the answer.
          plan = WHOLE
          continue
        }
        return { view, rows: read.rows, fromRow: view.firstRow, anchor, continues: false, missed: true, next: cursorOf(view) }
      }
      if (anchor.index < 0) {
        // Higher up than the rows read: read from there down.
        plan = planRead(cursor, facts, view.firstRow + anchor.index - span)
        continue
      }
      const [before] = splitAtColumn(view.rows[anchor.index]!, cursor.x)
      const row = read.rows[anchor.index]!
      return {
        view,
        rows: [anchor.prefixKept ? splitAtColumn(row, cursor.x)[1] : row, ...read.rows.slice(anchor.index + 1)],
        fromRow: view.firstRow + anchor.index,
        anchor,
        continues: anchor.prefixKept && before.trimEnd() !== "",
        missed: false,
        next: cursorOf(view)
      }
    }
  })

/** A `capture-pane -e` view as the plain capture reads it. */
const plainView = (view: PaneView): PaneView => ({
  ...view,
  rows: view.rows.map(withoutCaptureEscapes),
  ...(view.windows === undefined ? {} : { windows: view.windows.map((w) => ({ ...w, rows: w.rows.map(withoutCaptureEscapes) })) })
})

/** Looks once at the pane, for a cursor at its cursor position now (with rows above to tell its context apart in). */
export const readForCursor = (socket: ResolvedSocket, paneId: string, escapes = false): Effect.Effect<PaneView, TmuxError, Tmux> =>
  readPaneView(socket, paneId, CURSOR_LOOK_START, escapes)

/** Where a look for a cursor starts reading: a margin above the screen, to tell the anchor's context apart in. */
export const CURSOR_LOOK_START = -MARGIN_ROWS

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

/** The fields that bound returned text, as capture_pane reports them. */
export const boundedTextFields = {
  lines_total: NonNegativeInt.annotate({ description: "Lines there were to return (trailing blank lines dropped)." }),
  lines_returned: NonNegativeInt,
  truncated: Schema.Boolean,
  truncated_lines: NonNegativeInt.annotate({ description: "Oldest lines left out to stay within max_lines." })
}

/**
 * What a pane printed since a cursor, bounded, with the cursor to read on from; `missed` says when
 * that cannot be told for sure.
 */
export const CapturedSince = Schema.Struct({
  pane_id: PaneId,
  content: Schema.String.annotate({
    description: "The new text, oldest first, lines joined by newlines; empty when nothing is new."
  }),
  ...boundedTextFields,
  continues_line: Schema.Boolean.annotate({
    description: "The first line is the rest of a line whose beginning was returned before (text written after the old cursor position)."
  }),
  missed: Schema.Boolean.annotate({
    description:
      "Output may have been lost: it scrolled past the pane's history-limit, history was cleared (e.g. by `clear`), or the cursor's place can no longer be told for sure (the pane's width changed, or the output repeated); content is then everything the pane still holds."
  }),
  alternate_on: Schema.Boolean.annotate({
    description: "A full-screen program holds the screen: content is its current screen, not new lines."
  }),
  pane_dead: Schema.Boolean,
  cursor: Schema.String.annotate({ description: "Pass to the next capture_since (or wait_for_text's since) to read on from here." })
})
export type CapturedSince = typeof CapturedSince.Type

/** The cursor of an earlier call (none: start here), and how many lines to keep. */
export interface CaptureSinceOptions {
  readonly cursor?: string | undefined
  /** Without a cursor: return the visible screen too. */
  readonly includeCurrent?: boolean | undefined
  readonly maxLines: number
  /** Keep colours and attributes as escape sequences in `content` (capture-pane -e). Default false. */
  readonly escapes?: boolean | undefined
}

/**
 * Checks a caller's cursor before anything is sent: it must decode, be of the host the call is
 * about (`socket`'s; a pane id names a pane only with its host) and name this pane.
 */
export const parseCursorFor = (
  text: string,
  paneId: string,
  socket: Pick<ResolvedSocket, "host">,
  argument = "cursor"
): Result.Result<Cursor, InvalidInput> =>
  Result.flatMap(decodeCursor(text, argument), (cursor) => {
    const taken = hostOf(cursor.o)
    const given = hostOf(socket.host)
    if (taken !== given) {
      return Result.fail(
        new InvalidInput({
          reason:
            `${argument} was taken on host ${taken}, not ${given}: pass host "${taken}" (and the socket it was taken on) to read on from it, or call capture_since without a cursor for a fresh one.`
        })
      )
    }
    return cursor.p === paneId
      ? Result.succeed(cursor)
      : Result.fail(new InvalidInput({ reason: `${argument} belongs to pane ${cursor.p}, not ${paneId}. ${startOver}` }))
  })

/**
 * Only what a pane printed since `cursor` (without one: a cursor for the pane's current end, and
 * the screen when `includeCurrent`).
 */
export const captureSince = Effect.fn("PaneCursor.captureSince")((
  socket: ResolvedSocket,
  paneId: string,
  options: CaptureSinceOptions
): Effect.Effect<CapturedSince, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    if (options.cursor === undefined) {
      const escapes = options.escapes === true && options.includeCurrent === true
      const read = yield* readForCursor(socket, paneId, escapes)
      const view = escapes ? plainView(read) : read
      const rows = options.includeCurrent === true ? trimTrailingBlank(screenRows(read)) : []
      return {
        pane_id: paneId,
        ...keepNewest(rows, options.maxLines),
        continues_line: false,
        missed: false,
        alternate_on: view.state.alternate_on,
        pane_dead: view.state.pane_dead,
        cursor: encodeCursor(cursorOf(view), socket)
      }
    }
    const cursor = yield* Effect.fromResult(parseCursorFor(options.cursor, paneId, socket))
    const since = yield* readSince(socket, paneId, cursor, cursor.h, options.escapes === true).pipe(
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
      cursor: encodeCursor(since.next, socket)
    }
  })
)
