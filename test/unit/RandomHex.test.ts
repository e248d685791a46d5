/**
 * The tokens of query marks and end marks: unpredictable hex of the asked length, never repeated.
 */
import { describe, expect, it } from "vitest"
import { MAX_RANDOM_HEX_DIGITS, randomHex } from "../../src/tmux/internal/RandomHex.js"

describe("randomHex", () => {
  it("gives the digits asked for, hex only, from 1 to 30", () => {
    for (let digits = 1; digits <= MAX_RANDOM_HEX_DIGITS; digits++) expect(randomHex(digits)).toMatch(new RegExp(`^[0-9a-f]{${digits}}$`))
  })

  it("repeats no 12-digit token in 20,000", () => {
    const tokens = Array.from({ length: 20_000 }, () => randomHex(12))
    expect(new Set(tokens).size).toBe(tokens.length)
  })

  it("uses only a UUID's random digits: every digit of a 30-digit token takes all 16 values over 2,000 tokens", () => {
    // The version digit (always 4) or the variant digit (8 to b) would show as a position with at most 4 values.
    const seen = Array.from({ length: MAX_RANDOM_HEX_DIGITS }, () => new Set<string>())
    for (let i = 0; i < 2_000; i++) [...randomHex(MAX_RANDOM_HEX_DIGITS)].forEach((digit, position) => seen[position]!.add(digit))
    expect(seen.map((values) => values.size)).toEqual(Array.from({ length: MAX_RANDOM_HEX_DIGITS }, () => 16))
  })

  it("refuses a length it cannot fill", () => {
    for (const digits of [0, 31, 1.5, -1]) expect(() => randomHex(digits)).toThrow(RangeError)
  })
})
