/**
 * capture_since's cursor without tmux: what it encodes, how a row splits at the cursor column, and
 * how the anchor is found again when rows moved (dropped history, rewrapped lines) or changed, and
 * only where tmux can have moved it (test/unit/CursorProperty.test.ts checks the whole read over
 * random histories).
 */
import * as Result from "effect/Result"
import { describe, expect, it } from "vitest"
import type { ResolvedSocket } from "../../src/context/SocketResolver.js"
import {
  anchorPlaces,
  type Cursor,
  cursorOf,
  decodeCursor,
  encodeCursor,
  locateAnchor,
  MAX_CONTEXT_SPAN,
  type PaneFacts,
  parseCursorFor,
  splitAtColumn,
  unreadPlaces
} from "../../src/operations/watching/PaneCursor.js"
import type { PaneState, PaneView } from "../../src/operations/watching/Snapshot.js"

const height = 3

/** The facts of a pane 80 wide and 3 high, with history-limit 2000, whose rows are `rows` from `firstRow` on. */
const factsOf = (rows: ReadonlyArray<string>, firstRow = 0, facts: Partial<PaneFacts> = {}): PaneFacts => ({
  history_size: firstRow + rows.length - height,
  history_limit: 2000,
  width: 80,
  height,
  ...facts
})

/** A view whose rows start at absolute row `firstRow`, with the pane's cursor at (x, absolute row). */
const view = (
  rows: ReadonlyArray<string>,
  cursor: { readonly row: number; readonly x: number },
  firstRow = 0,
  facts: Partial<PaneFacts> = {}
): PaneView => {
  const { history_size: historySize, history_limit, width } = factsOf(rows, firstRow, facts)
  const state: PaneState = {
    server_pid: 100,
    server_start_time: 1_700_000_000,
    socket_path: "/tmp/tmux-0/default",
    pane_id: "%3",
    pane_pid: 200,
    pane_dead: false,
    pane_in_mode: false,
    pane_mode: "",
    scroll_position: null,
    alternate_on: false,
    cursor_x: cursor.x,
    cursor_y: cursor.row - historySize,
    width,
    height,
    history_size: historySize,
    history_limit,
    pane_current_command: "sh",
    pane_current_path: "/",
    title: "",
    generation: "100.1700000000"
  }
  return { state, firstRow, rows }
}

const cursorAt = (rows: ReadonlyArray<string>, row: number, x: number, facts: Partial<PaneFacts> = {}): Cursor =>
  cursorOf(view(rows, { row, x }, 0, facts))

/** locateAnchor in the rows `rows` from `firstRow` on, the pane's facts following from them. */
const locate = (rows: ReadonlyArray<string>, cursor: Cursor, firstRow = 0, facts: Partial<PaneFacts> = {}) =>
  locateAnchor({ firstRow, rows }, cursor, factsOf(rows, firstRow, facts))

/** A socket on `host` (undefined: without a hosts file). */
const socketOn = (host?: string): ResolvedSocket => ({
  ...(host === undefined ? {} : { host }),
  name: "default",
  path: "/tmp/tmux-0/default",
  rule: "tmux default",
  flags: ["-S", "/tmp/tmux-0/default"],
  label: "default (/tmp/tmux-0/default)"
})

describe("cursor encoding", () => {
  it("round-trips through its opaque string", () => {
    const cursor = cursorAt(["a", "b", "$ "], 2, 2)
    const text = encodeCursor(cursor, socketOn())
    expect(text).toMatch(/^cs1\.[A-Za-z0-9_-]+$/)
    expect(decodeCursor(text)).toEqual(Result.succeed(cursor))
    expect(cursor).toMatchObject({ s: "/tmp/tmux-0/default", g: "100.1700000000", p: "%3", q: 200, r: 2, x: 2, c: 2, a: false })
  })

  it("refuses anything else with a message that says how to start over", () => {
    const good = JSON.parse(Buffer.from(encodeCursor(cursorAt(["$ "], 0, 2), socketOn()).slice(4), "base64url").toString())
    const forged = (value: unknown) => `cs1.${Buffer.from(JSON.stringify(value)).toString("base64url")}`
    for (
      const text of [
        "",
        "hello",
        "cs1.",
        "cs1.!!!",
        forged({ ...good, r: -1 }),
        forged({ ...good, c: 3 }),
        forged({ ...good, p: undefined })
      ]
    ) {
      const decoded = decodeCursor(text)
      expect(Result.isFailure(decoded)).toBe(true)
      if (Result.isFailure(decoded)) expect(decoded.failure.reason).toContain("capture_since without a cursor")
    }
  })
})

