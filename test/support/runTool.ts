/**
 * Calls a tool the way the MCP bridge does (decode, tier check, handler, encode), without stdio.
 * With a test host (ETM_TEST_HOST, testHost.ts), every tool that takes `socket_name` also gets
 * `host: <the test host>`, unless the test passed `host` itself.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { callTool, ERROR_META_KEY } from "../../src/mcp/CallTool.js"
import type { ServerServices } from "../../src/mcp/McpServer.js"
import { allTools } from "../../src/tools/registry.js"
import { targetsServer } from "../../src/tools/Tool.js"
import { testHost } from "./testHost.js"

export const toolNamed = (name: string) => {
  const tool = allTools.find((t) => t.name === name)
  if (tool === undefined) throw new Error(`no tool ${name}`)
  return tool
}

/** Whether the tool named targets a server (its input has `socket_name`); a name no tool has does not. */
const namesServerTool = (name: string): boolean => {
  const tool = allTools.find((t) => t.name === name)
  return tool !== undefined && targetsServer(tool)
}

/** `args` with `host: testHost` added where the tool targets a server and the test did not choose a host. */
export const withTestHost = (name: string, args: unknown): unknown =>
  testHost === undefined || typeof args !== "object" || args === null || Array.isArray(args) || "host" in args ||
    !namesServerTool(name)
    ? args
    : { ...args, host: testHost }

export const runTool = (layer: Layer.Layer<ServerServices>, name: string, args: unknown = {}): Promise<CallToolResult> =>
  Effect.runPromise(callTool(toolNamed(name), withTestHost(name, args)).pipe(Effect.provide(layer)))

/** The structured result of a successful call; throws with the error text otherwise. */
export const okResult = <T = any>(result: CallToolResult): T => {
  if (result.isError === true) throw new Error(`tool failed: ${JSON.stringify(result.content)}`)
  return result.structuredContent as T
}

export interface ErrorMeta {
  readonly code: string
  readonly hint: string
  readonly retryable: boolean
  readonly effects: string
}

/** The `_meta` error entry of a failed call; throws if the call succeeded. */
export const errorMeta = (result: CallToolResult): ErrorMeta & { readonly text: string } => {
  if (result.isError !== true) throw new Error(`expected an error, got ${JSON.stringify(result.structuredContent)}`)
  const meta = (result._meta as Record<string, ErrorMeta>)[ERROR_META_KEY]!
  const first = result.content[0]
  return { ...meta, text: first !== undefined && first.type === "text" ? first.text : "" }
}
