/**
 * tools/list and tools/call over stdio: safety tiers hide and deny tools, every tool is fully
 * described, and every read tool's structuredContent passes the SDK client's outputSchema check.
 */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { renderResultText } from "../../src/mcp/internal/ResultText.js"
import { allTools } from "../../src/tools/registry.js"
import { errorOf, makeWorld, ok, serve, type Served, type World } from "./harness.js"

const names = (tools: ReadonlyArray<McpTool>) => tools.map((tool) => tool.name)

describe("safety tiers over stdio", () => {
  let world: World
  beforeAll(() => {
    world = makeWorld()
  })
  afterAll(() => world?.dispose())

  it("LIBTMUX_SAFETY=readonly hides start_server and kill_server, and denies them by name of the tier needed", async () => {
    const server = await serve(world, { env: { LIBTMUX_SAFETY: "readonly" } })
    try {
      expect(names(server.tools)).not.toContain("start_server")
      expect(names(server.tools)).not.toContain("kill_server")
      expect(names(server.tools)).toContain("where_am_i")
      expect(server.tools.every((tool) => tool.annotations?.readOnlyHint === true)).toBe(true)

      const start = errorOf(await server.call("start_server"))
      expect(start.code).toBe("denied")
      expect(start.text).toContain("mutating")
      expect(start.hint).toContain("LIBTMUX_SAFETY=mutating")
      expect(start.effects).toBe("none")

      const kill = errorOf(await server.call("kill_server"))
      expect(kill.code).toBe("denied")
      expect(kill.text).toContain("destructive")
      expect(kill.hint).toContain("LIBTMUX_SAFETY=destructive")

      // The denied start_server did not start anything.
      expect(world.socketFiles()).toEqual([])
      expect(ok(await server.call("where_am_i")).safety_level).toBe("readonly")
    } finally {
      await server.close()
    }
  })

  it("the default (mutating) lists start_server but hides and denies kill_server", async () => {
    const server = await serve(world)
    try {
      expect(names(server.tools)).toContain("start_server")
      expect(names(server.tools)).not.toContain("kill_server")
      expect(errorOf(await server.call("kill_server")).code).toBe("denied")
    } finally {
      await server.close()
    }
  })

  it("LIBTMUX_SAFETY=destructive lists kill_server, marked destructive and not read-only", async () => {
    const server = await serve(world, { env: { LIBTMUX_SAFETY: "destructive" } })
    try {
      const kill = server.tools.find((tool) => tool.name === "kill_server")
      expect(kill).toBeDefined()
      expect(kill?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true })
      expect(names(server.tools)).toContain("start_server")
    } finally {
      await server.close()
    }
  })
})

