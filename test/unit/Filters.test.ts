/**
 * Issue 14 item 7: finding panes. `where` on the list tools (validated against the list's fields,
 * text matched as substrings or time-boxed regexes, other fields exactly, before paging), and the
 * panes beside a pane from its window's layout.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { Pane, Session, Window } from "../../src/domain/Model.js"
import { filterItems, textFields } from "../../src/operations/hierarchy/Filters.js"
import { layoutRects, panesBeside, type Rect } from "../../src/operations/hierarchy/Neighbours.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { call, fakeLayer, fakeState, resultText, socketPathFor } from "../support/fakeWorld.js"
import { errorMeta, okResult } from "../support/runTool.js"

const world = (): FakeWorld =>
  new Map([
    [
      socketPathFor(),
      FakeTmux.server({
        sessions: [
          {
            name: "main",
            windows: [
              { name: "edit", panes: [{ command: "vim", title: "#(touch x)" }, { command: "bash", cwd: "/srv/app" }] },
              { name: "logs", panes: [{ command: "sleep", cwd: "/srv/app/logs" }] }
            ]
          },
          { name: "other", windows: [{ name: "misc" }] }
        ],
        clients: [{ session: "main" }]
      })
    ]
  ])

const ids = (page: any, key = "pane_id") => page.items.map((item: any) => item[key])

describe("where on the list tools", () => {
  it("text fields are those taking any string; ids, numbers and flags are not", () => {
    expect([...textFields(Pane.fields)]).toEqual(["window_name", "session_name", "command", "cwd", "title"])
    expect([...textFields(Window.fields)]).toEqual(["window_name", "session_name", "layout"])
    expect([...textFields(Session.fields)]).toEqual(["session_name"])
  })

  it.effect("text matches a substring, exactly as given (no format, no glob); other fields equal", () =>
    Effect.gen(function*() {
      const text = new Set(["name"])
      const items = [{ id: "%1", name: "a#(x)b", n: 1 }, { id: "%12", name: "*", n: 2 }, { id: "%2", name: "ab", n: 1 }]
      expect(yield* filterItems(items, { where: { name: "#(x)" } }, text)).toEqual([items[0]])
      expect(yield* filterItems(items, { where: { name: "a*" } }, text)).toEqual([])
      // Ids are not text: %1 does not match %12.
      expect(yield* filterItems(items, { where: { id: "%1" } }, text)).toEqual([items[0]])
      expect(yield* filterItems(items, { where: { n: 1, name: "b" } }, text)).toEqual([items[0], items[2]])
      expect(yield* filterItems(items, { where: { name: "^a.*b$" }, regex: true }, text)).toEqual([items[0], items[2]])
      expect(yield* filterItems(items, {}, text)).toEqual(items)
    }))

  it.effect("a bad or runaway regex is invalid_input naming the field, never echoing it", () =>
    Effect.gen(function*() {
      const text = new Set(["name"])
      const bad = yield* Effect.flip(filterItems([{ name: "x" }], { where: { name: "(secret" }, regex: true }, text))
      expect(bad.reason).toContain("where.name")
      expect(bad.reason).not.toContain("secret")
      const runaway = yield* Effect.flip(
        filterItems([{ name: `${"a".repeat(40)}!` }], { where: { name: "^(a+)+$" }, regex: true }, text)
      )
      expect(runaway.reason).toMatch(/where\.name.*ran longer than/)
    }))

  it.effect("list_panes: by command, cwd and a hostile title taken literally; total counts matches before paging", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      expect(ids(okResult(yield* call(layer, "list_panes", { where: { command: "sleep" } })))).toEqual(["%2"])
      const inApp = okResult(yield* call(layer, "list_panes", { where: { cwd: "/srv/app" }, limit: 1 }))
      expect(inApp).toMatchObject({ total: 2, truncated: true, items: [{ pane_id: "%1" }] })
      expect(ids(okResult(yield* call(layer, "list_panes", { where: { title: "#(touch x)" } })))).toEqual(["%0"])
      expect(ids(okResult(yield* call(layer, "list_panes", { where: { command: "^(vim|sleep)$", regex: true } })))).toEqual(["%0", "%2"])
      expect(ids(okResult(yield* call(layer, "list_panes", { where: { active: false, window_name: "edit" } })))).toEqual(["%1"])
      expect(ids(okResult(yield* call(layer, "list_panes", { where: { is_attended: false } })))).toEqual(["%2", "%3"])
      expect(ids(okResult(yield* call(layer, "list_panes", { where: { is_caller: null, session_name: "other" } })))).toEqual(["%3"])
    }))

  it.effect("a filter field not returned is still asked of tmux, and left out of the items", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      const page = okResult(yield* call(layer, "list_panes", { where: { cwd: "/srv/app/logs" }, fields: ["command"] }))
      expect(page.items).toEqual([{ pane_id: "%2", command: "sleep" }])
      const state = yield* fakeState(layer)
      expect(state.invocations.at(-1)!.commands.flat().join(" ")).toContain("#{pane_current_path}")
      // The filter's value never reaches tmux.
      okResult(yield* call(layer, "list_panes", { where: { title: "#(touch x)" } }))
      expect(JSON.stringify((yield* fakeState(layer)).invocations.at(-1)!.commands)).not.toContain("touch")
    }))

  it.effect("list_windows and list_sessions filter too", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      expect(ids(okResult(yield* call(layer, "list_windows", { where: { window_name: "og" } })), "window_id")).toEqual(["@1"])
      expect(ids(okResult(yield* call(layer, "list_windows", { where: { session_name: "other" } })), "window_id")).toEqual(["@2"])
      expect(ids(okResult(yield* call(layer, "list_sessions", { where: { session_attached: 0 } })), "session_id")).toEqual(["$1"])
      expect(ids(okResult(yield* call(layer, "list_sessions", { where: { session_name: "^m", regex: true } })), "session_id")).toEqual([
        "$0"
      ])
    }))

  it.effect("an unknown key or a value of the wrong type is invalid_input naming the valid keys", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      const unknown = yield* call(layer, "list_sessions", { where: { colour: "red" } })
      expect(errorMeta(unknown).code).toBe("invalid_input")
      expect(resultText(unknown)).toContain("\"session_name\"")
      expect(resultText(unknown)).not.toContain("red")
      const wrongType = yield* call(layer, "list_panes", { where: { active: "yes" } })
      expect(errorMeta(wrongType).code).toBe("invalid_input")
      expect(resultText(wrongType)).toContain("where.active")
      expect(errorMeta(yield* call(layer, "list_panes", { where: { title: "" } })).code).toBe("invalid_input")
      expect(errorMeta(yield* call(layer, "list_panes", { where: { pane_id: "1" } })).code).toBe("invalid_input")
      // Neighbour keys are list_panes' alone, one at a time, and take the place of a scope.
      expect(errorMeta(yield* call(layer, "list_windows", { where: { right_of: "%0" } })).code).toBe("invalid_input")
      expect(errorMeta(yield* call(layer, "list_panes", { where: { right_of: "%0", below: "%1" } })).code).toBe("invalid_input")
      expect(errorMeta(yield* call(layer, "list_panes", { where: { right_of: "%0" }, window_id: "@0" })).code).toBe("invalid_input")
    }))
})

/** A layout string for these panes (the checksum and the root cell are not read by the parser). */
const layoutOf = (panes: Record<string, Rect>) =>
  `abcd,200x60,0,0{${Object.entries(panes).map(([id, r]) => `${r.width}x${r.height},${r.left},${r.top},${id.slice(1)}`).join(",")}}`

