/**
 * The MCP bridge over the SDK's low-level `Server` (it takes raw JSON Schema, which we generate from
 * Effect schemas). Tool calls run on a `ManagedRuntime`; a client's cancellation interrupts the
 * fiber, and interruption kills any tmux child. The process exits cleanly on stdin EOF, SIGINT and
 * SIGTERM, after the runtime's finalizers ran. Request lines are bounded (internal/StdioTransport.ts).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type RequestId
} from "@modelcontextprotocol/sdk/types.js"
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { Config } from "../context/Config.js"
import { InvocationContext } from "../context/InvocationContext.js"
import { resolveSocket } from "../context/SocketResolver.js"
import { hint } from "../domain/Errors.js"
import { SERVER_NAME, VERSION } from "../domain/Version.js"
import type { Audit } from "../services/Audit.js"
import type { Policy } from "../services/Policy.js"
import { Progress } from "../services/Progress.js"
import { type AnyTool, type ToolServices, visibleTools } from "../tools/Tool.js"
import { callTool } from "./CallTool.js"
import { buildInstructions } from "./Instructions.js"
import { withProtoKey } from "./internal/ArgumentGuard.js"
import { BoundedStdioServerTransport } from "./internal/StdioTransport.js"
import { readResource, resources } from "./Resources.js"
import { describeTool } from "./ToolList.js"

export type ServerServices = ToolServices | Policy | Audit

/**
 * The SDK's `Server` validates JSON Schema only for form elicitation, which this server never asks
 * for. Giving it this validator spares building its default (Ajv) at start-up, and lets the bundle
 * leave Ajv out altogether (scripts/build.mjs).
 */
const noJsonSchemaValidator: jsonSchemaValidator = {
  getValidator: () => () => ({
    valid: false,
    data: undefined,
    errorMessage: "effect-tmux-mcp validates no JSON Schema (it never asks for form elicitation)"
  })
}

/** Builds the SDK server over a runtime that holds the services. */
export const makeMcpServer = async (
  runtime: ManagedRuntime.ManagedRuntime<ServerServices, never>,
  tools: ReadonlyArray<AnyTool>,
  /** Whether a tools/call request had a `__proto__` argument the SDK's parsing dropped (see StdioTransport). */
  hadProtoKey: (id: RequestId) => boolean = () => false
): Promise<Server> => {
  const { config, context, effective } = await runtime.runPromise(
    Effect.all({
      config: Config,
      context: InvocationContext,
      effective: resolveSocket()
    }).pipe(Effect.orDie)
  )
  const byName = new Map(tools.map((tool) => [tool.name, tool]))
  // Computed once: the tier cannot change while the server runs.
  const listed = visibleTools(tools, config.safety).map(describeTool)

  const server = new Server(
    { name: SERVER_NAME, version: VERSION, title: "tmux (effect-tmux-mcp)" },
    {
      capabilities: { tools: { listChanged: false }, resources: {} },
      instructions: buildInstructions(config, context, effective),
      jsonSchemaValidator: noJsonSchemaValidator
    }
  )

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }))
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = byName.get(request.params.name)
    if (tool === undefined) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. tools/list shows the tools.`)
    }
    const progressToken = request.params._meta?.progressToken
    const args = hadProtoKey(extra.requestId) ? withProtoKey(request.params.arguments) : request.params.arguments
    const call = callTool(tool, args)
    return runtime.runPromise(
      progressToken === undefined
        ? call
        : Effect.provideService(call, Progress, {
            report: ({ progress, total, message }) =>
              Effect.promise(() =>
                extra.sendNotification({
                  method: "notifications/progress",
                  params: {
                    progressToken,
                    progress,
                    ...(total === undefined ? {} : { total }),
                    ...(message === undefined ? {} : { message })
                  }
                })
              )
          }),
      { signal: extra.signal }
    )
  })
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [...resources] }))
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const outcome = await runtime.runPromise(Effect.either(readResource(request.params.uri)), { signal: extra.signal })
    if (Either.isLeft(outcome)) {
      throw new McpError(ErrorCode.InternalError, `${outcome.left.message}\nHint: ${hint(outcome.left)}`)
    }
    if (outcome.right === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`)
    return outcome.right
  })
  return server
}

/** Serves MCP over stdin/stdout until the client goes away or a signal arrives. */
export const serveStdio = async (
  layer: Layer.Layer<ServerServices, never, never>,
  tools: ReadonlyArray<AnyTool>
): Promise<void> => {
  const runtime = ManagedRuntime.make(layer)
  const transport = new BoundedStdioServerTransport()
  const server = await makeMcpServer(runtime, tools, (id) => transport.hadProtoKey(id))
  let closing = false
  const shutdown = async (exitCode: number) => {
    if (closing) return
    closing = true
    try {
      await server.close()
      await runtime.dispose()
    } finally {
      process.exit(exitCode)
    }
  }
  // The SDK's stdio transport does not watch for EOF; without this a closed client leaves us running.
  process.stdin.on("end", () => void shutdown(0))
  process.stdin.on("close", () => void shutdown(0))
  process.stdout.on("error", () => void shutdown(0))
  process.on("SIGINT", () => void shutdown(0))
  process.on("SIGTERM", () => void shutdown(0))
  await server.connect(transport)
}
