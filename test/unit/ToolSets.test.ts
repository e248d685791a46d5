/**
 * Tool sets (LIBTMUX_MCP_TOOLS / --tools): names and groups select, `-name` excludes, the safety
 * tier applies as well, and an unknown name is refused with every valid one.
 */
import { describe, expect, it } from "@effect/vitest"
import { allTools } from "../../src/tools/registry.js"
import { enabledTools, TOOL_GROUPS, toolSelectionError } from "../../src/tools/ToolSets.js"

const names = (terms: ReadonlyArray<string> | undefined, safety: "readonly" | "mutating" | "destructive" = "mutating") =>
  enabledTools(allTools, { safety, toolSelection: terms === undefined ? undefined : { terms, source: "LIBTMUX_MCP_TOOLS" } }).map(
    (tool) => tool.name
  )

describe("tool sets", () => {
  it("puts every tool in exactly one group", () => {
    const grouped = TOOL_GROUPS.flatMap((group) => allTools.filter((tool) => tool.group === group).map((tool) => tool.name))
    expect([...grouped].sort()).toEqual(allTools.map((tool) => tool.name).sort())
    for (const group of TOOL_GROUPS) expect(allTools.some((tool) => tool.group === group), group).toBe(true)
  })

  it("without a selection enables every tool of the safety level", () => {
    expect(names(undefined, "destructive")).toEqual(allTools.map((tool) => tool.name))
    expect(names(undefined, "readonly")).toEqual(allTools.filter((tool) => tool.tier === "readonly").map((tool) => tool.name))
  })

  it("enables exactly the tools named, in tools/list order", () => {
    expect(names(["list_panes", "where_am_i"])).toEqual(["where_am_i", "list_panes"])
  })

  it("takes groups, and -name or -group excludes", () => {
    const context = allTools.filter((tool) => tool.group === "context" && tool.tier !== "destructive").map((tool) => tool.name)
    expect(names(["context"])).toEqual(context)
    expect(names(["context", "-list_servers"])).toEqual(context.filter((name) => name !== "list_servers"))
    expect(names(["context", "capture_pane"])).toEqual([...context, "capture_pane"])
    // Only exclusions: everything else stays.
    const all = names(undefined)
    expect(names(["-buffers", "-run_command"])).toEqual(
      all.filter((name) => name !== "run_command" && allTools.find((tool) => tool.name === name)?.group !== "buffers")
    )
  })

  it("applies the safety tier first: naming a tool above it does not list it", () => {
    expect(names(["where_am_i", "kill_pane"], "mutating")).toEqual(["where_am_i"])
    expect(names(["where_am_i", "kill_pane"], "destructive")).toEqual(["where_am_i", "kill_pane"])
    expect(names(["lifecycle"], "readonly")).toEqual([])
  })

  it("refuses unknown names, naming them, the source and every valid group and tool", () => {
    const error = toolSelectionError(allTools, {
      safety: "mutating",
      toolSelection: { terms: ["where_am_i", "list_pains", "-nothing"], source: "--tools" }
    })
    expect(error).toBeDefined()
    expect(error).toContain("--tools")
    expect(error).toContain("list_pains")
    expect(error).toContain("nothing")
    for (const group of TOOL_GROUPS) expect(error).toContain(group)
    for (const tool of allTools) expect(error).toContain(tool.name)
    expect(toolSelectionError(allTools, { safety: "mutating", toolSelection: { terms: ["where_am_i"], source: "--tools" } }))
      .toBeUndefined()
  })

  it("refuses a selection that leaves no tool at the safety level", () => {
    const error = toolSelectionError(allTools, {
      safety: "readonly",
      toolSelection: { terms: ["kill_pane"], source: "LIBTMUX_MCP_TOOLS" }
    })
    expect(error).toContain("no tool")
    expect(error).toContain("readonly")
  })
})
