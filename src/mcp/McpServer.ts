/**
 * The MCP bridge over the SDK's low-level `Server` (it takes raw JSON Schema, which we generate from
 * Effect schemas). Each request runs as a fiber of the server's scope: a client's cancellation
 * interrupts it, interruption kills any tmux child, and the fibers still running when the server
 * stops are interrupted before the services' finalizers run. Serving ends on stdin EOF or a stdout
 * error; a signal interrupts it (main runs it on runMain). Request lines are bounded
 * (internal/StdioTransport.ts).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type RequestId,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import { InvocationContext, type InvocationContextShape } from "../context/InvocationContext.js"
import { type ResolvedSocket, resolveSocket } from "../context/SocketResolver.js"
import { TmuxMcpConfig, type TmuxMcpConfigShape } from "../context/TmuxMcpConfig.js"
import { errorCode, resourceHint, type ToolError } from "../domain/Errors.js"
import { SERVER_NAME, VERSION } from "../domain/Version.js"
import type { Audit } from "../services/Audit.js"
import type { Policy } from "../services/Policy.js"
import { Progress } from "../services/Progress.js"
import type { AnyTool, ToolServices } from "../tools/Tool.js"
import { enabledTools, selectedTools } from "../tools/ToolSets.js"
import { callTool } from "./CallTool.js"
import { buildInstructions } from "./Instructions.js"
import { withProtoKey } from "./internal/ArgumentGuard.js"
import { BoundedStdioServerTransport } from "./internal/StdioTransport.js"
import { getPrompt, listedPrompts } from "./Prompts.js"
import { readResource, resources, resourceTemplatesFor } from "./Resources.js"
import { makeSubscriptions, type Subscriptions } from "./Subscriptions.js"
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

/**
 * A JSON-RPC error for the SDK to send. Not an `McpError`: that class puts "MCP error <code>: "
 * into its own message, and the client adds the same prefix to what it receives, so the caller
 * read it twice.
 */
const jsonRpcError = (code: ErrorCode, message: string, data?: unknown): Error =>
  Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) })

/** MCP's code for a resource that does not exist (the spec's "Resource not found"). */
/** prompts/get with its arguments left for getPrompt to check, so a bad one is -32602 in our words. */
const PromptRequest = GetPromptRequestSchema.extend({
  params: GetPromptRequestSchema.shape.params.omit({ arguments: true }).loose()
})

const RESOURCE_NOT_FOUND = -32002

/**
 * A resource request's failure: bad input is invalid params, a missing object "resource not
 * found", the rest internal; the message and hint as a tool's, our error code in `data`.
 */
const resourceError = (error: ToolError): Error =>
  jsonRpcError(
    error._tag === "InvalidInput"
      ? ErrorCode.InvalidParams
      : error._tag === "NotFound"
      ? RESOURCE_NOT_FOUND as ErrorCode
      : ErrorCode.InternalError,
    `${error.message}\nHint: ${resourceHint(error)}`,
    { code: errorCode(error) }
  )

/** Runs one request's effect on the server's services; aborting the signal (a client's cancel) interrupts it. */
type RunRequest = <A, E>(effect: Effect.Effect<A, E, ServerServices>, signal: AbortSignal) => Promise<A>

/**
 * Builds the SDK server over the services; its requests run as fibers of the scope (interrupted
 * when it closes).
 */
export const makeMcpServer = (
  tools: ReadonlyArray<AnyTool>,
  /** Whether a tools/call request had a `__proto__` argument the SDK's parsing dropped (see StdioTransport). */
  hadProtoKey: (id: RequestId) => boolean = () => false
): Effect.Effect<Server, never, ServerServices | Scope.Scope> =>
  Effect.gen(function*() {
    const config = yield* TmuxMcpConfig
    const context = yield* InvocationContext
    const effective = yield* Effect.orDie(resolveSocket())
    const runFork = yield* FiberSet.makeRuntime<ServerServices>()
    // As ManagedRuntime.runPromise would, with the request's fiber in the scope's set.
    const run: RunRequest = (effect, signal) =>
      new Promise((resolve, reject) => {
        const fiber = runFork(effect)
        const cancel = () => fiber.interruptUnsafe()
        signal.addEventListener("abort", cancel, { once: true })
        if (signal.aborted) cancel()
        fiber.addObserver((exit) => {
          signal.removeEventListener("abort", cancel)
          if (Exit.isSuccess(exit)) resolve(exit.value)
          else reject(Cause.squash(exit.cause))
        })
      })
    // The server is built after the subscriptions it notifies through.
    const built: { server?: Server } = {}
    const subscriptions = yield* makeSubscriptions((uri) => {
      // A client gone meanwhile: nothing to tell.
      built.server?.sendResourceUpdated({ uri }).catch(() => undefined)
    })
    built.server = serverFor(tools, hadProtoKey, run, subscriptions, { config, context, effective })
    return built.server
  })

