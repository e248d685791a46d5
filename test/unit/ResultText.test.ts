/**
 * The compact text block of a result: fields as lines, lists of objects as tables, a multi-line
 * text raw and last; every value of the structured result is in it.
 */
import { describe, expect, it } from "@effect/vitest"
import { renderResultText } from "../../src/mcp/internal/ResultText.js"

describe("renderResultText", () => {
  it("renders a page as its counts and one line per item under one header", () => {
    const text = renderResultText({
      items: [
        { pane_id: "%0", window_index: 0, active: true, command: "bash", is_caller: null },
        { pane_id: "%1", window_index: 1, active: false, command: "sleep", is_caller: true }
      ],
      total: 2,
      offset: 0,
      limit: 100,
      truncated: false
    })
    expect(text).toBe(
      [
        "total: 2",
        "offset: 0",
        "limit: 100",
        "truncated: false",
        "items (2): pane_id window_index active command is_caller",
        "%0 0 true bash -",
        "%1 1 false sleep true"
      ].join("\n")
    )
  })

  it("quotes what would break a row or a line: spaces, empty text, a lone -, a leading quote, control characters", () => {
    const text = renderResultText({
      items: [{ a: "two words", b: "", c: "-", d: "\"q", e: "tab\there", f: "plain/path:ok" }],
      name: " padded",
      empty: "",
      fine: "a value with spaces"
    })
    expect(text).toContain("items (1): a b c d e f\n\"two words\" \"\" \"-\" \"\\\"q\" \"tab\\there\" plain/path:ok")
    expect(text).toContain("name: \" padded\"")
    expect(text).toContain("empty: \"\"")
    expect(text).toContain("fine: a value with spaces")
  })

  it("renders numbers and booleans in cells as JSON does, and an item without fields as an empty line", () => {
    const text = renderResultText({ rows: [{ n: -0, f: 1.5, big: 1e21, neg: -7, yes: true, no: false }], empty: [{}, {}] })
    expect(text).toBe(["rows (1): n f big neg yes no", "0 1.5 1e+21 -7 true false", "empty (2): ", "", ""].join("\n"))
  })

  it("renders absent cells as -, lists of scalars and objects in cells as JSON", () => {
    const text = renderResultText({
      results: [{ index: 0, status: "sent" }, { index: 1, status: "failed", error_code: "not_found" }],
      ids: ["%1", "%2"],
      nothing: []
    })
    expect(text).toBe(
      ["ids: [\"%1\",\"%2\"]", "nothing: []", "results (2): index status error_code", "0 sent -", "1 failed not_found"].join("\n")
    )
  })

  it("renders an item's own lists as indented tables after its line", () => {
    const text = renderResultText({
      panes: [
        { pane_id: "%3", match_count: 2, matches: [{ line: -4, text: "error: x" }, { line: 0, text: "ok" }] },
        { pane_id: "%5", match_count: 1, matches: [{ line: 2, text: "y" }] }
      ],
      total_matches: 3
    })
    expect(text).toBe(
      [
        "total_matches: 3",
        "panes (2): pane_id match_count",
        "%3 2",
        "  matches (2): line text",
        "  -4 \"error: x\"",
        "  0 ok",
        "%5 1",
        "  matches (1): line text",
        "  2 y"
      ].join("\n")
    )
  })

  it("renders nested objects indented, with their own tables", () => {
    const text = renderResultText({
      window: { window_id: "@1", window_name: "w" },
      pane: { pane_id: "%2", placements: [{ session_id: "$0", window_index: 1 }] },
      generation: "12.34"
    })
    expect(text).toBe(
      [
        "generation: 12.34",
        "window:",
        "  window_id: @1",
        "  window_name: w",
        "pane:",
        "  pane_id: %2",
        "  placements (1): session_id window_index",
        "  $0 1"
      ].join("\n")
    )
  })

  it("puts a multi-line text last and raw, after a line that counts its lines, so pane text cannot forge fields", () => {
    const content = "line one\ntruncated: true\nlines_total: 0"
    const text = renderResultText({ pane_id: "%0", content, lines_total: 3, truncated: false })
    expect(text).toBe(["pane_id: %0", "lines_total: 3", "truncated: false", "content (3 lines):", content].join("\n"))
    // A single line stays a field; a nested multi-line value is quoted.
    expect(renderResultText({ content: "hello" })).toBe("content: hello")
    expect(renderResultText({ variables: { A: "x\ny" } })).toBe("variables:\n  A: \"x\\ny\"")
  })
})
