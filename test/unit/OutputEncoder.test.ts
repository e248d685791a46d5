/**
 * The compiled output encoder sends exactly what `Schema.encodeSync` would: the same values, keys in
 * the same order, for every tool's output schema, and fails wherever Effect fails.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as FastCheck from "effect/FastCheck"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { encodeOutput } from "../../src/mcp/internal/OutputEncoder.js"
import { PANE_FIELDS } from "../../src/operations/hierarchy/Fields.js"
import { allTools } from "../../src/tools/registry.js"

/** What encoding gives, as the wire sees it (JSON keeps key order), or the failure. */
const outcome = (encode: () => unknown): string => {
  try {
    return JSON.stringify({ ok: encode() })
  } catch (error) {
    return ParseResult.isParseError(error) ? "ParseError" : `thrown: ${String(error)}`
  }
}

/** A valid value with one property, anywhere in it, replaced by anything. */
const corrupted = (value: unknown, replacement: unknown, pick: number): unknown => {
  const paths: Array<Array<string | number>> = []
  const walk = (node: unknown, path: Array<string | number>) => {
    if (typeof node !== "object" || node === null) return
    for (const [key, child] of Object.entries(node)) {
      const at = [...path, Array.isArray(node) ? Number(key) : key]
      paths.push(at)
      walk(child, at)
    }
  }
  walk(value, [])
  if (paths.length === 0) return replacement
  const path = paths[pick % paths.length]!
  const copy = structuredClone(value) as Record<string | number, unknown>
  let node = copy
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>
  node[path.at(-1)!] = replacement
  return copy
}

describe("encodeOutput", () => {
  for (const tool of allTools) {
    it(`${tool.name}: the same result as Schema.encodeSync, valid or corrupted`, () => {
      const valid = Arbitrary.make(tool.output as Schema.Codec<unknown, unknown, never>)
      FastCheck.assert(
        FastCheck.property(valid, FastCheck.anything(), FastCheck.nat(), FastCheck.boolean(), (value, junk, pick, corrupt) => {
          const input = corrupt ? corrupted(value, junk, pick) : value
          const ours = outcome(() => encodeOutput(tool.output, input))
          expect(ours).toBe(outcome(() => Schema.encodeUnknownSync(tool.output)(input)))
          if (!corrupt) expect(ours).not.toBe("ParseError")
        }),
        { numRuns: 40 }
      )
    })
  }

  const listPanes = allTools.find((tool) => tool.name === "list_panes")!
  const pane = Object.fromEntries(PANE_FIELDS.map((field) => [field, undefined]))
  const page = (item: Record<string, unknown>) => ({ items: [item], total: 1, offset: 0, limit: 1, truncated: false })

  it("escapes control characters of display text, drops unknown keys and keeps the schema's key order", () => {
    const item = { command: "v\x1bi", extra: "dropped", pane_id: "%1", active: true }
    expect(JSON.stringify(encodeOutput(listPanes.output, page(item)))).toBe(
      JSON.stringify({ items: [{ pane_id: "%1", active: true, command: "v\\x1bi" }], total: 1, offset: 0, limit: 1, truncated: false })
    )
    expect(Object.keys(pane)).toContain("command")
  })

  it("throws Effect's ParseError for a value the schema refuses", () => {
    for (const item of [{ pane_id: "%1", pane_index: -1 }, { pane_id: "%1", pane_index: 1.5 }, { pane_id: "x" }, { active: true }]) {
      expect(() => encodeOutput(listPanes.output, page(item))).toThrow(ParseResult.ParseError)
    }
  })
})
