import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { call, fakeLayer, fakeState, socketPathFor } from "../support/fakeWorld.js"
import { errorMeta, okResult } from "../support/runTool.js"

const DEFAULT = socketPathFor()
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`)

/** %0: 30 lines on a 10-row pane (20 in history); %1: two lines and blank screen below; %2: a wrapped line. */
const world = (): FakeWorld =>
  new Map([
    [
      DEFAULT,
      FakeTmux.server({
        sessions: [
          {
            name: "s",
            windows: [
              {
                panes: [
                  { height: 10, lines: numbered(30) },
                  { height: 10, lines: ["$ make   ", "ok"] },
                  { width: 20, height: 5, lines: ["x".repeat(30), "$ "] }
                ]
              }
            ]
          }
        ]
      })
    ]
  ])

describe("capture_pane", () => {
  it.effect("captures the visible screen by default", () =>
    Effect.gen(function*() {
      const capture = okResult(yield* call(fakeLayer(world()), "capture_pane", { pane_id: "%0" }))
      expect(capture).toEqual({
        pane_id: "%0",
        content: numbered(30).slice(20).join("\n"),
        lines_total: 10,
        lines_returned: 10,
        truncated: false,
        truncated_lines: 0
      })
    }))

  it.effect("keeps the newest max_lines lines and says how many were left out", () =>
    Effect.gen(function*() {
      const capture = okResult(yield* call(fakeLayer(world()), "capture_pane", { pane_id: "%0", start: "-", max_lines: 4 }))
      expect(capture).toEqual({
        pane_id: "%0",
        content: "line 27\nline 28\nline 29\nline 30",
        lines_total: 30,
        lines_returned: 4,
        truncated: true,
        truncated_lines: 26
      })
    }))

  it.effect("reaches into history with negative start and end", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      const capture = okResult(yield* call(layer, "capture_pane", { pane_id: "%0", start: -3, end: -1 }))
      expect(capture.content).toBe("line 18\nline 19\nline 20")
      const invocation = (yield* fakeState(layer)).invocations.at(-1)!
      expect(invocation.commands).toEqual([["capture-pane", "-p", "-t", "%0", "-S", "-3", "-E", "-1"]])
    }))

  it.effect("drops trailing blank lines and trailing spaces", () =>
    Effect.gen(function*() {
      const capture = okResult(yield* call(fakeLayer(world()), "capture_pane", { pane_id: "%1" }))
      expect(capture).toMatchObject({ content: "$ make\nok", lines_total: 2, lines_returned: 2, truncated: false })
    }))

  it.effect("joins wrapped lines on request", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      expect(okResult(yield* call(layer, "capture_pane", { pane_id: "%2" })).content).toBe(`${"x".repeat(20)}\n${"x".repeat(10)}\n$`)
      expect(okResult(yield* call(layer, "capture_pane", { pane_id: "%2", join_wrapped: true })).content).toBe(`${"x".repeat(30)}\n$`)
    }))

  it.effect("fails with no_server on a dead socket and not_found for a missing pane", () =>
    Effect.gen(function*() {
      const dead = errorMeta(yield* call(fakeLayer(new Map()), "capture_pane", { pane_id: "%0" }))
      expect(dead.code).toBe("no_server")
      expect(dead.hint).toContain("list_servers")
      const missing = errorMeta(yield* call(fakeLayer(world()), "capture_pane", { pane_id: "%9" }))
      expect(missing.code).toBe("not_found")
      expect(missing.text).toContain("No pane %9 exists")
      expect(missing.hint).toContain("list_panes")
      expect(errorMeta(yield* call(fakeLayer(world()), "capture_pane", { pane_id: "%0", max_lines: 0 })).code).toBe("invalid_input")
    }))
})
