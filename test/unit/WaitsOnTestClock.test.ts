/**
 * Waits take their time from `Clock` (issue 11), so TestClock drives them: no test sleeps, and the
 * numbers a wait reports are exact. Unit tests only: integration tests keep real time (it.live).
 * The operation-level wait runs over PaneGridTmux, which models what wait_for_text reads (FakeTmux
 * does not model a pane's cursor).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as TestClock from "effect/testing/TestClock"
import type { ResolvedSocket } from "../../src/context/SocketResolver.js"
import { pollUntil } from "../../src/operations/bounds/Waiting.js"
import { waitForText } from "../../src/operations/watching/TextWait.js"
import { Progress, type ProgressReport } from "../../src/services/Progress.js"
import { PaneGrid } from "../support/PaneGrid.js"
import { GRID_PANE_ID, paneGridTmux } from "../support/PaneGridTmux.js"

const recordingProgress = (reports: Array<ProgressReport>) => ({
  report: (report: ProgressReport) => Effect.sync(() => void reports.push(report))
})

describe("pollUntil on TestClock", () => {
  it.effect("gives up exactly at the deadline after a last look, with progress once a second", () =>
    Effect.gen(function*() {
      const reports: Array<ProgressReport> = []
      const looks: Array<number> = []
      const check = Effect.map(Clock.currentTimeMillis, (now) => (looks.push(now), Option.none<string>()))
      const fiber = yield* pollUntil(check, { timeout: { seconds: 3, clamped: false }, message: "waiting" }).pipe(
        Effect.provideService(Progress, recordingProgress(reports)),
        Effect.forkChild
      )
      yield* TestClock.adjust("3 seconds")
      const result = yield* Fiber.join(fiber)
      expect(Option.isNone(result.value)).toBe(true)
      expect(result.elapsedMs).toBe(3000)
      // Fast first (50 ms, growing by half), then every 500 ms, and a last look at the deadline.
      expect(looks.slice(0, 4)).toEqual([0, 50, 125, 237.5])
      expect(looks.at(-1)).toBe(3000)
      expect(looks.slice(1).map((at, index) => at - looks[index]!).every((gap) => gap > 0 && gap <= 500)).toBe(true)
      expect(reports).toEqual([
        { progress: 1, total: 3, message: "waiting" },
        { progress: 2, total: 3, message: "waiting" }
      ])
    }))

  it.effect("ends at the first look that finds the value, and not before the time has passed", () =>
    Effect.gen(function*() {
      const check = Effect.map(Clock.currentTimeMillis, (now) => (now >= 1200 ? Option.some(now) : Option.none()))
      const fiber = yield* Effect.forkChild(pollUntil(check, { timeout: { seconds: 10, clamped: false } }))
      yield* TestClock.adjust("1 second")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(fiber)
      expect(Option.getOrThrow(result.value)).toBe(result.elapsedMs)
      expect(result.elapsedMs).toBeGreaterThanOrEqual(1200)
      expect(result.elapsedMs).toBeLessThanOrEqual(1700)
    }))
})

describe("wait_for_text on TestClock, over a modelled pane", () => {
  // PaneGridTmux: a pane of tmux 3.3a's history model (test/support/PaneGrid.ts, checked against real tmux).
  const socket: ResolvedSocket = {
    name: null,
    path: "/tmp/tmux-0/grid",
    rule: "socket_path argument",
    flags: ["-S", "/tmp/tmux-0/grid"],
    label: "/tmp/tmux-0/grid"
  }
  const request = { patterns: ["BUILD DONE"], timeout: { seconds: 5, clamped: false }, maxLines: 10 }

  it.effect("times out after exactly the effective timeout, having looked at the pane until then", () =>
    Effect.gen(function*() {
      const grid = new PaneGrid({ width: 40, height: 5, historyLimit: 100 })
      grid.write("$ make\r\n")
      let looks = 0
      const fiber = yield* Effect.forkChild(
        waitForText(socket, GRID_PANE_ID, request).pipe(Effect.provide(paneGridTmux(grid, () => void looks++)))
      )
      yield* TestClock.adjust("4 seconds")
      expect(fiber.pollUnsafe()).toBeUndefined()
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(fiber)
      expect(result).toMatchObject({
        outcome: "timeout",
        elapsed_ms: 5000,
        effective_timeout: 5,
        timeout_clamped: false,
        matched_lines: []
      })
      expect(looks).toBeGreaterThan(10)
    }))

  it.effect("matches text printed while it waits, at the next look after it appeared", () =>
    Effect.gen(function*() {
      const grid = new PaneGrid({ width: 40, height: 5, historyLimit: 100 })
      grid.write("$ make\r\n")
      const clock = yield* Clock.Clock
      let printed = false
      const printAt2500 = () => {
        if (!printed && clock.currentTimeMillisUnsafe() >= 2500) {
          printed = true
          grid.write("BUILD DONE\r\n")
        }
      }
      const fiber = yield* Effect.forkChild(
        waitForText(socket, GRID_PANE_ID, request).pipe(Effect.provide(paneGridTmux(grid, printAt2500)))
      )
      yield* TestClock.adjust("5 seconds")
      const result = yield* Fiber.join(fiber)
      expect(result.outcome).toBe("matched")
      expect(result.matched_lines).toEqual([{ text: "BUILD DONE", pattern_index: 0 }])
      expect(result.elapsed_ms).toBeGreaterThanOrEqual(2500)
      expect(result.elapsed_ms).toBeLessThanOrEqual(3000)
    }))
})