describe("a cursor's host", () => {
  const cursor = cursorAt(["a", "b", "$ "], 2, 2)
  /** The encoding cursors had before hosts existed. */
  const before = `cs1.${Buffer.from(JSON.stringify(cursor)).toString("base64url")}`

  it("is left out on this machine, with or without a hosts file: such a cursor is the string it always was", () => {
    expect(encodeCursor(cursor, socketOn())).toBe(before)
    expect(encodeCursor(cursor, socketOn("local"))).toBe(before)
    expect(Result.getOrThrow(parseCursorFor(before, "%3", socketOn("local")))).toEqual(cursor)
  })

  it("is carried for a remote host, and re-encoding a decoded cursor for its host keeps one copy of it", () => {
    const text = encodeCursor(cursor, socketOn("build"))
    expect(text).not.toBe(before)
    const decoded = Result.getOrThrow(parseCursorFor(text, "%3", socketOn("build")))
    expect(decoded).toEqual({ ...cursor, o: "build" })
    expect(encodeCursor(decoded, socketOn("build"))).toBe(text)
    // Read on from it on this machine (a bug elsewhere), it would say so.
    expect(encodeCursor(decoded, socketOn("local"))).toBe(before)
  })

  it("is checked before anything else: a cursor of one host is refused on another, naming both", () => {
    const remote = encodeCursor(cursor, socketOn("build"))
    for (
      const [text, socket, taken, given] of [
        [remote, socketOn("local"), "build", "local"],
        [remote, socketOn("gpu"), "build", "gpu"],
        [before, socketOn("build"), "local", "build"]
      ] as const
    ) {
      const refused = parseCursorFor(text, "%9", socket, "since")
      expect(Result.isFailure(refused)).toBe(true)
      if (Result.isFailure(refused)) {
        expect(refused.failure.reason).toContain(`since was taken on host ${taken}, not ${given}`)
        expect(refused.failure.reason).toContain(`host "${taken}"`)
      }
    }
    // The same host: then the pane is checked.
    const otherPane = parseCursorFor(remote, "%9", socketOn("build"))
    expect(Result.isFailure(otherPane) && otherPane.failure.reason).toContain("belongs to pane %3")
  })
})

describe("splitAtColumn", () => {
  it("splits at a cell column: wide characters take two cells, combining marks none", () => {
    expect(splitAtColumn("$ ls", 2)).toEqual(["$ ", "ls"])
    expect(splitAtColumn("日本語", 4)).toEqual(["日本", "語"])
    expect(splitAtColumn("e\u0301x", 1)).toEqual(["e\u0301", "x"])
    expect(splitAtColumn("😀 ok", 3)).toEqual(["😀 ", "ok"])
    // Past the end of the text (the row's trailing spaces are not captured).
    expect(splitAtColumn("$", 2)).toEqual(["$", ""])
  })
})

