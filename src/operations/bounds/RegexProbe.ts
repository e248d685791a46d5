/**
 * Finding a runaway regular expression before it meets real text. A tool that types and then waits
 * (send_keys with `wait`) would otherwise find it only on the program's answer, after the keys were
 * sent. Each pattern runs, time-boxed, on test lines built to make backtracking explode: one
 * character, repeated as a screen row may show it, then one that may end the match. That finds the
 * usual culprits, nested or overlapping quantifiers (`(a+)+$`, `(\d|\d\d)+$`, `(x+x+)+y`,
 * `a*a*a*a*b`), in about a millisecond for a sane pattern. It cannot find every runaway (one may
 * need text of a shape only the screen has, such as a prefix it must see first), so a caller still
 * handles one found later.
 */
import * as Effect from "effect/Effect"
import { InvalidInput } from "../../domain/Errors.js"
import { requestRegexBudget } from "./RegexBudget.js"
import { compileMatcher, type PatternSpec } from "./TextMatcher.js"

/** How long a test line is: a wide screen's row, where a polynomial blow-up shows too. */
const TEST_LINE_LENGTH = 256
/** Characters repeated besides the pattern's own: a letter, a digit, spaces, word and path punctuation. */
const COMMON_CHARACTERS = ["a", "A", "0", " ", "_", "-", ".", "/", ":"]
/** The pattern's own characters tried at most (a long pattern of many distinct ones is cut here). */
const MAX_OWN_CHARACTERS = 16
/** What follows the repetition: a character few classes take, and one most punctuation classes do. */
const ENDINGS = ["\u0001", "!"]
/**
 * How long one pattern's test lines may take: a sane pattern needs a few milliseconds at most. Less
 * than half of it left of the request's regex budget is too little to tell a runaway from a slow
 * pattern, and the probe is skipped (a runaway is then found on the pane's text).
 */
const PROBE_TIME_BOX_MS = 100

/** The test lines for one pattern: each of its characters and the common ones, repeated, then each ending. */
const testLines = (pattern: string): ReadonlyArray<string> => {
  const own = [...new Set(pattern)].slice(0, MAX_OWN_CHARACTERS)
  const characters = [...new Set([...COMMON_CHARACTERS, ...own])]
  return characters.flatMap((character) => ENDINGS.map((ending) => character.repeat(TEST_LINE_LENGTH) + ending))
}

/**
 * Runs each regular expression of `spec` on its test lines, charged to the request's regex budget;
 * one that runs over is InvalidInput naming it (`argument[i]`). Literal patterns cannot run away.
 */
export const probeForRunaway = (spec: PatternSpec, argument: string): Effect.Effect<void, InvalidInput> =>
  spec.regex !== true ? Effect.void : Effect.forEach(spec.patterns, (pattern, index) =>
    Effect.gen(function*() {
      const matcher = yield* compileMatcher({ patterns: [pattern], regex: true, ignoreCase: spec.ignoreCase })
      const budget = yield* requestRegexBudget
      const allowed = Math.min(PROBE_TIME_BOX_MS, budget?.available() ?? PROBE_TIME_BOX_MS)
      if (allowed < PROBE_TIME_BOX_MS / 2) return
      const started = performance.now()
      const found = matcher.matchBatch(testLines(pattern), allowed)
      budget?.spend(performance.now() - started)
      if (found === "ran_over") {
        return yield* Effect.fail(
          new InvalidInput({
            reason:
              `${argument}[${index}] backtracks catastrophically: it ran over ${PROBE_TIME_BOX_MS} ms on a test line (one character repeated ${TEST_LINE_LENGTH} times, as a screen row may show). Simplify it (no nested or overlapping quantifiers such as (a+)+) or use literal patterns.`
          })
        )
      }
    }), { discard: true })
