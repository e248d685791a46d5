/**
 * operations/layout over FakeTmux: renames and titles (checked, literalized, stored exactly),
 * selection, layouts, sizes and zoom, swaps and moves, each read back in the round trip that made
 * the change, and the refusals.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { getWindow } from "../../src/operations/hierarchy/Hierarchy.js"
import {
  moveWindow,
  renameSession,
  renameWindow,
  resizePane,
  resizeWindow,
  selectLayout,
  selectPane,
  selectWindow,
  setPaneTitle,
  swapPanes,
  zoomPane
} from "../../src/operations/layout/Shape.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { fakeOperations, socketPathFor } from "../support/fakeWorld.js"

const DEFAULT = socketPathFor()

/** $0 main: @0 (%0 above %1), @1 (%2), @2 (%3); $1 side: @3 (%4). */
const world = (): FakeWorld =>
  new Map([
    [
      DEFAULT,
      FakeTmux.server({
        sessions: [
          { name: "main", windows: [{ name: "edit", panes: [{}, {}] }, { name: "logs" }, { name: "misc" }] },
          { name: "side", windows: [{ name: "other" }] }
        ]
      })
    ]
  ])

const serverOf = (w: FakeWorld) => w.get(DEFAULT)!

describe("names and titles", () => {
  it.effect("renames a session and a window, with # stored as typed (never run as a format)", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => renameSession(socket, "$1", "#(reboot) build"))).toMatchObject({
        session_id: "$1",
        session_name: "#(reboot) build"
      })
      expect(yield* fake.run((socket) => renameWindow(socket, "@1", "tail #{pane_id}"))).toMatchObject({
        window_id: "@1",
        window_name: "tail #{pane_id}"
      })
      expect(serverOf(w).sessions[1]!.name).toBe("#(reboot) build")
      expect(serverOf(w).windows.get("@1")!.name).toBe("tail #{pane_id}")
      expect(fake.state.invocations).toHaveLength(2)
    }))

  it.effect("refuses a name tmux would store differently before sending anything, and a taken session name", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      for (const name of ["a.b", "tab\there", "", "$HOME"]) {
        expect(yield* Effect.flip(fake.run((socket) => renameSession(socket, "$0", name)))).toMatchObject({ _tag: "InvalidInput" })
      }
      expect(fake.state.invocations).toEqual([])
      expect(yield* Effect.flip(fake.run((socket) => renameSession(socket, "$0", "side")))).toMatchObject({
        _tag: "Failed",
        stderr: "duplicate session: side"
      })
      expect(yield* Effect.flip(fake.run((socket) => renameWindow(socket, "@9", "x")))).toMatchObject({
        _tag: "NotFound",
        kind: "window",
        target: "@9"
      })
    }))

  it.effect("sets a pane title, refusing one tmux would ignore", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => setPaneTitle(socket, "%2", "## tail"))).toMatchObject({ pane_id: "%2", title: "## tail" })
      expect(FakeTmux.pane(serverOf(w), "%2")!.pane.title).toBe("## tail")
      expect(yield* Effect.flip(fake.run((socket) => setPaneTitle(socket, "%2", "bell\x07")))).toMatchObject({ _tag: "InvalidInput" })
    }))
})

