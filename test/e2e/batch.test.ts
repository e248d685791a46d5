/**
 * Issue 14 items 4 and 12 through a real MCP client over stdio: run_batch runs several tools in one
 * call against real tmux (the client validating its result against the outputSchema), refuses an
 * operation above the tier before running any, stops at a failure, bounds its results and honours
 * a cancel; send_keys_batch types into several panes; lenient strings are read as the values they
 * spell, and nothing else is.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EnvOverrides, errorOf, makeWorld, ok, poll, serve, type Served, within, type World } from "./harness.js"

const screenShows = (server: Served, paneId: string, text: string) =>
  poll(`"${text}" on ${paneId}`, async () => {
    const { content } = ok(await server.call("capture_pane", { pane_id: paneId }))
    return (content as string).includes(text) ? content : undefined
  }, 200)

/** A tmux server and the MCP server over it, for the tests of the describe block that calls it. */
const useServed = (env: EnvOverrides = {}) => {
  let world: World | undefined
  let server: Served | undefined
  beforeAll(async () => {
    world = makeWorld()
    world.startTmux()
    server = await serve(world, { env })
  })
  afterAll(async () => {
    await server?.close()
    world?.dispose()
  })
  return { world: () => world!, server: () => server! }
}

describe("run_batch over stdio", () => {
  const { world, server } = useServed()

  it("runs list_panes, capture_pane and send_keys in one call, each result its tool's own, each logged as its own call", async () => {
    const ran = ok(
      await server().call("run_batch", {
        operations: [
          { tool: "list_panes", arguments: { session_id: "$0" } },
          { tool: "capture_pane", arguments: { pane_id: "%0" } },
          { tool: "send_keys", arguments: { pane_id: "%0", keys: "echo batch-e2e-$((6*7))" } }
        ]
      })
    )
    expect(ran).toMatchObject({ ok: true, truncated: false })
    expect(ran.results.map((result: any) => [result.tool, result.ok])).toEqual([["list_panes", true], ["capture_pane", true], [
      "send_keys",
      true
    ]])
    expect(ran.results[0].result.items[0].pane_id).toBe("%0")
    expect(ran.results[1].result.pane_id).toBe("%0")
    expect(ran.results[2].result).toMatchObject({ pane_id: "%0", enter_sent: true })
    await screenShows(server(), "%0", "batch-e2e-42")
    const tools = (await server().audit()).map((line) => line.tool)
    expect(tools.slice(tools.lastIndexOf("run_batch") - 3, tools.lastIndexOf("run_batch") + 1)).toEqual([
      "list_panes",
      "capture_pane",
      "send_keys",
      "run_batch"
    ])
  })

  it("refuses an operation above the tier, or invalid, before running any; stops at a failure unless told not to", async () => {
    const killing = errorOf(
      await server().call("run_batch", {
        operations: [{ tool: "send_keys", arguments: { pane_id: "%0", keys: "echo never-typed" } }, {
          tool: "kill_pane",
          arguments: { pane_id: "%0" }
        }]
      })
    )
    expect(killing).toMatchObject({ code: "denied", effects: "none" })
    expect(killing.text).toContain("operations.1: kill_pane is a destructive tool")
    const invalid = errorOf(
      await server().call("run_batch", {
        operations: [{ tool: "send_keys", arguments: { pane_id: "%0", keys: "echo never-typed" } }, {
          tool: "capture_pane",
          arguments: { pane_id: "0" }
        }]
      })
    )
    expect(invalid.code).toBe("invalid_input")
    expect(invalid.text).toContain("operations.1: capture_pane: pane_id")

    const stopped = ok(
      await server().call("run_batch", {
        operations: [{ tool: "capture_pane", arguments: { pane_id: "%99" } }, {
          tool: "send_keys",
          arguments: { pane_id: "%0", keys: "echo never-typed" }
        }]
      })
    )
    expect(stopped.ok).toBe(false)
    expect(stopped.results[0]).toMatchObject({ tool: "capture_pane", ok: false, error: { code: "not_found" } })
    expect(stopped.results[1]).toEqual({ tool: "send_keys", ok: false, skipped: true })
    const { content } = ok(await server().call("capture_pane", { pane_id: "%0" }))
    expect(content).not.toContain("never-typed")

    const all = ok(
      await server().call("run_batch", {
        operations: [{ tool: "capture_pane", arguments: { pane_id: "%99" } }, { tool: "list_sessions" }],
        stop_on_error: false
      })
    )
    expect(all.results.map((result: any) => result.ok)).toEqual([false, true])
  })

  it("bounds the count and the results' bytes, saying what it left out", async () => {
    const many = errorOf(await server().call("run_batch", { operations: Array.from({ length: 33 }, () => ({ tool: "list_sessions" })) }))
    expect(many.code).toBe("invalid_input")
    expect(many.text).toContain("at most 32")
    ok(await server().call("load_buffer", { name: "big", text: "y".repeat(30_000) }))
    const read = { tool: "show_buffer", arguments: { name: "big" } }
    const ran = ok(await server().call("run_batch", { operations: [read, read, read] }))
    expect(ran.truncated).toBe(true)
    expect(ran.results.map((result: any) => [result.ok, result.result === undefined, result.truncated ?? false])).toEqual([
      [true, false, false],
      [true, false, false],
      [true, true, true]
    ])
    expect(ran.results[2].result_bytes).toBeGreaterThan(30_000)
    expect(ran.results[0].result.content).toBe("y".repeat(30_000))
  })

  it("honours a cancel: a waiting operation stops and the server goes on answering", async () => {
    const controller = new AbortController()
    const waiting = server().client.callTool(
      {
        name: "run_batch",
        arguments: { operations: [{ tool: "wait_for_text", arguments: { pane_id: "%0", patterns: ["never-appears-zz"], timeout: 60 } }] }
      },
      undefined,
      { signal: controller.signal }
    )
    setTimeout(() => controller.abort(), 300)
    await expect(within(waiting, 30_000, "the cancelled batch")).rejects.toThrow()
    expect(ok(await server().call("list_sessions")).total).toBe(1)
  })

  it("send_keys_batch types into the pane each operation names", async () => {
    const second = world().tmux(["split-window", "-d", "-t", "main", "-P", "-F", "#{pane_id}"]).stdout.trim()
    const sent = ok(
      await server().call("send_keys_batch", {
        pane_id: "%0",
        operations: [{ keys: "echo first-$((1+1))" }, { pane_id: second, keys: "echo second-$((2+2))" }]
      })
    )
    expect(sent.results.map((result: any) => [result.pane_id, result.status])).toEqual([["%0", "sent"], [second, "sent"]])
    await screenShows(server(), "%0", "first-2")
    await screenShows(server(), second, "second-4")
  })

  it("reads \"10\" as 10 and \"true\" as true where the schema wants them; \"1.5\" and \"yes\" stay invalid_input", async () => {
    expect(ok(await server().call("capture_pane", { pane_id: "%0", max_lines: "10", join_wrapped: "true" })).lines_returned)
      .toBeLessThanOrEqual(10)
    for (const args of [{ max_lines: "1.5" }, { max_lines: " 10" }, { join_wrapped: "yes" }]) {
      expect(errorOf(await server().call("capture_pane", { pane_id: "%0", ...args })).code).toBe("invalid_input")
    }
    expect(errorOf(await server().call("get_session_info", { session_id: "$10" })).code).toBe("not_found")
  })
})

describe("run_batch at the readonly tier", () => {
  const { server } = useServed({ LIBTMUX_SAFETY: "readonly" })

  it("is listed, runs reads, and refuses a mutating operation before running any", async () => {
    expect(server().tools.map((tool) => tool.name)).toContain("run_batch")
    expect(ok(await server().call("run_batch", { operations: [{ tool: "list_sessions" }] })).ok).toBe(true)
    const denied = errorOf(
      await server().call("run_batch", {
        operations: [{ tool: "list_sessions" }, { tool: "send_keys", arguments: { pane_id: "%0", keys: "echo never" } }]
      })
    )
    expect(denied).toMatchObject({ code: "denied", effects: "none" })
    expect(denied.text).toContain("operations.1: send_keys is a mutating tool")
    expect((await server().audit()).filter((line) => line.tool === "list_sessions")).toHaveLength(1)
  })
})
