/**
 * Issue 21 item 9: a runaway regex is stopped, but it blocks the event loop while it runs, so the
 * time regular expressions may run is a budget of the whole request, not of each match: a
 * run_batch of 32 runaway filters blocks the loop about once, not 32 times.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { REGEX_BUDGET_MS, withRegexBudget } from "../../src/operations/bounds/RegexBudget.js"
import { compileMatcher } from "../../src/operations/bounds/TextMatcher.js"
import { FakeTmux } from "../../src/testing/FakeTmux.js"
import { call, fakeLayer, socketPathFor } from "../support/fakeWorld.js"
import { okResult } from "../support/runTool.js"

/** Backtracks for hours on the session name below (2^40 ways to split the a's). */
const RUNAWAY = "^(a+)+$"
const HOSTILE_NAME = `${"a".repeat(40)}!`

/**
 * Runs `work` while a 5 ms timer in this process measures how long the event loop could not run
 * it (the sum of every tick's lateness past 20 ms), and the CPU time the process spent meanwhile
 * (which, unlike the timer, a loaded machine does not inflate).
 */
const loopBlockedDuring = async <A>(
  work: () => Promise<A>
): Promise<{ readonly value: A; readonly blockedMs: number; readonly cpuMs: number }> => {
  const cpu = process.cpuUsage()
  let last = performance.now()
  let blockedMs = 0
  const timer = setInterval(() => {
    const now = performance.now()
    if (now - last > 20) blockedMs += now - last - 5
    last = now
  }, 5)
  try {
    const value = await work()
    const now = performance.now()
    if (now - last > 20) blockedMs += now - last - 5
    const spent = process.cpuUsage(cpu)
    return { value, blockedMs, cpuMs: (spent.user + spent.system) / 1000 }
  } finally {
    clearInterval(timer)
  }
}

describe("the regex budget of a request", () => {
  it("a run_batch of 32 runaway where filters answers, each a clear invalid_input naming the budget, the loop blocked ~once", async () => {
    const layer = fakeLayer(new Map([[socketPathFor(), FakeTmux.server({ sessions: [{ name: HOSTILE_NAME }] })]]))
    const batchOf = (where: Record<string, unknown>) => () =>
      Effect.runPromise(
        call(layer, "run_batch", {
          operations: Array.from({ length: 32 }, () => ({ tool: "list_sessions", arguments: { where } })),
          stop_on_error: false
        })
      )
    // Over FakeTmux the whole batch runs without a pause: what the loop loses besides the regexes is measured first.
    await batchOf({ session_name: "zz" })()
    const baseline = await loopBlockedDuring(batchOf({ session_name: "zz" }))
    const { blockedMs, cpuMs, value } = await loopBlockedDuring(batchOf({ session_name: RUNAWAY, regex: true }))
    // One budget for the whole call, not one per operation: 32 * 250 ms before (about 8 s of both).
    // About 260 ms on a quiet machine; on a loaded one the timer is late for other reasons too, so
    // its bound is loose and the CPU time the process spent is the tight one.
    expect(cpuMs - baseline.cpuMs).toBeLessThan(2 * REGEX_BUDGET_MS)
    expect(blockedMs - baseline.blockedMs).toBeLessThan(8 * REGEX_BUDGET_MS)
    const ran = okResult(value)
    expect(ran.results).toHaveLength(32)
    for (const result of ran.results) {
      expect(result.ok).toBe(false)
      expect(result.error.code).toBe("invalid_input")
      expect(result.error.message).toContain(`${REGEX_BUDGET_MS} ms`)
      expect(result.error.message).toContain("where.session_name")
      expect(result.error.message).toContain("budget")
    }
  })

  it("matchers of one request share it, nested requests included; a fresh request starts full", async () => {
    const runaway = () => Effect.runPromise(compileMatcher({ patterns: [RUNAWAY], regex: true }))
    const matchers = await Promise.all(Array.from({ length: 8 }, runaway))
    const first = matchers[0]!
    const allInOneRequest = withRegexBudget(Effect.all(matchers.map((matcher) => Effect.result(matcher.matchLines([HOSTILE_NAME])))))
    const all = await loopBlockedDuring(() => Effect.runPromise(allInOneRequest))
    expect(all.value.every(Result.isFailure)).toBe(true)
    // Eight time boxes before, one budget now.
    expect(all.cpuMs).toBeLessThan(2 * REGEX_BUDGET_MS)
    expect(all.blockedMs).toBeLessThan(5 * REGEX_BUDGET_MS)

    // A later request is not charged for an earlier one (a spent budget would refuse to run at all).
    const sane = await Effect.runPromise(withRegexBudget(first.matchLines(["aaa", "b"])))
    expect(sane).toEqual([{ line: 0, pattern: 0 }])

    // Nested: the inner request is the outer one (run_batch's operations are calls of their own).
    const nested = await loopBlockedDuring(() =>
      Effect.runPromise(
        withRegexBudget(
          Effect.all(matchers.map((matcher) => withRegexBudget(Effect.result(matcher.matchLines([HOSTILE_NAME])))))
        )
      )
    )
    expect(nested.cpuMs).toBeLessThan(2 * REGEX_BUDGET_MS)
    expect(nested.blockedMs).toBeLessThan(5 * REGEX_BUDGET_MS)
  })
})