describe("locateAnchor", () => {
  const rows = ["one", "two", "three", "$ "]
  // Taken from a look that started at row 1: its context is the two rows above.
  const cursor = cursorOf(view(rows.slice(1), { row: 3, x: 2 }, 1))

  it("finds the anchor where it was, the text after the column being new", () => {
    expect(locate(["one", "two", "three", "$ ls", "out"], cursor)).toEqual({ index: 3, prefixKept: true })
    // A view that starts lower down: the index is relative to it.
    expect(locate(["two", "three", "$ ls"], cursor, 1)).toEqual({ index: 2, prefixKept: true })
  })

  it("finds it higher up when old rows were dropped, and lower down when lines above were rewrapped", () => {
    // history-limit 5: tmux drops max(1, 5 / 10) = 1 row at a time.
    const small = cursorOf(view(rows.slice(1), { row: 3, x: 2 }, 1, { history_limit: 5 }))
    expect(locate(["two", "three", "$ ls", "out", "more"], small, 0, { history_limit: 5 })).toEqual({ index: 2, prefixKept: true })
    // A narrower pane rewrapped a long line above.
    expect(locate(["o", "ne", "two", "three", "$ ls"], cursor, 0, { width: 40 })).toEqual({ index: 4, prefixKept: true })
  })

  it("prefers the expected row among identical rows", () => {
    const same = ["y", "y", "y", "y", "y"]
    expect(locate([...same, "y", "y"], cursorAt(same, 3, 1))).toEqual({ index: 3, prefixKept: true })
  })

  it("does not look below a view that starts after the anchor, where a weak anchor would match new output by chance", () => {
    const blank = cursorAt(["", "", ""], 2, 0)
    expect(locate(["", "", "", "x"], blank)).toEqual({ index: 2, prefixKept: true })
    expect(locate(["", "", "x", "", "", "y"], blank, 10)).toBeUndefined()
  })

  it("tells a row rewritten in place (a progress line) from an anchor that is gone", () => {
    const progress = cursorOf(view(["build", "step", " 10%"], { row: 2, x: 4 }))
    expect(locate(["build", "step", " 60%"], progress)).toEqual({ index: 2, prefixKept: false })
    expect(locate(["cleared", "screen", "$ "], cursor)).toBeUndefined()
    // The rows above are not there to confirm it: not found (the caller reads more, or says missed).
    expect(locate(["three", "$ ls"], cursor, 2)).toBeUndefined()
  })
})

