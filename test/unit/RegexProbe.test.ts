/**
 * RegexProbe (issue 30 item 2): the regular expressions of a wait that follows input are tried on
 * test lines before anything is typed. The usual runaways are refused, naming the pattern; sane
 * patterns pass; and with the request's regex budget nearly spent the probe steps aside rather than
 * refuse a pattern it could not judge (a runaway is then found on the pane's text, after typing).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { REGEX_BUDGET_MS, requestRegexBudget, withRegexBudget } from "../../src/operations/bounds/RegexBudget.js"
import { probeForRunaway } from "../../src/operations/bounds/RegexProbe.js"

const RUNAWAYS = ["^(a+)+$", "(x+x+)+y", "^(\\d|\\d\\d)+$", "a*a*a*a*b", "^(\\w+\\s?)+$", "(.*a){8}x"]
const SANE = ["\\$ $", ">>> $", "^\\s*$", "error|warning", "^\\[\\d+/\\d+\\]", ".*done.*", "(\\d+\\.)+\\d+", "\\bfoo\\b.*\\bbar\\b"]

describe("probeForRunaway", () => {
  for (const pattern of RUNAWAYS) {
    it.effect(`refuses ${pattern}, naming it by its place in the list`, () =>
      Effect.gen(function*() {
        const refused = yield* Effect.flip(withRegexBudget(probeForRunaway({ patterns: ["ok", pattern], regex: true }, "stop_patterns")))
        expect(refused._tag).toBe("InvalidInput")
        expect(refused.reason).toMatch(/^stop_patterns\[1\] backtracks catastrophically/)
        // The caller's pattern is named, never echoed.
        expect(refused.reason).not.toContain(pattern)
      }))
  }

  it.effect("passes sane patterns, with ignore_case too", () =>
    withRegexBudget(Effect.gen(function*() {
      yield* probeForRunaway({ patterns: SANE, regex: true }, "patterns")
      yield* probeForRunaway({ patterns: SANE, regex: true, ignoreCase: true }, "patterns")
    })))

  it.effect("never runs literal patterns", () => probeForRunaway({ patterns: ["^(a+)+$"] }, "patterns"))

  it.effect("steps aside when the request's regex budget is nearly spent", () =>
    withRegexBudget(Effect.gen(function*() {
      const budget = yield* requestRegexBudget
      budget!.spend(REGEX_BUDGET_MS - 10)
      yield* probeForRunaway({ patterns: ["^(a+)+$"], regex: true }, "patterns")
      expect(budget!.available()).toBeLessThan(20)
    })))
})
