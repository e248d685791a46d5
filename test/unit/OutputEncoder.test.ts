/**
 * A tool's output is encoded with its output schema: display text escaped, unknown keys dropped,
 * the schema's key order kept, and a value the schema refuses thrown as Effect's SchemaError.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { encodeOutput } from "../../src/mcp/internal/OutputEncoder.js"
import { allTools } from "../../src/tools/registry.js"

describe("encodeOutput", () => {
  const listPanes = allTools.find((tool) => tool.name === "list_panes")!
  const page = (item: Record<string, unknown>) => ({ items: [item], total: 1, offset: 0, limit: 1, truncated: false })

  it("escapes control characters of display text, drops unknown keys and keeps the schema's key order", () => {
    const item = { command: "v\x1bi", extra: "dropped", pane_id: "%1", active: true }
    expect(JSON.stringify(encodeOutput(listPanes.output, page(item)))).toBe(
      JSON.stringify({ items: [{ pane_id: "%1", active: true, command: "v\\x1bi" }], total: 1, offset: 0, limit: 1, truncated: false })
    )
  })

  it("throws Effect's SchemaError for a value the schema refuses", () => {
    for (const item of [{ pane_id: "%1", pane_index: -1 }, { pane_id: "%1", pane_index: 1.5 }, { pane_id: "x" }, { active: true }]) {
      expect(() => encodeOutput(listPanes.output, page(item))).toThrow(Schema.SchemaError)
    }
  })
})
