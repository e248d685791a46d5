/**
 * The shared pieces of every wait: the timeout clamped to the ceiling, polling that stops on a value
 * or at the deadline and reports progress, and pattern matching that a hostile regex cannot hang.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as TestClock from "effect/testing/TestClock"
import { loadConfig, TmuxMcpConfig } from "../../src/context/TmuxMcpConfig.js"
import { compileMatcher, REGEX_TIME_BOX_MS } from "../../src/operations/bounds/TextMatcher.js"
import { effectiveTimeout, pollUntil } from "../../src/operations/bounds/Waiting.js"
import { Progress, type ProgressReport } from "../../src/services/Progress.js"

const configWith = (waitMax: string) => {
  const loaded = loadConfig({ env: { LIBTMUX_MCP_WAIT_MAX_SECONDS: waitMax }, flags: {}, uid: 0 })
  if (Result.isFailure(loaded)) throw new Error(loaded.failure.message)
  return TmuxMcpConfig.layer(loaded.success)
}

describe("effectiveTimeout", () => {
  it("keeps a timeout under the ceiling, lowers one above it and says so, and defaults to 10 s or the ceiling", async () => {
    const run = (requested: number | undefined, ceiling: string) =>
      Effect.runPromise(effectiveTimeout(requested).pipe(Effect.provide(configWith(ceiling))))
    expect(await run(5, "30")).toEqual({ seconds: 5, clamped: false })
    expect(await run(100, "30")).toEqual({ seconds: 30, clamped: true })
    expect(await run(undefined, "30")).toEqual({ seconds: 10, clamped: false })
    expect(await run(undefined, "2")).toEqual({ seconds: 2, clamped: false })
  })
})

describe("pollUntil", () => {
  // On TestClock: a loaded machine that stalls the process (past a whole second, or past the
  // deadline) changes neither the number of looks nor the progress counts.
  it.effect("returns the first value a check yields, after the pauses before it", () =>
    Effect.gen(function*() {
      let calls = 0
      const check = Effect.sync(() => (++calls === 3 ? Option.some("found") : Option.none()))
      const fiber = yield* Effect.forkChild(pollUntil(check, { timeout: { seconds: 5, clamped: false } }))
      yield* TestClock.adjust("1 second")
      const result = yield* Fiber.join(fiber)
      expect(Option.getOrNull(result.value)).toBe("found")
      expect(calls).toBe(3)
      expect(result.elapsedMs).toBe(50 + 75)
    }))

  it.effect("gives up at a deadline between two looks after a last look there, reporting progress once a second", () =>
    Effect.gen(function*() {
      const reports: Array<ProgressReport> = []
      const looks: Array<number> = []
      const check = Effect.map(Clock.currentTimeMillis, (now) => (looks.push(now), Option.none<string>()))
      const progress = Layer.succeed(Progress, { report: (report) => Effect.sync(() => void reports.push(report)) })
      const fiber = yield* pollUntil(check, { timeout: { seconds: 2.2, clamped: false }, message: "m" }).pipe(
        Effect.provide(progress),
        Effect.forkChild
      )
      yield* TestClock.adjust("3 seconds")
      const result = yield* Fiber.join(fiber)
      expect(Option.isNone(result.value)).toBe(true)
      expect(result.elapsedMs).toBe(2200)
      // The pause before the last look is cut short so that it lands on the deadline.
      expect(looks).toEqual([0, 50, 125, 237.5, 406.25, 659.375, 1039.0625, 1539.0625, 2039.0625, 2200])
      expect(reports.map((report) => report.progress)).toEqual([1, 2])
      expect(reports[0]).toMatchObject({ total: 2.2, message: "m" })
    }))
})

describe("compileMatcher", () => {
  const matcher = (patterns: ReadonlyArray<string>, options: { regex?: boolean; ignoreCase?: boolean } = {}) =>
    Effect.runPromise(Effect.result(compileMatcher({ patterns, ...options })))

  it("matches literal text, optionally ignoring case, and names the first pattern that matched each line", async () => {
    const literal = await matcher(["b.c", "ERR"])
    if (Result.isFailure(literal)) throw literal.failure
    expect(await Effect.runPromise(literal.success.matchLines(["abc", "a b.c", "err", "ERR here"]))).toEqual([
      { line: 1, pattern: 0 },
      { line: 3, pattern: 1 }
    ])
    const folded = await matcher(["err"], { ignoreCase: true })
    if (Result.isFailure(folded)) throw folded.failure
    expect((await Effect.runPromise(folded.success.matchLines(["ERR"]))).length).toBe(1)
  })

  it("matches regular expressions", async () => {
    const regex = await matcher(["^exit (\\d+)$"], { regex: true })
    if (Result.isFailure(regex)) throw regex.failure
    expect(await Effect.runPromise(regex.success.matchLines(["exit 3", "no exit 3"]))).toEqual([{ line: 0, pattern: 0 }])
  })

  it("refuses empty, too many and invalid patterns by position, without echoing them", async () => {
    const cases: Array<[ReadonlyArray<string>, boolean, string]> = [
      [[], false, "at least one pattern"],
      [[""], false, "patterns[0] is empty"],
      [Array.from({ length: 21 }, (_, i) => `p${i}`), false, "at most 20"],
      [["ok", "(secret"], true, "patterns[1] is not a valid regular expression"]
    ]
    for (const [patterns, regex, message] of cases) {
      const result = await matcher(patterns, { regex })
      expect(Result.isFailure(result)).toBe(true)
      if (Result.isFailure(result)) {
        expect(result.failure.reason).toContain(message)
        expect(result.failure.reason).not.toContain("secret")
      }
    }
  })

  it("stops a catastrophically backtracking regex at its time box with invalid_input", async () => {
    const hostile = await matcher(["^(a+)+$"], { regex: true })
    if (Result.isFailure(hostile)) throw hostile.failure
    const started = performance.now()
    const outcome = await Effect.runPromise(Effect.result(hostile.success.matchLines([`${"a".repeat(40)}!`])))
    expect(Result.isFailure(outcome)).toBe(true)
    if (Result.isFailure(outcome)) expect(outcome.failure.reason).toContain("catastrophic backtracking")
    // Bounded by the time box (a bound, not a timing assertion: the work would take hours).
    expect(performance.now() - started).toBeLessThan(REGEX_TIME_BOX_MS * 20)
  })
})
