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
  const server = await runtime.runPromise(makeMcpServer(allTools).pipe(Scope.extend(scope)))
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
})