describe("every tool is described and every read tool's result validates against its outputSchema", () => {
  let world: World
  let server: Served
  let caller: ReturnType<World["startTmux"]>

  beforeAll(async () => {
    world = makeWorld()
    caller = world.startTmux()
    world.tmux(["split-window", "-t", "main"])
    world.tmux(["new-window", "-t", "main", "-n", "second"])
    world.tmux(["send-keys", "-t", caller.paneId, "echo e2e-marker", "Enter"])
    server = await serve(world, { env: { LIBTMUX_SAFETY: "destructive" } })
  })
  afterAll(async () => {
    await server?.close()
    world?.dispose()
  })

  it("each listed tool has a title, annotations, an object inputSchema whose root is not closed (28 B a tool), and an object outputSchema", () => {
    expect(server.tools.length).toBe(allTools.length)
    for (const tool of server.tools) {
      expect(tool.title, tool.name).toMatch(/\S/)
      expect(tool.description, tool.name).toMatch(/\S/)
      expect(tool.inputSchema.type, tool.name).toBe("object")
      expect(tool.inputSchema, tool.name).not.toHaveProperty("additionalProperties")
      expect(tool.outputSchema?.type, tool.name).toBe("object")
      expect(tool.outputSchema?.properties, tool.name).toBeDefined()
      const annotations = tool.annotations!
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
        expect(typeof annotations[hint], `${tool.name}.${hint}`).toBe("boolean")
      }
      expect(tool.name).toMatch(/^[a-z][a-z_]*$/)
    }
  })

  it("tools that target a server accept socket_name and socket_path", () => {
    // wait_for_command's socket is the one in its handle; run_batch's operations name their own.
    for (const tool of server.tools.filter((t) => !["list_servers", "wait_for_command", "run_batch"].includes(t.name))) {
      expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).toEqual(
        expect.arrayContaining(["socket_name", "socket_path"])
      )
    }
  })

  it("every read tool succeeds once on a live server, and the SDK client accepts its structuredContent", async () => {
    const windowId = world.tmux(["display-message", "-p", "-t", caller.paneId, "#{window_id}"]).stdout.trim()
    const calls: Array<[string, Record<string, unknown>]> = [
      ["where_am_i", {}],
      ["list_servers", {}],
      ["get_server_info", {}],
      ["list_sessions", {}],
      ["get_session_info", { session_name: "main" }],
      ["list_windows", {}],
      ["get_window_info", { window_id: windowId }],
      ["list_panes", {}],
      ["get_pane_info", { pane_id: caller.paneId }],
      ["capture_pane", { pane_id: caller.paneId, start: "-", max_lines: 50, join_wrapped: true }],
      ["show_environment", { session_name: "main" }],
      ["show_options", { scope: "window", target: windowId }],
      ["snapshot_pane", { pane_id: caller.paneId }],
      ["capture_since", { pane_id: caller.paneId, include_current: true }],
      ["wait_for_text", { pane_id: caller.paneId, patterns: null, timeout: 0.2 }],
      ["search_panes", { patterns: ["$"], history_lines: 10 }],
      ["list_buffers", {}],
      ["show_buffer", { name: "e2e-read" }]
    ]
    world.tmux(["set-buffer", "-b", "etm.e2e-read", "read me"])
    const readTools = server.tools.filter((tool) => tool.annotations?.readOnlyHint === true).map((tool) => tool.name)
    expect(calls.map(([name]) => name).sort()).toEqual([...readTools].sort())
    for (const [name, args] of calls) {
      // callTool throws if structuredContent does not match the listed outputSchema.
      const result = await server.call(name, args)
      const value = ok(result)
      expect(value, name).toBeTypeOf("object")
      // The text content is the compact rendering of the same value.
      expect((result.content[0] as { text: string }).text, name).toBe(renderResultText(value))
    }
  })

  it("list results are pages in numeric id order, and panes carry numbers and booleans", async () => {
    const panes = ok(await server.call("list_panes"))
    expect(panes).toMatchObject({ total: 3, offset: 0, limit: 100, truncated: false })
    const ids = panes.items.map((pane: { pane_id: string }) => Number(pane.pane_id.slice(1)))
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    const first = panes.items[0]
    // width is no default field any more (issue 12): window_index is one, and a number too.
    expect(first.window_index).toBeTypeOf("number")
    expect(first.active).toBeTypeOf("boolean")
    // Outside tmux there is no self.
    expect(first.is_caller).toBeNull()

    const paged = ok(await server.call("list_panes", { limit: 1, offset: 1 }))
    expect(paged).toMatchObject({ total: 3, offset: 1, limit: 1, truncated: true })
    expect(paged.items).toHaveLength(1)

    const sessions = ok(await server.call("list_sessions"))
    expect(sessions.items.map((s: { session_name: string }) => s.session_name)).toEqual(["main"])
    const info = ok(await server.call("get_server_info"))
    expect(info).toMatchObject({ is_alive: true, session_count: 1, window_count: 2, pane_count: 3 })
  })

  it("capture_pane returns what the pane shows", async () => {
    let content = ""
    // The shell prints asynchronously; poll a few times for the marker (a bound, not a timing assertion).
    for (let attempt = 0; attempt < 50 && !content.includes("e2e-marker"); attempt++) {
      content = ok(await server.call("capture_pane", { pane_id: caller.paneId })).content
      if (!content.includes("e2e-marker")) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(content).toContain("e2e-marker")
  })

  it("bad arguments are invalid_input tool errors, not protocol errors", async () => {
    const tooMany = errorOf(await server.call("list_panes", { limit: 5000 }))
    expect(tooMany.code).toBe("invalid_input")
    expect(tooMany.text).toContain("limit")
    const unknown = errorOf(await server.call("list_panes", { bogus: 1 }))
    expect(unknown.code).toBe("invalid_input")
    expect(unknown.text).toContain("bogus")
    const badId = errorOf(await server.call("capture_pane", { pane_id: "0" }))
    expect(badId.code).toBe("invalid_input")
    expect(badId.text).toContain("pane_id")
    const noSelf = errorOf(await server.call("get_pane_info"))
    expect(noSelf.code).toBe("invalid_input")
    expect(noSelf.text).toContain("not running inside tmux")
  })

  it("an unknown tool name is a JSON-RPC error", async () => {
    await expect(server.call("no_such_tool")).rejects.toThrow(/Unknown tool/)
  })

  it("an unknown tool's error says MCP error once, over stdio too", async () => {
    await expect(server.call("no_such_tool")).rejects.toThrow(
      /^MCP error -32602: Unknown tool: no_such_tool\. tools\/list shows the tools\.$/
    )
  })

  it("kill_server refuses nothing here (no caller) and kills the server", async () => {
    const killed = ok(await server.call("kill_server"))
    expect(killed).toMatchObject({ killed: true, socket_name: world.socketName, socket_path: world.socketPath })
    expect(ok(await server.call("get_server_info")).is_alive).toBe(false)
  })
})
