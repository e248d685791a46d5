/**
 * The JSON-RPC errors of the MCP bridge (an unknown tool or resource), as an SDK client sees them:
 * the SDK client puts "MCP error <code>: " in front of what the server sent, so the server sends
 * the message alone, and the client reads it with that prefix once.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import * as Exit from "effect/Exit"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import { afterEach, describe, expect, it } from "vitest"
import { MAX_ARGUMENT_BYTES } from "../../src/mcp/internal/ArgumentGuard.js"
import { makeMcpServer } from "../../src/mcp/McpServer.js"
import { allTools } from "../../src/tools/registry.js"
import { fakeLayer } from "../support/fakeWorld.js"

const disposals: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const dispose of disposals.splice(0)) await dispose()
})

const connected = async () => {
  const runtime = ManagedRuntime.make(fakeLayer(new Map()))
  const scope = await runtime.runPromise(Scope.make())
  disposals.push(async () => {
    await runtime.runPromise(Scope.close(scope, Exit.void))
    await runtime.dispose()
  })
  const server = await runtime.runPromise(makeMcpServer(allTools).pipe(Scope.provide(scope)))
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: "test", version: "0" })
  await client.connect(clientSide)
  return client
}

describe("JSON-RPC errors of the bridge", () => {
  it("an unknown tool is invalid params, its message prefixed once", async () => {
    const client = await connected()
    const error = await client.callTool({ name: "no_such_tool", arguments: {} }).then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string }
    )
    expect(error).toMatchObject({ code: -32602, message: "MCP error -32602: Unknown tool: no_such_tool. tools/list shows the tools." })
  })

  it("an unknown resource is invalid params, its message prefixed once", async () => {
    const client = await connected()
    const error = await client.readResource({ uri: "tmux://nothing" }).then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string }
    )
    expect(error).toMatchObject({ code: -32602, message: "MCP error -32602: Unknown resource: tmux://nothing" })
  })

  it("a prompt argument that is no string, or longer than a tool's string, is invalid params in our words (issue 21 item 8)", async () => {
    const client = await connected()
    const get = (args: Record<string, unknown>) =>
      client.getPrompt({ name: "run_and_read", arguments: args as Record<string, string> }).then(
        () => undefined,
        (e: unknown) => e as { code: number; message: string }
      )
    for (const command of [5, true, null, ["ls"], { a: "b" }]) {
      const error = await get({ command })
      expect({ command, code: error?.code }).toEqual({ command, code: -32602 })
      expect(error?.message).toBe("MCP error -32602: run_and_read: arguments.command must be a string")
    }
    const long = await get({ command: "x".repeat(MAX_ARGUMENT_BYTES + 1) })
    expect(long?.code).toBe(-32602)
    expect(long?.message).toBe(`MCP error -32602: run_and_read: arguments.command must be at most ${MAX_ARGUMENT_BYTES} bytes`)
    expect(await get({ command: "x".repeat(MAX_ARGUMENT_BYTES) })).toBeUndefined()
  })

  it("a malformed resource URI is invalid params whose hint points at the resource lists, not at tools/list (issue 21 item 10)", async () => {
    const client = await connected()
    for (const uri of ["tmux://pane/%0?x", "tmux://pane/%0%3Bkill-server/screen"]) {
      const error = await client.readResource({ uri }).then(
        () => undefined,
        (e: unknown) => e as { code: number; message: string }
      )
      expect({ uri, code: error?.code }).toEqual({ uri, code: -32602 })
      expect(error?.message).toContain("Hint: ")
      expect(error?.message).toContain("resources/templates/list")
      expect(error?.message).not.toContain("tools/list")
    }
  })
})
