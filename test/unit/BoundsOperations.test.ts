/**
 * operations/bounds over FakeTmux: a poll that looks at a pane until it printed something (and
 * only as often as its back-off allows), the clamped timeout a wait is given, and the pages and
 * head-and-tail budgets that keep what the operations read from a big world bounded.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { HeadTail, joinBounded } from "../../src/operations/bounds/OutputBudget.js"
import { paginate } from "../../src/operations/bounds/Paging.js"
import { effectiveTimeout, pollUntil } from "../../src/operations/bounds/Waiting.js"
import { listPanes } from "../../src/operations/hierarchy/Hierarchy.js"
import { capturePane } from "../../src/operations/watching/Capture.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { fakeOperations, socketPathFor } from "../support/fakeWorld.js"

const DEFAULT = socketPathFor()

const world = (panes = 1, lines: Array<string> = []): FakeWorld =>
  new Map([[
    DEFAULT,
    FakeTmux.server({
      sessions: [{ name: "s", windows: [{ height: 200, panes: Array.from({ length: panes }, () => ({ lines: [...lines] })) }] }]
    })
  ]])

describe("pollUntil over a pane", () => {
  it.live("looks again until the pane printed what it waits for, backing off between looks", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      const pane = FakeTmux.pane(w.get(DEFAULT)!, "%0")!.pane
      // The pane prints just before the fifth look (counted, not timed: a loaded machine delays
      // the looks, never their number).
      let looks = 0
      const look = Effect.suspend(() => {
        if (++looks === 5) FakeTmux.print(pane, "ready\r\n")
        return fake.run((socket) => capturePane(socket, "%0", { maxLines: 10, joinWrapped: false }))
      }).pipe(Effect.map((capture) => (capture.content.includes("ready") ? Option.some(capture.lines_total) : Option.none())))
      const { value, elapsedMs } = yield* pollUntil(look, { timeout: { seconds: 5, clamped: false } })
      expect(Option.isSome(value)).toBe(true)
      expect(fake.state.invocations.length).toBe(5)
      // Pauses of 50 ms growing by half (50 + 75 + 112.5 + 168.75): four pauses of 50 ms would be 200.
      expect(elapsedMs).toBeGreaterThanOrEqual(400)
    }))

  it.effect("a wait's timeout is the request under the configured ceiling, and says when it was lowered", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world(), { flags: { waitMaxSeconds: "20" } })
      expect(yield* fake.run(() => effectiveTimeout(5))).toEqual({ seconds: 5, clamped: false })
      expect(yield* fake.run(() => effectiveTimeout(60))).toEqual({ seconds: 20, clamped: true })
      expect(yield* fake.run(() => effectiveTimeout(undefined))).toEqual({ seconds: 10, clamped: false })
    }))
})

describe("pages and budgets over a big world", () => {
  it.effect("pages a listing of many panes, saying more exist", () =>
    Effect.gen(function*() {
      const { items } = yield* fakeOperations(world(60)).run((socket) => listPanes(socket))
      const page = paginate(items, { offset: 50, limit: 20 })
      expect(page).toMatchObject({ total: 60, offset: 50, limit: 20, truncated: false })
      expect(page.items.map((p) => p.pane_id)).toEqual(Array.from({ length: 10 }, (_, i) => `%${50 + i}`))
      expect(paginate(items, {}).truncated).toBe(false)
      expect(paginate(items, { limit: 5 })).toMatchObject({ truncated: true, items: items.slice(0, 5) })
    }))

  it.effect("keeps the head and tail of a long capture, counting what it left out", () =>
    Effect.gen(function*() {
      const lines = Array.from({ length: 150 }, (_, i) => `row ${i}`)
      const capture = yield* fakeOperations(world(1, lines)).run((socket) =>
        capturePane(socket, "%0", { start: "-", maxLines: 1000, joinWrapped: false })
      )
      const budget = new HeadTail(10)
      for (const line of capture.content.split("\n")) budget.push(line)
      const bounded = budget.result()
      expect(bounded).toMatchObject({ lines_total: 150, elided_lines: 140, truncated: true })
      const text = joinBounded(bounded)
      expect(text.startsWith("row 0\n")).toBe(true)
      expect(text.endsWith("row 149")).toBe(true)
    }))
})