describe("the panes beside a pane", () => {
  it("reads every pane's rectangle from a real tmux layout, splits included", () => {
    const rects = layoutRects("d17e,81x25,0,0{40x25,0,0,0,40x25,41,0[40x12,41,0,1,40x12,41,13,2]}")
    expect([...rects]).toEqual([
      ["%0", { left: 0, top: 0, width: 40, height: 25 }],
      ["%1", { left: 41, top: 0, width: 40, height: 12 }],
      ["%2", { left: 41, top: 13, width: 40, height: 12 }]
    ])
    expect([...layoutRects("b6df,81x25,0,0,7")]).toEqual([["%7", { left: 0, top: 0, width: 81, height: 25 }]])
  })

  it("reads tmux 3.8's JSON layout the same, and no rectangle from a layout it cannot read", () => {
    // As tmux 3.8 printed #{window_layout} for an 80x24 window split -h, then -v on the right.
    const json = `{"V":2,"L":{"t":"h","w":80,"h":24,"x":0,"y":0,"c":[{"t":"p","w":40,"h":24,"x":0,"y":0,"l":1,"i":0,"I":"%0"},` +
      `{"t":"v","w":39,"h":24,"x":41,"y":0,"c":[{"t":"p","w":39,"h":12,"x":41,"y":0,"l":0,"i":1,"I":"%1"},` +
      `{"t":"p","w":39,"h":11,"x":41,"y":13,"a":true,"i":2,"I":"%2"}]}]}}`
    expect([...layoutRects(json)]).toEqual([
      ["%0", { left: 0, top: 0, width: 40, height: 24 }],
      ["%1", { left: 41, top: 0, width: 39, height: 12 }],
      ["%2", { left: 41, top: 13, width: 39, height: 11 }]
    ])
    expect(panesBeside(layoutRects(json), { pane_id: "%0", side: "right" })).toEqual(["%1", "%2"])
    expect([...layoutRects("{not json")]).toEqual([])
  })

  // A 2×2 grid: %0 %1 on top, %2 %3 below, 39+1+40 wide, 12+1+12 high.
  const grid = layoutRects(layoutOf({
    "%0": { left: 0, top: 0, width: 39, height: 12 },
    "%1": { left: 40, top: 0, width: 40, height: 12 },
    "%2": { left: 0, top: 13, width: 39, height: 12 },
    "%3": { left: 40, top: 13, width: 40, height: 12 }
  }))

  it("in a 2×2 grid, each pane has one neighbour on two sides and none on the others", () => {
    expect(panesBeside(grid, { pane_id: "%0", side: "right" })).toEqual(["%1"])
    expect(panesBeside(grid, { pane_id: "%0", side: "below" })).toEqual(["%2"])
    expect(panesBeside(grid, { pane_id: "%0", side: "left" })).toEqual([])
    expect(panesBeside(grid, { pane_id: "%0", side: "above" })).toEqual([])
    expect(panesBeside(grid, { pane_id: "%3", side: "left" })).toEqual(["%2"])
    expect(panesBeside(grid, { pane_id: "%3", side: "above" })).toEqual(["%1"])
    // Diagonal panes only meet at a corner: not beside.
    expect(panesBeside(grid, { pane_id: "%1", side: "below" })).toEqual(["%3"])
    expect(panesBeside(grid, { pane_id: "%9", side: "below" })).toEqual([])
  })

  it("uneven splits: every pane along the side, the one sharing most of it first", () => {
    // %0 is the left column; the right column is split 5 / 14 / 4 rows.
    const rects = layoutRects(layoutOf({
      "%0": { left: 0, top: 0, width: 50, height: 25 },
      "%1": { left: 51, top: 0, width: 30, height: 5 },
      "%2": { left: 51, top: 6, width: 30, height: 14 },
      "%3": { left: 51, top: 21, width: 30, height: 4 }
    }))
    expect(panesBeside(rects, { pane_id: "%0", side: "right" })).toEqual(["%2", "%1", "%3"])
    expect(panesBeside(rects, { pane_id: "%2", side: "left" })).toEqual(["%0"])
    expect(panesBeside(rects, { pane_id: "%2", side: "above" })).toEqual(["%1"])
    expect(panesBeside(rects, { pane_id: "%2", side: "below" })).toEqual(["%3"])
    // A pane half under two others: both, the larger share first, equal shares top-left first.
    const offset = layoutRects(layoutOf({
      "%4": { left: 0, top: 0, width: 30, height: 10 },
      "%5": { left: 31, top: 0, width: 49, height: 10 },
      "%6": { left: 10, top: 11, width: 70, height: 10 }
    }))
    expect(panesBeside(offset, { pane_id: "%6", side: "above" })).toEqual(["%5", "%4"])
    expect(panesBeside(offset, { pane_id: "%4", side: "below" })).toEqual(["%6"])
  })

  it.effect("list_panes where right_of/below/…: the panes beside, none as an empty page, a missing pane as not_found", () =>
    Effect.gen(function*() {
      // The fake stacks three panes: %0 above %1 above %2.
      const layer = fakeLayer(
        new Map([[socketPathFor(), FakeTmux.server({ sessions: [{ name: "m", windows: [{ panes: [{}, {}, {}] }] }] })]])
      )
      expect(ids(okResult(yield* call(layer, "list_panes", { where: { below: "%0" } })))).toEqual(["%1"])
      expect(ids(okResult(yield* call(layer, "list_panes", { where: { above: "%2" } })))).toEqual(["%1"])
      expect(okResult(yield* call(layer, "list_panes", { where: { right_of: "%1" } }))).toMatchObject({ items: [], total: 0 })
      // With other conditions: all must hold.
      expect(okResult(yield* call(layer, "list_panes", { where: { below: "%0", active: true } })).items).toEqual([])
      expect(errorMeta(yield* call(layer, "list_panes", { where: { left_of: "%9" } })).code).toBe("not_found")
    }))
})
