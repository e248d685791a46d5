/**
 * Finding caller-given patterns in pane text without letting a hostile pattern hang the server.
 * Literal patterns are plain substring searches. Regular expressions run inside a `vm` script with
 * a time box: V8 interrupts even a catastrophically backtracking expression there, and the caller
 * gets an InvalidInput saying to simplify the pattern. Inside a request the time box is what is left
 * of the request's RegexBudget, so many matches cannot add up to a long freeze. One script run covers
 * a whole batch of lines, so the time box costs about half a millisecond per batch, not per line.
 */
import * as Effect from "effect/Effect"
import * as vm from "node:vm"
import { InvalidInput } from "../../domain/Errors.js"
import { REGEX_BUDGET_MS, requestRegexBudget } from "./RegexBudget.js"

export const MAX_PATTERNS = 20
export const MAX_PATTERN_LENGTH = 4096
/** How long one batch of regular-expression matching may run outside a request (inside one, its budget rules). */
export const REGEX_TIME_BOX_MS = REGEX_BUDGET_MS
/** A stopped run that used less CPU than this share of its wall time was starved, not runaway. */
const STARVED_CPU_SHARE = 0.5
/** Less than this left of a request's budget is none: a run is not started for it. */
const LEAST_RUN_MS = 1

/** Patterns to match lines against: literal substrings, or regular expressions run with a time box. */
export interface PatternSpec {
  readonly patterns: ReadonlyArray<string>
  readonly regex?: boolean | undefined
  readonly ignoreCase?: boolean | undefined
}

/** Where a pattern matched: the line's index in the batch and the first pattern that matched it. */
export interface LineMatch {
  readonly line: number
  readonly pattern: number
}

