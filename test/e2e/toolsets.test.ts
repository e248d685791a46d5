/**
 * Tool sets over stdio: LIBTMUX_MCP_TOOLS / --tools list exactly the tools chosen (names, groups,
 * `-name` exclusions, within the safety level); tools left out are unknown; where_am_i says the
 * set and doctor names its tools; an unknown name stops start-up with exit 1 and the valid names.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { allTools } from "../../src/tools/registry.js"
import { TOOL_GROUPS } from "../../src/tools/ToolSets.js"
import { makeWorld, ok, runCli, serve, type World } from "./harness.js"

const names = (tools: ReadonlyArray<{ readonly name: string }>) => tools.map((tool) => tool.name)
const groupOf = (group: string) => allTools.filter((tool) => tool.group === group && tool.tier !== "destructive").map((tool) => tool.name)

describe("tool sets over stdio", () => {
  let world: World
  beforeAll(() => {
    world = makeWorld()
    world.startTmux()
  })
  afterAll(() => world?.dispose())

  it("LIBTMUX_MCP_TOOLS=where_am_i,list_panes lists exactly those two, and where_am_i says the set and its count", async () => {
    const server = await serve(world, { env: { LIBTMUX_MCP_TOOLS: "where_am_i,list_panes" } })
    try {
      expect(names(server.tools)).toEqual(["where_am_i", "list_panes"])
      expect(ok(await server.call("where_am_i"))).toMatchObject({ tool_set: "LIBTMUX_MCP_TOOLS=where_am_i,list_panes", tool_count: 2 })
      expect(ok(await server.call("list_panes")).total).toBe(1)
      // A tool outside the set is not there at all.
      await expect(server.call("capture_pane", { pane_id: "%0" })).rejects.toThrow(/Unknown tool: capture_pane/)
    } finally {
      await server.close()
    }
  })

  it("--tools takes a group, a tool and an exclusion", async () => {
    const server = await serve(world, { args: ["--tools", "context,-list_servers,capture_pane"] })
    try {
      expect(names(server.tools)).toEqual([...groupOf("context").filter((name) => name !== "list_servers"), "capture_pane"])
      expect(ok(await server.call("where_am_i"))).toMatchObject({
        tool_set: "--tools=context,-list_servers,capture_pane",
        tool_count: server.tools.length
      })
    } finally {
      await server.close()
    }
  })

  it("only exclusions keep every other tool of the safety level; the tier still applies", async () => {
    const server = await serve(world, { env: { LIBTMUX_MCP_TOOLS: "-lifecycle,-run_command", LIBTMUX_SAFETY: "readonly" } })
    try {
      const readonly = allTools.filter((tool) => tool.tier === "readonly").map((tool) => tool.name)
      expect(names(server.tools)).toEqual(readonly.filter((name) => !groupOf("lifecycle").includes(name)))
      expect(names(server.tools)).toContain("list_panes")
    } finally {
      await server.close()
    }
  })

  it("an unknown name exits 1 before serving, naming it and every valid group and tool", async () => {
    const run = await runCli(world, [], { LIBTMUX_MCP_TOOLS: "where_am_i,list_pains" })
    expect(run.status).toBe(1)
    expect(run.stdout).toBe("")
    expect(run.stderr).toContain("LIBTMUX_MCP_TOOLS names no tool or group \"list_pains\"")
    for (const group of TOOL_GROUPS) expect(run.stderr).toContain(group)
    for (const tool of allTools) expect(run.stderr).toContain(tool.name)
  })

  it("doctor shows the tool set and the tools it enables", async () => {
    const run = await runCli(world, ["doctor", "--tools", "read,-search_panes"])
    expect(run.status).toBe(0)
    expect(run.stdout).toMatch(/^tool set: +--tools=read,-search_panes$/m)
    const enabled = groupOf("read").filter((name) => name !== "search_panes")
    expect(run.stdout).toContain(`tools:         ${enabled.length} of ${allTools.length} enabled: ${enabled.join(", ")}`)
  })

  it("marks the tools an agent needs first with _meta anthropic/alwaysLoad", async () => {
    const server = await serve(world)
    try {
      const marked = server.tools.filter((tool) => tool._meta?.["anthropic/alwaysLoad"] === true).map((tool) => tool.name)
      expect(marked).toEqual(["where_am_i", "list_panes", "capture_pane"])
    } finally {
      await server.close()
    }
  })
})