const serverFor = (
  tools: ReadonlyArray<AnyTool>,
  hadProtoKey: (id: RequestId) => boolean,
  run: RunRequest,
  subscriptions: Subscriptions,
  { config, context, effective }: {
    readonly config: TmuxMcpConfigShape
    readonly context: InvocationContextShape
    readonly effective: ResolvedSocket
  }
): Server => {
  // A tool the tool set leaves out is unknown here; one above the safety level is listed not, but denied by name.
  const byName = new Map(selectedTools(tools, config.toolSelection).map((tool) => [tool.name, tool]))
  // Computed once: the tier and the tool set cannot change while the server runs.
  const hostNames = config.hosts?.hosts.map((host) => host.name) ?? []
  const listed = enabledTools(tools, config).map((tool) => describeTool(tool, config.safety, hostNames))

  const server = new Server(
    { name: SERVER_NAME, version: VERSION, title: "tmux (effect-tmux-mcp)" },
    {
      capabilities: { tools: { listChanged: false }, resources: { subscribe: true }, prompts: {} },
      instructions: buildInstructions(config, context, effective),
      jsonSchemaValidator: noJsonSchemaValidator
    }
  )

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }))
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const tool = byName.get(request.params.name)
    if (tool === undefined) {
      throw jsonRpcError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. tools/list shows the tools.`)
    }
    const progressToken = request.params._meta?.progressToken
    const args = hadProtoKey(extra.requestId) ? withProtoKey(request.params.arguments) : request.params.arguments
    const call = callTool(tool, args, byName)
    return run(
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
      extra.signal
    )
  })
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [...resources] }))
  const templates = resourceTemplatesFor(config.hosts !== undefined)
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [...templates] }))
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const outcome = await run(Effect.result(readResource(request.params.uri, tools)), extra.signal)
    if (Result.isFailure(outcome)) throw resourceError(outcome.failure)
    if (outcome.success === undefined) throw jsonRpcError(ErrorCode.InvalidParams, `Unknown resource: ${request.params.uri}`)
    return outcome.success
  })
  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    const outcome = await run(Effect.result(subscriptions.subscribe(request.params.uri)), extra.signal)
    if (Result.isFailure(outcome)) throw resourceError(outcome.failure)
    return {}
  })
  server.setRequestHandler(UnsubscribeRequestSchema, async (request, extra) => {
    await run(subscriptions.unsubscribe(request.params.uri), extra.signal)
    return {}
  })
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [...listedPrompts] }))
  server.setRequestHandler(PromptRequest, (request) => {
    const prompt = getPrompt(request.params.name, request.params.arguments)
    if (prompt === undefined) throw jsonRpcError(ErrorCode.InvalidParams, "Unknown prompt. prompts/list shows the prompts.")
    if (typeof prompt === "string") throw jsonRpcError(ErrorCode.InvalidParams, prompt)
    return prompt
  })
  return server
}

/**
 * Serves MCP over stdin/stdout until the client goes away (stdin ends or closes, stdout fails), or
 * until it is interrupted; the SDK server is closed first, then the requests still running.
 */
export const serveStdio = (tools: ReadonlyArray<AnyTool>): Effect.Effect<void, never, ServerServices> =>
  Effect.scoped(
    Effect.gen(function*() {
      const transport = new BoundedStdioServerTransport()
      const server = yield* makeMcpServer(tools, (id) => transport.hadProtoKey(id))
      const gone = yield* Deferred.make<void>()
      const done = () => Deferred.doneUnsafe(gone, Exit.void)
      // The SDK's stdio transport does not watch for EOF; without this a closed client leaves us running.
      // Left in place: the process ends with the server, and an EPIPE must never go unhandled.
      process.stdin.on("end", done)
      process.stdin.on("close", done)
      process.stdout.on("error", done)
      yield* Effect.acquireRelease(
        Effect.promise(() => server.connect(transport)),
        () => Effect.ignore(Effect.tryPromise(() => server.close()))
      )
      yield* Deferred.await(gone)
    })
  )