export interface Matcher {
  /** Every line of `lines` that some pattern matches, in order; fails when a regex exceeds the time box. */
  readonly matchLines: (lines: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<LineMatch>, InvalidInput>
  /**
   * The same, at once, outside any request's budget: a regex may run `allowedMs` (then "ran_over").
   * For a caller that stops matching after the first "ran_over" (a long command's output, matched as it is read).
   */
  readonly matchBatch: (lines: ReadonlyArray<string>, allowedMs: number) => ReadonlyArray<LineMatch> | "ran_over"
}

/**
 * The loop is a function defined once in each matcher's context: a script's top-level code would
 * read `lines` and `regexes` as properties of the contextified global at every step, which costs
 * about twenty times the matching itself (2 µs a line against 0.1).
 */
const DEFINE_MATCH_ALL = new vm.Script(`
  var matchAll = function (lines, regexes) {
    const out = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      for (let p = 0; p < regexes.length; p++) {
        regexes[p].lastIndex = 0;
        if (regexes[p].test(line)) { out.push(i, p); break; }
      }
    }
    return out;
  };
`)
const MATCH_SCRIPT = new vm.Script("out = matchAll(lines, regexes)")

/** Checks and compiles the patterns; a bad one is named by its position, never echoed. */
/**
 * How errors name what was given: the argument (`patterns`; a single condition's field, then named
 * without an index) and what the patterns run on.
 */
export interface MatcherNames {
  readonly argument: string
  readonly single?: boolean
  readonly subject?: string
}

export const compileMatcher = (
  spec: PatternSpec,
  names: MatcherNames = { argument: "patterns" }
): Effect.Effect<Matcher, InvalidInput> =>
  Effect.gen(function*() {
    const { argument, single = false, subject = "the pane text" } = names
    const named = (index: number) => (single ? argument : `${argument}[${index}]`)
    if (spec.patterns.length === 0) return yield* Effect.fail(new InvalidInput({ reason: `${argument} must hold at least one pattern.` }))
    if (spec.patterns.length > MAX_PATTERNS) {
      return yield* Effect.fail(
        new InvalidInput({ reason: `${argument} holds ${spec.patterns.length} patterns; at most ${MAX_PATTERNS}.` })
      )
    }
    for (const [index, pattern] of spec.patterns.entries()) {
      if (pattern === "") {
        return yield* Effect.fail(new InvalidInput({ reason: `${named(index)} is empty; it would match every line.` }))
      }
      if (pattern.length > MAX_PATTERN_LENGTH) {
        return yield* Effect.fail(new InvalidInput({ reason: `${named(index)} is longer than ${MAX_PATTERN_LENGTH} characters.` }))
      }
    }
    if (spec.regex !== true) {
      const needles = spec.ignoreCase === true ? spec.patterns.map((p) => p.toLowerCase()) : spec.patterns
      const matchBatch = (lines: ReadonlyArray<string>) => {
        const found: Array<LineMatch> = []
        lines.forEach((text, line) => {
          const haystack = spec.ignoreCase === true ? text.toLowerCase() : text
          const pattern = needles.findIndex((needle) => haystack.includes(needle))
          if (pattern >= 0) found.push({ line, pattern })
        })
        return found
      }
      return { matchLines: (lines) => Effect.sync(() => matchBatch(lines)), matchBatch }
    }
    const regexes: Array<RegExp> = []
    for (const [index, pattern] of spec.patterns.entries()) {
      try {
        regexes.push(new RegExp(pattern, spec.ignoreCase === true ? "i" : ""))
      } catch (error) {
        const detail = error instanceof Error ? error.message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, "") : "invalid"
        return yield* Effect.fail(new InvalidInput({ reason: `${named(index)} is not a valid regular expression (${detail}).` }))
      }
    }
    const context = vm.createContext({ regexes, lines: [] as ReadonlyArray<string>, out: [] as Array<number> })
    DEFINE_MATCH_ALL.runInContext(context)
    const ranOver = (inRequest: boolean) =>
      new InvalidInput({
        reason: inRequest
          ? `a regular expression in ${argument} ran longer than this request's ${REGEX_BUDGET_MS} ms budget for regular expressions (catastrophic backtracking?); simplify it or use literal patterns.`
          : `a regular expression in ${argument} ran longer than ${REGEX_TIME_BOX_MS} ms on ${subject} (catastrophic backtracking?); simplify it or use literal patterns.`
      })
    /**
     * One run within `allowed` ms: `done`, `runaway` (stopped while it kept a core busy), or
     * `starved` (stopped though it used little CPU: the machine did not run this process).
     */
    const runBoxed = (allowed: number): "done" | "runaway" | "starved" => {
      const wallStart = performance.now()
      const cpuStart = process.cpuUsage()
      try {
        MATCH_SCRIPT.runInContext(context, { timeout: Math.ceil(allowed) })
        return "done"
      } catch {
        const cpu = process.cpuUsage(cpuStart)
        return (cpu.user + cpu.system) / 1000 < STARVED_CPU_SHARE * (performance.now() - wallStart) ? "starved" : "runaway"
      }
    }
    const matchBatch = (lines: ReadonlyArray<string>, allowed: number): ReadonlyArray<LineMatch> | "ran_over" => {
      context.lines = lines
      try {
        // The time box is wall-clock: on a loaded machine a sane pattern can be stopped because
        // this process did not run, not because the pattern did. A runaway pattern keeps a core
        // busy all along; one that used little CPU was starved, and gets one more run.
        const run = runBoxed(allowed)
        if (run !== "done" && (run === "runaway" || runBoxed(allowed) !== "done")) return "ran_over"
      } finally {
        context.lines = []
      }
      const flat = context.out as Array<number>
      const found: Array<LineMatch> = []
      for (let i = 0; i < flat.length; i += 2) found.push({ line: flat[i]!, pattern: flat[i + 1]! })
      return found
    }
    return {
      matchLines: (lines) =>
        Effect.flatMap(requestRegexBudget, (budget) => {
          const allowed = budget === undefined ? REGEX_TIME_BOX_MS : budget.available()
          if (allowed < LEAST_RUN_MS) return Effect.fail(ranOver(true))
          const started = performance.now()
          try {
            const found = matchBatch(lines, allowed)
            return found === "ran_over" ? Effect.fail(ranOver(budget !== undefined)) : Effect.succeed(found)
          } finally {
            budget?.spend(performance.now() - started)
          }
        }),
      matchBatch
    }
  })