describe("where the anchor can be", () => {
  /** Rows `L<from>`..`L<to>`. */
  const lines = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `L${from + i}`)
  // A pane with history-limit 100 (drops of 10 rows), 3 rows high; the cursor at the prompt on row 52.
  const limit = { history_limit: 100 }
  const before = [...lines(0, 51), "$ "]
  const cursor = cursorAt(before, 52, 2, limit)
  /** The pane's facts with a full history. */
  const full: PaneFacts = { history_size: 95, history_limit: 100, width: 80, height: 3 }

  it("keeps the rows above it as context: up to MAX_CONTEXT_SPAN, identified when they are nowhere else", () => {
    expect(cursor).toMatchObject({ r: 52, c: 2, n: MAX_CONTEXT_SPAN, u: true, w: 80, l: 100 })
    // The same command and output twice: the place is the only tell.
    const twice = [...lines(0, 9), "$ make", ...lines(0, 9), "$ "]
    expect(cursorAt(twice, 21, 2)).toMatchObject({ n: MAX_CONTEXT_SPAN, u: false })
    // At the top of the pane: fewer rows, and nothing above the first to tell it apart.
    expect(cursorAt(["$ "], 0, 2)).toMatchObject({ r: 0, c: 0, n: 0, u: false })
  })

  it("is on its row, or a multiple of the drop chunk higher: nowhere else, even where its text is", () => {
    expect(anchorPlaces(cursor, full)).toEqual([52, 42, 32, 22, 12])
    // 20 rows dropped: the anchor is 20 rows higher.
    const dropped = [...lines(20, 51), "$ ls", ...lines(100, 160)]
    expect(locateAnchor({ firstRow: 0, rows: dropped }, cursor, full)).toEqual({ index: 32, prefixKept: true })
    // 15 rows gone is not something tmux does: the same text 15 rows higher is not the anchor.
    const shifted = [...lines(15, 51), "$ ls", ...lines(100, 155)]
    expect(locateAnchor({ firstRow: 0, rows: shifted }, cursor, full)).toBeUndefined()
  })

  it("says nothing when several places hold its text (the output repeated)", () => {
    const repeated = [...lines(20, 51), "$ ls", ...lines(43, 51), "$ ls", ...lines(200, 250)]
    expect(repeated.indexOf("$ ls", 33)).toBe(42)
    expect(locateAnchor({ firstRow: 0, rows: repeated }, cursor, full)).toBeUndefined()
  })

  it("needs no place higher up while history + height stays below limit - chunk (no drop can have happened)", () => {
    expect(anchorPlaces(cursor, { ...full, history_size: 87 })).toEqual([52])
    expect(anchorPlaces(cursor, { ...full, history_size: 88 })).toEqual([52, 42, 32, 22, 12])
    // A pane without history loses rows at the top one at a time.
    expect(anchorPlaces(cursorAt(before, 52, 2, { history_limit: 0 }), { history_size: 0, history_limit: 0, width: 80, height: 3 }))
      .toHaveLength(
        52 - MAX_CONTEXT_SPAN + 1
      )
  })

  it("trusts a cursor at the pane's top only at its row, and only while nothing can have been dropped or cleared", () => {
    const top = cursorAt(["$ "], 0, 2)
    const after = ["$ seq 1 30", ...lines(1, 30), "$ "]
    expect(locate(after, top)).toEqual({ index: 0, prefixKept: true })
    expect(anchorPlaces(top, { history_size: 1776, history_limit: 2000, width: 80, height: 24 })).toEqual([0])
    expect(anchorPlaces(top, { history_size: 1777, history_limit: 2000, width: 80, height: 24 })).toEqual([])
    // History shorter than when the cursor was taken: it was cleared (or the pane grew taller).
    const grown = cursorOf(view(["$ "], { row: 0, x: 2 }, 0, { history_size: 5 }))
    expect(anchorPlaces(grown, factsOf(after, 0, { history_size: 4 }))).toEqual([])
    // A row rewritten in place cannot be told from a new first row: not for such a cursor.
    expect(locate(["10%"], cursorAt(["5%"], 0, 2))).toBeUndefined()
  })

  it("may be anywhere after a width or history-limit change, or for a cursor of an earlier version", () => {
    expect(anchorPlaces(cursor, { ...full, history_size: 40, width: 100 })).toBe("any")
    expect(anchorPlaces(cursor, { history_size: 40, history_limit: 200, width: 80, height: 3 })).toBe("any")
    expect(anchorPlaces(cursorAt(["$ "], 0, 2), { history_size: 40, history_limit: 2000, width: 100, height: 3 })).toEqual([])
    // Before n, u, w and l: two rows of context, nothing known of the width.
    const { n: _n, u: _u, w: _w, l: _l, ...earlier } = cursorAt(["a", "b", "$ "], 2, 2)
    const decoded = decodeCursor(`cs1.${Buffer.from(JSON.stringify(earlier)).toString("base64url")}`)
    expect(Result.isSuccess(decoded)).toBe(true)
    if (Result.isSuccess(decoded)) {
      expect(anchorPlaces(decoded.success, factsOf(["a", "b", "$ "]))).toBe("any")
      expect(locate(["x", "a", "b", "$ ls"], decoded.success)).toEqual({ index: 3, prefixKept: true })
    }
  })

  it("asks for the rows of the places it has not read, context included", () => {
    const view = { firstRow: 40, rows: lines(40, 97) }
    expect(unreadPlaces(view, cursor, full)).toEqual([42, 32, 22, 12])
    const windows = [22, 12].map((row) => ({ firstRow: row - MAX_CONTEXT_SPAN, rows: lines(row - MAX_CONTEXT_SPAN, row) }))
    expect(unreadPlaces({ ...view, windows }, cursor, full)).toEqual([42, 32])
  })
})