describe("selection", () => {
  it.effect("selects a window by id, or the next, previous and last one of a session", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => selectWindow(socket, { window_id: "@2" }))).toMatchObject({ window_id: "@2", active: true })
      expect(yield* fake.run((socket) => selectWindow(socket, { session_id: "$0", direction: "next" }))).toMatchObject({
        window_id: "@0",
        active: true
      })
      expect(yield* fake.run((socket) => selectWindow(socket, { session_id: "$0", direction: "previous" }))).toMatchObject({
        window_id: "@2"
      })
      expect(yield* fake.run((socket) => selectWindow(socket, { session_id: "$0", direction: "last" }))).toMatchObject({ window_id: "@0" })
      expect(serverOf(w).sessions[0]!.current).toBe(0)
      // A session of one window has no next one.
      expect(yield* Effect.flip(fake.run((socket) => selectWindow(socket, { session_id: "$1", direction: "next" })))).toMatchObject({
        _tag: "Failed",
        stderr: "no next window"
      })
    }))

  it.effect("selects a pane by id or direction, next and previous wrapping, without switching the window", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => selectPane(socket, { window_id: "@0", direction: "down" }))).toMatchObject({
        pane_id: "%1",
        active: true
      })
      expect(yield* fake.run((socket) => selectPane(socket, { window_id: "@0", direction: "next" }))).toMatchObject({ pane_id: "%0" })
      expect(yield* fake.run((socket) => selectPane(socket, { window_id: "@0", direction: "previous" }))).toMatchObject({ pane_id: "%1" })
      expect(yield* fake.run((socket) => selectPane(socket, { window_id: "@0", direction: "last" }))).toMatchObject({ pane_id: "%0" })
      expect(yield* fake.run((socket) => selectPane(socket, { pane_id: "%1" }))).toMatchObject({ pane_id: "%1", active: true })
      expect(serverOf(w).windows.get("@0")!.activePane).toBe("%1")
      expect(serverOf(w).sessions[0]!.current).toBe(0)
      expect(yield* Effect.flip(fake.run((socket) => selectPane(socket, { pane_id: "%9" })))).toMatchObject({
        _tag: "NotFound",
        kind: "pane"
      })
    }))
})

describe("layout, size and zoom", () => {
  it.effect("applies a named layout, and a layout string read from a window", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      const before = (yield* fake.run((socket) => getWindow(socket, "@0"))).layout
      const side = yield* fake.run((socket) => selectLayout(socket, "@0", "even-horizontal"))
      expect(side.layout).toMatch(/^[0-9a-f]{4},80x24,0,0\{39x24,0,0,0,40x24,40,0,1\}$/)
      expect(FakeTmux.pane(serverOf(w), "%1")!.pane).toMatchObject({ left: 40, width: 40, height: 24 })
      expect((yield* fake.run((socket) => selectLayout(socket, "@0", before))).layout).toBe(before)
    }))

  it.effect("refuses a layout that is neither a name nor a string for this window", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      expect(yield* Effect.flip(fake.run((socket) => selectLayout(socket, "@0", "spiral")))).toMatchObject({ _tag: "InvalidInput" })
      expect(fake.state.invocations).toEqual([])
      const other = (yield* fake.run((socket) => getWindow(socket, "@1"))).layout
      // A one-pane layout (with a valid checksum) does not fit a window of two panes.
      expect(yield* Effect.flip(fake.run((socket) => selectLayout(socket, "@0", other)))).toMatchObject({ _tag: "InvalidInput" })
      expect(yield* Effect.flip(fake.run((socket) => selectLayout(socket, "@0", "ffff,80x24,0,0,0")))).toMatchObject({
        _tag: "InvalidInput"
      })
    }))

  it.effect("resizes a pane, the neighbour giving the difference, and says whether anything changed", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      const grown = yield* fake.run((socket) => resizePane(socket, "%0", { height: 15 }))
      expect(grown).toMatchObject({ pane_id: "%0", height: 15, changed: true, window_zoomed: false })
      expect(FakeTmux.pane(serverOf(w), "%1")!.pane).toMatchObject({ top: 16, height: 8 })
      expect((yield* fake.run((socket) => resizePane(socket, "%0", { height: 15 }))).changed).toBe(false)
      // Alone in its window, a pane keeps the window's size.
      expect(yield* fake.run((socket) => resizePane(socket, "%2", { width: 20 }))).toMatchObject({ width: 80, changed: false })
      expect(yield* Effect.flip(fake.run((socket) => resizePane(socket, "%0", {})))).toMatchObject({ _tag: "InvalidInput" })
    }))

  it.effect("zooms idempotently (tmux's -Z toggles), and refuses a pane alone in its window", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => zoomPane(socket, "%1", true))).toMatchObject({
        pane_id: "%1",
        window_zoomed: true,
        width: 80,
        height: 24,
        changed: true
      })
      expect((yield* fake.run((socket) => zoomPane(socket, "%1", true))).changed).toBe(false)
      // Zooming the other pane of a zoomed window zooms that one instead.
      expect(yield* fake.run((socket) => zoomPane(socket, "%0", true))).toMatchObject({
        pane_id: "%0",
        window_zoomed: true,
        height: 24,
        active: true
      })
      expect(yield* fake.run((socket) => zoomPane(socket, "%0", false))).toMatchObject({ window_zoomed: false, height: 11, changed: true })
      expect(serverOf(w).windows.get("@0")!.zoomed).toBe(false)
      expect(yield* Effect.flip(fake.run((socket) => zoomPane(socket, "%2", true)))).toMatchObject({ _tag: "InvalidInput" })
    }))

  it.effect("resizes a window and fixes its size (window-size manual)", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => resizeWindow(socket, "@0", { width: 100, height: 30 }))).toMatchObject({
        window_id: "@0",
        width: 100,
        height: 30
      })
      expect(serverOf(w).windows.get("@0")!.options?.get("window-size")).toBe("manual")
      expect(FakeTmux.pane(serverOf(w), "%1")!.pane.width).toBe(100)
      expect(yield* Effect.flip(fake.run((socket) => resizeWindow(socket, "@0", { width: 0 })))).toMatchObject({
        _tag: "Failed",
        stderr: "width too small"
      })
      expect(yield* Effect.flip(fake.run((socket) => resizeWindow(socket, "@0", {})))).toMatchObject({ _tag: "InvalidInput" })
    }))
})

