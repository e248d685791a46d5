/**
 * A pane's placements (issue 31 item 5, seed 004's pane view): the session/window indexes its window
 * is reachable through, bounded, said complete or not: fields that `fields` names in split_window and
 * list_panes (read in the pane's own invocation, only when asked for), and in get_pane_info's every field.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import {
  linksByWindow,
  MAX_PLACEMENT_NAME_CHARS,
  MAX_PLACEMENTS,
  placementsOf,
  type WindowLink
} from "../../src/operations/hierarchy/Placements.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { call, callerEnv, fakeLayer, fakeState, socketPathFor } from "../support/fakeWorld.js"
import { okResult } from "../support/runTool.js"

const DEFAULT = socketPathFor()
const PID = 4242

/** "main" ($0) holds @0 (%0); `links` more sessions ($1…) each link @0 in at index 7. */
const linkedWorld = (links: number, name = (i: number) => `s${i}`): FakeWorld =>
  new Map([[
    DEFAULT,
    FakeTmux.server({
      pid: PID,
      sessions: [
        { name: "main", windows: [{ name: "edit" }] },
        ...Array.from({ length: links }, (_, i) => ({ name: name(i + 1), windows: [{ link: "@0", index: 7 }] }))
      ],
      clients: [{ session: "main" }]
    })
  ]])

const link = (session: number, index: number, name = `s${session}`): WindowLink => ({
  window_id: "@0",
  session_id: `$${session}`,
  session_name: name,
  window_index: index
})

describe("placementsOf", () => {
  it("is the pane's own link when its window is linked nowhere else", () => {
    expect(placementsOf(link(3, 2, "own"), linksByWindow([{ ...link(1, 0), window_id: "@9" }]))).toEqual({
      placements: [{ session_id: "$3", session_name: "own", window_index: 2 }],
      placements_complete: true
    })
  })

  it("orders a linked window's links by session id (numerically) then index, and cuts them at the bound", () => {
    const links = Array.from({ length: MAX_PLACEMENTS + 2 }, (_, i) => link(MAX_PLACEMENTS + 1 - i, i))
    const placed = placementsOf(link(0, 0), linksByWindow(links))
    expect(placed.placements).toHaveLength(MAX_PLACEMENTS)
    expect(placed.placements_complete).toBe(false)
    expect(placed.placements.map((p) => p.session_id)).toEqual(Array.from({ length: MAX_PLACEMENTS }, (_, i) => `$${i}`))
    const exactly = placementsOf(link(0, 0), linksByWindow(links.slice(0, MAX_PLACEMENTS)))
    expect(exactly.placements).toHaveLength(MAX_PLACEMENTS)
    expect(exactly.placements_complete).toBe(true)
  })

  it("cuts a long session name at the bound, by characters, and says so", () => {
    const long = "é".repeat(MAX_PLACEMENT_NAME_CHARS) + "🙂tail"
    const [placement] = placementsOf(link(0, 0, long), new Map()).placements
    expect(placement!.session_name).toBe(`${"é".repeat(MAX_PLACEMENT_NAME_CHARS)}…`)
    const fits = "🙂".repeat(MAX_PLACEMENT_NAME_CHARS)
    expect(placementsOf(link(0, 0, fits), new Map()).placements[0]!.session_name).toBe(fits)
  })
})

describe("placements as fields of the pane tools (FakeTmux)", () => {
  it.effect("split_window: fields \"all\" carries placements, is_caller, is_attended and the size; the default none", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(linkedWorld(1), { env: callerEnv(DEFAULT, PID, "%0") })
      const all = okResult(yield* call(layer, "split_window", { pane_id: "%0", fields: "all" }))
      expect(all.pane).toMatchObject({
        pane_id: "%1",
        window_id: "@0",
        is_caller: false,
        // main's client shows @0, unzoomed.
        is_attended: true,
        width: expect.any(Number),
        height: expect.any(Number),
        placements: [{ session_id: "$0", session_name: "main", window_index: 0 }, {
          session_id: "$1",
          session_name: "s1",
          window_index: 7
        }],
        placements_complete: true
      })
      const lean = okResult(yield* call(layer, "split_window", { pane_id: "%0" }))
      expect(lean.pane).not.toHaveProperty("placements")
      expect(lean.pane).not.toHaveProperty("placements_complete")
      const named = okResult(yield* call(layer, "split_window", { pane_id: "%0", fields: ["placements_complete"] }))
      expect(named.pane).toEqual({ pane_id: "%3", placements_complete: true })
    }))

  it.effect("get_pane_info: every field, the placements too, with variables in the same invocation", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(linkedWorld(MAX_PLACEMENTS))
      const before = (yield* fakeState(layer)).invocations.length
      const info = okResult(yield* call(layer, "get_pane_info", { pane_id: "%0", variables: ["pane_id"] }))
      expect((yield* fakeState(layer)).invocations.length - before).toBe(1)
      expect(info).toMatchObject({
        pane_id: "%0",
        cwd: "/home/fake",
        is_attended: true,
        placements_complete: false,
        variables: { pane_id: "%0" }
      })
      expect(info.placements).toHaveLength(MAX_PLACEMENTS)
    }))

  it.effect("list_panes: as many placements as sessions up to the bound, complete exactly at it", () =>
    Effect.gen(function*() {
      const at = okResult(
        yield* call(fakeLayer(linkedWorld(MAX_PLACEMENTS - 1)), "list_panes", { fields: ["placements", "placements_complete"] })
      )
      expect(at.items).toEqual([expect.objectContaining({ pane_id: "%0", placements_complete: true })])
      expect(at.items[0].placements).toHaveLength(MAX_PLACEMENTS)
      const over = okResult(yield* call(fakeLayer(linkedWorld(MAX_PLACEMENTS)), "list_panes", { fields: ["placements_complete"] }))
      expect(over.items).toEqual([{ pane_id: "%0", placements_complete: false }])
    }))

  it.effect("escapes control characters of a session name on the wire", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(linkedWorld(1, () => "evil\x1b]52;c;aGk=\x07"))
      const page = okResult(yield* call(layer, "list_panes", { fields: ["placements"] }))
      expect(page.items[0].placements[1]).toEqual({ session_id: "$1", session_name: "evil\\x1b]52;c;aGk=\\x07", window_index: 7 })
    }))
})
