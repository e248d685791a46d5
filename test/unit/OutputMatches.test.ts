/**
 * The matches of a command's output (run_command's `match`): line numbers, context that merges and
 * never shows a line twice, caps that count what they drop, parts never read, a runaway regular
 * expression, and the tail kept beside them; and outputShape's checks before anything runs.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { HeadTail, joinBounded, MAX_LINE_BYTES } from "../../src/operations/bounds/OutputBudget.js"
import { LineMatches, MatchedOutput, type MatchSession } from "../../src/operations/bounds/OutputMatches.js"
import { compileMatcher, type PatternSpec } from "../../src/operations/bounds/TextMatcher.js"
import { outputShape } from "../../src/operations/commands/internal/CommandOutput.js"

const session = (spec: PatternSpec, options: { context?: number; maxMatches?: number; maxBytes?: number } = {}): MatchSession => ({
  matcher: Effect.runSync(compileMatcher(spec)),
  context: options.context ?? 0,
  maxMatches: options.maxMatches ?? 50,
  maxBytes: options.maxBytes ?? 65_536,
  plain: (line) => line,
  runaway: false
})

const lines = (count: number, failing: ReadonlyArray<number>) =>
  Array.from({ length: count }, (_, index) => (failing.includes(index + 1) ? `FAIL case ${index + 1}` : `PASS case ${index + 1}`))

const collect = (s: MatchSession, input: ReadonlyArray<string>, firstLine = 1) => {
  const matches = new LineMatches(s, firstLine)
  for (const line of input) matches.push(line)
  return matches.report()
}

describe("LineMatches", () => {
  it("numbers matching lines from the output's first line, across batches", () => {
    const report = collect(session({ patterns: ["^FAIL "], regex: true }), lines(3000, [1, 512, 513, 2999]))
    expect(report).toEqual({
      matches: [
        { line: 1, text: "FAIL case 1" },
        { line: 512, text: "FAIL case 512" },
        { line: 513, text: "FAIL case 513" },
        { line: 2999, text: "FAIL case 2999" }
      ],
      match_count: 4
    })
  })

  it("continues a numbering: a later call's lines count after the earlier calls'", () => {
    expect(collect(session({ patterns: ["FAIL"] }), ["x", "FAIL late"], 101).matches).toEqual([{ line: 102, text: "FAIL late" }])
  })

  it("shows context around each match, merged so that no line is shown twice", () => {
    const report = collect(session({ patterns: ["FAIL"] }, { context: 2 }), lines(20, [1, 5, 6, 9, 20]))
    expect(report.matches).toEqual([
      // The first line has no before; the after stops where the next match's before begins.
      { line: 1, text: "FAIL case 1", after: ["PASS case 2", "PASS case 3"] },
      { line: 5, text: "FAIL case 5", before: ["PASS case 4"] },
      { line: 6, text: "FAIL case 6", after: ["PASS case 7", "PASS case 8"] },
      { line: 9, text: "FAIL case 9", after: ["PASS case 10", "PASS case 11"] },
      { line: 20, text: "FAIL case 20", before: ["PASS case 18", "PASS case 19"] }
    ])
    const shown = report.matches.flatMap((match) => [...(match.before ?? []), match.text, ...(match.after ?? [])])
    expect(new Set(shown).size).toBe(shown.length)
  })

  it("keeps max_matches but counts them all; ignore_case and literal patterns", () => {
    const report = collect(session({ patterns: ["fail"], ignoreCase: true }, { maxMatches: 2 }), lines(100, [10, 20, 30, 40]))
    expect(report.matches.map((match) => match.line)).toEqual([10, 20])
    expect(report.match_count).toBe(4)
  })

  it("keeps matches within the byte budget (the rest counted), and cuts a long line visibly", () => {
    const long = `FAIL ${"x".repeat(MAX_LINE_BYTES * 2)}`
    const report = collect(session({ patterns: ["FAIL"] }, { maxBytes: MAX_LINE_BYTES + 40 }), [long, "FAIL longer line", "FAIL two"])
    expect(report.match_count).toBe(3)
    // "FAIL two" would fit where "FAIL longer line" did not; the kept matches stay the first ones.
    expect(report.matches).toHaveLength(1)
    expect(report.matches[0]!.text.startsWith("FAIL xxx")).toBe(true)
    expect(report.matches[0]!.text).toMatch(/\[… \d+ bytes cut …\]$/)
  })

  it("says which lines were never read, and counts them in the numbering", () => {
    const s = session({ patterns: ["FAIL"] })
    const matches = new LineMatches(s, 1)
    matches.push("FAIL before")
    matches.elide(1000)
    matches.push("FAIL after")
    const report = matches.report()
    expect(report.matches).toEqual([{ line: 1, text: "FAIL before" }, { line: 1002, text: "FAIL after" }])
    expect(report.match_missed).toContain("1000 lines in the middle of the output were never read")
  })

  it("stops at a runaway regular expression and says from which line nothing was searched", () => {
    const s = session({ patterns: ["^(a+)+$"], regex: true })
    const report = collect(s, ["aaa", `${"a".repeat(40)}!`, "aaaa"])
    expect(s.runaway).toBe(true)
    expect(report.match_count).toBe(0)
    expect(report.match_missed).toContain("lines from 1 on were not searched")
    // A later pass (the history read again) does not run it again, and says so from its own first line.
    const again = collect(s, ["x", "aaa"], 40)
    expect(again.match_missed).toContain("lines from 40 on were not searched")
  }, 20_000)

  it("matches the text without terminal escapes when escapes are kept", () => {
    const s = {
      ...session({ patterns: ["^FAIL"], regex: true }),
      plain: (line: string) => line.replaceAll("\x1b[31m", "").replaceAll("\x1b[0m", "")
    }
    expect(collect(s, ["\x1b[31mFAIL\x1b[0m red"]).matches).toEqual([{ line: 1, text: "\x1b[31mFAIL\x1b[0m red" }])
  })
})

describe("MatchedOutput and the tail", () => {
  it("keeps the last lines as the output, with the elision said first", () => {
    const output = new MatchedOutput(session({ patterns: ["FAIL"] }), 1, 3, 65_536)
    for (const line of lines(303, [57])) output.push(line)
    const bounded = output.result()
    expect(joinBounded(bounded)).toBe("[… 300 lines elided …]\nPASS case 301\nPASS case 302\nPASS case 303")
    expect(bounded).toMatchObject({ lines_total: 303, elided_lines: 300, elided_after_line: 0, truncated: true })
    expect(output.matches.report().matches).toEqual([{ line: 57, text: "FAIL case 57" }])
  })

  it("a tail-only budget of a short output elides nothing; of zero lines, keeps none", () => {
    const short = new HeadTail(10, 65_536, true)
    for (const line of ["a", "b"]) short.push(line)
    expect(short.result()).toMatchObject({ lines: ["a", "b"], elided_lines: 0, elided_after_line: null, truncated: false })
    const none = new HeadTail(0, 65_536, true)
    none.push("a")
    expect(none.result()).toMatchObject({ lines: [], lines_total: 1, elided_lines: 1 })
  })
})

describe("outputShape", () => {
  const refusal = (options: Parameters<typeof outputShape>[0]) => Effect.runSync(Effect.flip(outputShape(options))).reason

  it("refuses bad match arguments before anything runs, naming them", () => {
    const base = { maxLines: 200, maxBytes: 65_536, keepEscapes: false }
    expect(refusal({ ...base, match: { patterns: [] } })).toContain("match.patterns must hold at least one pattern")
    expect(refusal({ ...base, match: { patterns: ["("], regex: true } })).toContain("match.patterns[0] is not a valid regular expression")
    expect(refusal({ ...base, match: { patterns: ["x"], context: 6 } })).toContain("match.context must be an integer from 0 to 5")
    expect(refusal({ ...base, match: { patterns: ["x"], maxMatches: 0 } })).toContain("match.max_matches must be an integer from 1")
    expect(refusal({ ...base, tailLines: -1 })).toContain("tail_lines must be an integer from 0")
  })

  it("without match or tail_lines keeps head and tail as before", () => {
    const shape = Effect.runSync(outputShape({ maxLines: 4, maxBytes: 65_536, keepEscapes: false }))
    expect(shape.matching).toBe(false)
    const sink = shape.sink(1)()
    for (const line of lines(10, [])) sink.push(line)
    expect(sink.result().lines).toEqual(["PASS case 1", "PASS case 2", "PASS case 9", "PASS case 10"])
  })
})
