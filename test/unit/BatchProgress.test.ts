/**
 * Issue 21 item 6: run_batch's operations report progress under the batch's one progressToken, and
 * MCP requires that progress to increase over the whole call: each operation's count (from 1)
 * continues from where the operation before it stopped.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as TestClock from "effect/testing/TestClock"
import { Progress, type ProgressReport } from "../../src/services/Progress.js"
import { FakeTmux } from "../../src/testing/FakeTmux.js"
import { call, fakeLayer, socketPathFor } from "../support/fakeWorld.js"
import { okResult } from "../support/runTool.js"

const live = () =>
  new Map([[socketPathFor(), FakeTmux.server({ sessions: [{ name: "main", windows: [{ panes: [{ lines: ["hello"] }] }] }] })]])

describe("run_batch progress", () => {
  it.effect("increases strictly over the whole batch, one wait after another", () =>
    Effect.gen(function*() {
      const reports: Array<ProgressReport> = []
      const wait = { tool: "wait_for_text", arguments: { pane_id: "%0", patterns: ["never-printed"], timeout: 3 } }
      const fiber = yield* call(fakeLayer(live()), "run_batch", { operations: [wait, wait] }).pipe(
        Effect.provideService(Progress, { report: (report) => Effect.sync(() => void reports.push(report)) }),
        Effect.forkChild
      )
      yield* TestClock.adjust("10 seconds")
      const ran = okResult(yield* Fiber.join(fiber))
      expect(ran.results.map((result: { ok: boolean }) => result.ok)).toEqual([true, true])
      const progress = reports.map((report) => report.progress)
      // Each wait alone reports 1, 2 (then ends at its 3 s deadline).
      expect(progress).toEqual([1, 2, 3, 4])
      expect(reports.every((report) => report.total === undefined)).toBe(true)
    }))
})
