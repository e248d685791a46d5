import { describe, expect, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Format from "../../src/tmux/Format.js"

/** Prints one record the way tmux expands a `-F` format: each `#{variable}` replaced, then a newline. */
const printed = (format: string, values: Record<string, string>): string =>
  `${format.replace(/#\{([a-z_]+)\}/g, (_, name: string) => values[name] ?? "")}\n`

const marks = Format.newMarks()

const codec = Format.record("t", {
  name: Format.string("name_var"),
  count: Format.int("count_var"),
  flag: Format.bool("flag_var"),
  maybe: Format.nullableInt("maybe_var")
})

const decodeOne = (values: Record<string, string>) => codec.decodeAll(Format.parseOutput(printed(codec.format(marks), values), marks))

describe("Format", () => {
  it("builds a format of plain variable references behind the record and field marks", () => {
    const { record, field } = marks
    expect(codec.format(marks)).toBe(`${record}t${field}#{name_var}${field}#{count_var}${field}#{flag_var}${field}#{maybe_var}`)
    expect(record.startsWith("\x1e") && field.startsWith("\x1f")).toBe(true)
  })

  it("round-trips values with tabs, newlines, ';', '#' and unicode", () => {
    const nasty = ["tab\there", "line1\nline2\n", "a;b \\; c;", "#{pid} ## #(rm -rf /)", "ünïcødé 日本語 🎉", "", " lead and trail "]
    const output = nasty
      .map((name, i) => printed(codec.format(marks), { name_var: name, count_var: String(i), flag_var: i % 2 ? "1" : "0", maybe_var: "" }))
      .join("")
    const decoded = codec.decodeAll(Format.parseOutput(output, marks))
    expect(decoded).toEqual(
      Result.succeed(nasty.map((name, i) => ({ name, count: i, flag: i % 2 === 1, maybe: null })))
    )
  })

  it("uses fresh marks per query, so a value holding bare or stale marks can neither split fields nor forge records", () => {
    const other = Format.newMarks()
    expect(other.record).not.toBe(marks.record)
    const forged = `a\x1fb\x1ec${other.record}t${other.field}x${other.field}9${other.field}1${other.field}`
    const decoded = decodeOne({ name_var: forged, count_var: "1", flag_var: "0", maybe_var: "" })
    expect(decoded).toEqual(Result.succeed([{ name: forged, count: 1, flag: false, maybe: null }]))
  })

  it("never gives two queries the same token (5,000 queries), 12 hex digits each", () => {
    const tokens = Array.from({ length: 5_000 }, () => Format.newMarks())
    for (const { field, record } of tokens) {
      expect(record.startsWith("\x1e")).toBe(true)
      expect(record.slice(1)).toMatch(/^[0-9a-f]{12}$/)
      expect(field).toBe(`\x1f${record.slice(1)}`)
    }
    expect(new Set(tokens.map(({ record }) => record)).size).toBe(tokens.length)
  })

  it("reads the marks tmux 3.4 and 3.5 print vis-escaped (a control character as \\ooo), as marks", () => {
    // Those versions escape what a command prints (fixed in 3.6): RS as \036, US as \037.
    const escaped = (output: string) => output.replaceAll("\x1e", "\\036").replaceAll("\x1f", "\\037")
    const output = ["a", "b"]
      .map((name, i) => printed(codec.format(marks), { name_var: name, count_var: String(i), flag_var: "1", maybe_var: "" }))
      .join("")
    expect(escaped(output)).not.toContain(marks.record)
    expect(codec.decodeAll(Format.parseOutput(escaped(output), marks))).toEqual(
      Result.succeed([{ name: "a", count: 0, flag: true, maybe: null }, { name: "b", count: 1, flag: true, maybe: null }])
    )
  })

  it("reads escaped-looking marks as text when tmux printed raw marks (a value cannot pass for a record)", () => {
    const lookalike = `x\\036${marks.record.slice(1)}t\\037y`
    const output = printed(codec.format(marks), { name_var: lookalike, count_var: "1", flag_var: "0", maybe_var: "" })
    expect(codec.decodeAll(Format.parseOutput(output, marks))).toEqual(
      Result.succeed([{ name: lookalike, count: 1, flag: false, maybe: null }])
    )
  })

  it("groups records by tag so one command list can return several kinds", () => {
    const other = Format.record("o", { id: Format.string("id") })
    const output = printed(codec.format(marks), { name_var: "x", count_var: "1", flag_var: "1", maybe_var: "3" }) +
      printed(other.format(marks), { id: "%1" }) +
      printed(other.format(marks), { id: "%2" })
    const parsed = Format.parseOutput(output, marks)
    expect(other.decodeAll(parsed)).toEqual(Result.succeed([{ id: "%1" }, { id: "%2" }]))
    expect(codec.decodeAll(parsed)).toEqual(Result.succeed([{ name: "x", count: 1, flag: true, maybe: 3 }]))
    expect(Format.record("absent", { id: Format.string("id") }).decodeAll(parsed)).toEqual(Result.succeed([]))
  })

  it("rejects a record with too few or too many fields as unparseable", () => {
    const { record: r, field: f } = marks
    for (const output of [`${r}t${f}a${f}1${f}1\n`, `${r}t${f}a${f}1${f}1${f}2${f}extra\n`]) {
      const result = codec.decodeAll(Format.parseOutput(output, marks))
      expect(Result.isFailure(result)).toBe(true)
      if (Result.isFailure(result)) {
        expect(result.failure._tag).toBe("Failed")
        expect(result.failure.reason).toBe("unparseable")
        expect(result.failure.stderr).toMatch(/expected 4 fields in a t record/)
      }
    }
  })

  it("decodes int, bool and nullableInt strictly", () => {
    const ok = { name_var: "n", count_var: "42", flag_var: "1", maybe_var: "7" }
    expect(decodeOne(ok)).toEqual(Result.succeed([{ name: "n", count: 42, flag: true, maybe: 7 }]))
    expect(decodeOne({ ...ok, flag_var: "0", maybe_var: "" })).toEqual(
      Result.succeed([{ name: "n", count: 42, flag: false, maybe: null }])
    )
    // tmux prints an unset flag as empty.
    expect(decodeOne({ ...ok, flag_var: "" })).toEqual(Result.succeed([{ name: "n", count: 42, flag: false, maybe: 7 }]))
    for (
      const bad of [
        { ...ok, count_var: "" },
        { ...ok, count_var: "1.5" },
        { ...ok, count_var: "abc" },
        { ...ok, flag_var: "2" },
        { ...ok, flag_var: "yes" },
        { ...ok, maybe_var: "x" }
      ]
    ) {
      const result = decodeOne(bad)
      expect(Result.isFailure(result) && result.failure.reason === "unparseable").toBe(true)
    }
  })

  it("refuses a tag that contains a mark", () => {
    expect(() => Format.record("a\x1fb", {})).toThrow()
  })
})