describe("swaps and moves", () => {
  it.effect("swaps two panes across windows, focus staying in place", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      const { source, target } = yield* fake.run((socket) => swapPanes(socket, "%0", "%2"))
      expect(source).toMatchObject({ pane_id: "%0", window_id: "@1", active: true, width: 80, height: 24 })
      expect(target).toMatchObject({ pane_id: "%2", window_id: "@0", active: true, height: 11 })
      expect(serverOf(w).windows.get("@0")!.panes.map((p) => p.id)).toEqual(["%2", "%1"])
      expect(yield* Effect.flip(fake.run((socket) => swapPanes(socket, "%1", "%1")))).toMatchObject({ _tag: "InvalidInput" })
      expect(yield* Effect.flip(fake.run((socket) => swapPanes(socket, "%9", "%1")))).toMatchObject({
        _tag: "NotFound",
        kind: "pane",
        target: "%9"
      })
    }))

  it.effect("moves a window to another session, saying where it was and whether its session closed", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      const moved = yield* fake.run((socket) => moveWindow(socket, "@1", { session_id: "$1" }))
      expect(moved).toMatchObject({
        window_id: "@1",
        session_id: "$1",
        window_index: 1,
        active: false,
        moved_from: { session_id: "$0", window_index: 1 },
        source_session_closed: false
      })
      const last = yield* fake.run((socket) => moveWindow(socket, "@3", { session_id: "$0", index: 5 }))
      expect(last).toMatchObject({ window_index: 5, moved_from: { session_id: "$1", window_index: 0 }, source_session_closed: false })
      const closing = yield* fake.run((socket) => moveWindow(socket, "@1", { session_id: "$0" }))
      expect(closing).toMatchObject({ window_index: 1, source_session_closed: true })
      expect(serverOf(w).sessions.map((s) => s.name)).toEqual(["main"])
      expect(yield* Effect.flip(fake.run((socket) => moveWindow(socket, "@0", { session_id: "$0", index: 5 })))).toMatchObject({
        _tag: "Failed",
        stderr: "index in use: 5"
      })
      expect(yield* Effect.flip(fake.run((socket) => moveWindow(socket, "@9", { session_id: "$0" })))).toMatchObject({
        _tag: "NotFound",
        kind: "window"
      })
    }))
})
