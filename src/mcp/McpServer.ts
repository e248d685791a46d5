/**
 * The MCP bridge over the SDK's low-level `Server` (it takes raw JSON Schema, which we generate from
 * Effect schemas). One stdio connection speaks either MCP era, 2025-11-25 or 2026-07-28: the SDK's
 * serveStdio reads the client's first message and builds a server instance for that era from
 * `serverFor`; what the SDK leaves undone for an era is done by filters on our transport
 * (internal/EraWire.ts, Listens.ts). Each request runs as a fiber of the connection's scope: a
 * client's cancellation interrupts it, interruption kills any tmux child, and the fibers still
 * running when the server stops are interrupted before the services' finalizers run. Serving ends
 * on stdin EOF or a stdout error; a signal interrupts it (main runs it on runMain). Request lines
 * are bounded (internal/StdioTransport.ts).
 */
import {
  type CacheHint,
  type jsonSchemaValidator,
  ProtocolErrorCode as ErrorCode,
  type RequestId,
  Server,
  type StandardSchemaV1
} from "@modelcontextprotocol/server"
import { serveStdio as serveEitherEra } from "@modelcontextprotocol/server/stdio"
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { InvocationContext, type InvocationContextShape } from "../context/InvocationContext.js"
import { type ResolvedSocket, resolveSocket } from "../context/SocketResolver.js"
import { TmuxMcpConfig, type TmuxMcpConfigShape } from "../context/TmuxMcpConfig.js"
import { escapeControls } from "../domain/ControlText.js"
import type { ToolError } from "../domain/Errors.js"
import { SERVER_NAME, VERSION } from "../domain/Version.js"
import type { Audit } from "../services/Audit.js"
import type { Policy } from "../services/Policy.js"
import { Progress } from "../services/Progress.js"
import type { AnyTool, ToolServices } from "../tools/Tool.js"
import { enabledTools, selectedTools } from "../tools/ToolSets.js"
import { callTool } from "./CallTool.js"
import { buildInstructions } from "./Instructions.js"
import { withProtoKey } from "./internal/ArgumentGuard.js"
import { makeEraWire } from "./internal/EraWire.js"
import { type Era, resourceErrorFields } from "./internal/ResourceError.js"
import { BoundedStdioServerTransport, type WireFilter } from "./internal/StdioTransport.js"
import { makeListens } from "./Listens.js"
import { getPrompt, listedPrompts } from "./Prompts.js"
import { readResource, resources, resourceTemplatesFor } from "./Resources.js"
import { makeSubscriptions, MAX_SUBSCRIPTIONS, type Subscriptions } from "./Subscriptions.js"
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
 * How long a 2026-era client may keep a list: the tools, prompts, resources and templates listed
 * change only with the server's configuration, so never while it runs; a new configuration means
 * a new process, and an hour bounds how long a client that keeps caches across restarts can miss
 * it. `private`: the lists are this server's (its tier, tool set, hosts file), not for shared
 * caches. A read (a pane's screen, a list of sessions) changes any moment: it keeps the SDK's
 * default, 0 ms.
 */
const LIST_CACHE: CacheHint = { ttlMs: 3_600_000, cacheScope: "private" }

/**
 * A JSON-RPC error for the SDK to send. Not an `McpError`: that class puts "MCP error <code>: "
 * into its own message, and the client adds the same prefix to what it receives, so the caller
 * read it twice.
 */
const jsonRpcError = (code: number, message: string, data?: unknown): Error =>
  Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) })

const resourceError = (error: ToolError, uri: string, era: Era): Error => {
  const { code, data, message } = resourceErrorFields(error, uri, era)
  return jsonRpcError(code, message, data)
}

/**
 * prompts/get's params: the name checked, its arguments left for getPrompt to check, so a bad one
 * is -32602 in our words (the SDK answers a failure here -32602 "Invalid params for prompts/get").
 */
const PromptParams = Schema.toStandardSchemaV1(
  Schema.Struct({ name: Schema.String, arguments: Schema.optionalKey(Schema.Unknown) })
) as StandardSchemaV1<unknown, { readonly name: string; readonly arguments?: unknown }>

/** A resource request's params: the URI checked here, so a request without one is -32602 "Invalid params", not an internal error. */
const UriParams = Schema.toStandardSchemaV1(Schema.Struct({ uri: Schema.String })) as StandardSchemaV1<
  unknown,
  { readonly uri: string }
>

/** Runs one request's effect on the server's services; aborting the signal (a client's cancel) interrupts it. */
type RunRequest = <A, E>(effect: Effect.Effect<A, E, ServerServices>, signal: AbortSignal) => Promise<A>

/** One client connection: its requests' runner, its subscriptions, and the SDK servers it is served by. */
interface Connection {
  readonly run: RunRequest
  readonly subscriptions: Subscriptions
  /**
   * A server instance for an era. The SDK may ask twice on one connection (a server/discover probe,
   * then a fallback to initialize); the runner and subscriptions are the connection's, built once,
   * and updates go to the latest instance.
   */
  readonly serverFor: (era: Era) => Server
}

const makeConnection = (
  tools: ReadonlyArray<AnyTool>,
  /** Whether a tools/call request had a `__proto__` argument the SDK's parsing dropped (see StdioTransport). */
  hadProtoKey: (id: RequestId) => boolean
): Effect.Effect<Connection, never, ServerServices | Scope.Scope> =>
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
    const latest: { server?: Server } = {}
    const subscriptions = yield* makeSubscriptions((uri) => {
      // A client gone meanwhile: nothing to tell.
      latest.server?.sendResourceUpdated({ uri }).catch(() => undefined)
    })
    return {
      run,
      subscriptions,
      serverFor: (era) => {
        latest.server = serverFor(tools, hadProtoKey, run, subscriptions, era, { config, context, effective })
        return latest.server
      }
    }
  })

/**
 * Builds a 2025-era SDK server over the services (for a transport of the embedder's own: an
 * in-memory pair in tests); its requests run as fibers of the scope (interrupted when it closes).
 */
export const makeMcpServer = (
  tools: ReadonlyArray<AnyTool>,
  hadProtoKey: (id: RequestId) => boolean = () => false
): Effect.Effect<Server, never, ServerServices | Scope.Scope> =>
  Effect.map(makeConnection(tools, hadProtoKey), (connection) => connection.serverFor("legacy"))

const serverFor = (
  tools: ReadonlyArray<AnyTool>,
  hadProtoKey: (id: RequestId) => boolean,
  run: RunRequest,
  subscriptions: Subscriptions,
  era: Era,
  { config, context, effective }: {
    readonly config: TmuxMcpConfigShape
    readonly context: InvocationContextShape
    readonly effective: ResolvedSocket
  }
): Server => {
  // A tool the tool set leaves out is unknown here; one above the safety level is listed not, but denied by name.
  const byName = new Map(selectedTools(tools, config.toolSelection).map((tool) => [tool.name, tool]))
  // Computed once: the tier and the tool set cannot change while the server runs. In the registry's
  // order, the same at every call (2026-07-28 asks for a deterministic order).
  const hostNames = config.hosts?.hosts.map((host) => host.name) ?? []
  const listed = enabledTools(tools, config).map((tool) => describeTool(tool, config.safety, hostNames))

  const server = new Server(
    { name: SERVER_NAME, version: VERSION, title: "tmux (effect-tmux-mcp)" },
    {
      // resources.subscribe: 2025's resources/subscribe and 2026's subscriptions/listen. No
      // `logging`: this server logs only on stderr, and never sends notifications/message.
      capabilities: { tools: { listChanged: false }, resources: { subscribe: true }, prompts: {} },
      instructions: buildInstructions(config, context, effective),
      jsonSchemaValidator: noJsonSchemaValidator,
      cacheHints: {
        "tools/list": LIST_CACHE,
        "prompts/list": LIST_CACHE,
        "resources/list": LIST_CACHE,
        "resources/templates/list": LIST_CACHE
      }
    }
  )

  server.setRequestHandler("tools/list", () => ({ tools: listed }))
  server.setRequestHandler("tools/call", (request, ctx) => {
    const tool = byName.get(request.params.name)
    if (tool === undefined) {
      throw jsonRpcError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. tools/list shows the tools.`)
    }
    const progressToken = request.params._meta?.progressToken
    const args = hadProtoKey(ctx.mcpReq.id) ? withProtoKey(request.params.arguments) : request.params.arguments
    const call = callTool(tool, args, byName)
    return run(
      progressToken === undefined
        ? call
        : Effect.provideService(call, Progress, {
          report: ({ progress, total, message }) =>
            Effect.promise(() =>
              ctx.mcpReq.notify({
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
      ctx.mcpReq.signal
    )
  })
  server.setRequestHandler("resources/list", () => ({ resources: [...resources] }))
  const templates = resourceTemplatesFor(config.hosts !== undefined)
  server.setRequestHandler("resources/templates/list", () => ({ resourceTemplates: [...templates] }))
  server.setRequestHandler("resources/read", { params: UriParams }, async ({ uri }, ctx) => {
    const outcome = await run(Effect.result(readResource(uri, tools)), ctx.mcpReq.signal)
    if (Result.isFailure(outcome)) throw resourceError(outcome.failure, uri, era)
    if (outcome.success === undefined) throw jsonRpcError(ErrorCode.InvalidParams, `Unknown resource: ${uri}`)
    return outcome.success
  })
  // 2025 only: the SDK answers them method-not-found on 2026-07-28, where subscriptions/listen is the way (Listens.ts).
  server.setRequestHandler("resources/subscribe", { params: UriParams }, async ({ uri }, ctx) => {
    const outcome = await run(Effect.result(subscriptions.subscribe(uri)), ctx.mcpReq.signal)
    if (Result.isFailure(outcome)) throw resourceError(outcome.failure, uri, era)
    return {}
  })
  server.setRequestHandler("resources/unsubscribe", { params: UriParams }, async ({ uri }, ctx) => {
    await run(subscriptions.unsubscribe(uri), ctx.mcpReq.signal)
    return {}
  })
  server.setRequestHandler("prompts/list", () => ({ prompts: [...listedPrompts] }))
  server.setRequestHandler("prompts/get", { params: PromptParams }, (params) => {
    const prompt = getPrompt(params.name, params.arguments)
    if (prompt === undefined) throw jsonRpcError(ErrorCode.InvalidParams, "Unknown prompt. prompts/list shows the prompts.")
    if (typeof prompt === "string") throw jsonRpcError(ErrorCode.InvalidParams, prompt)
    return prompt
  })
  return server
}

/** stderr, never stdout (the protocol's); a client's text in the line has its controls escaped. */
const logLine = (line: string) => void process.stderr.write(`effect-tmux-mcp: ${escapeControls(line)}\n`)

/** Both filters on one wire: inbound, the first that takes a message wins; outbound, each in turn. */
const bothFilters = (first: WireFilter, second: WireFilter): WireFilter => ({
  inbound: (message) => first.inbound(message) || second.inbound(message),
  outbound: (message) => second.outbound(first.outbound(message))
})

/**
 * Serves MCP over stdin/stdout, in the era the client opens with, until the client goes away
 * (stdin ends or closes, stdout fails), or until it is interrupted; the SDK's server is closed
 * first, then the requests still running.
 */
export const serveStdio = (tools: ReadonlyArray<AnyTool>): Effect.Effect<void, never, ServerServices> =>
  Effect.scoped(
    Effect.gen(function*() {
      const transport = new BoundedStdioServerTransport()
      const connection = yield* makeConnection(tools, (id) => transport.hadProtoKey(id))
      const send = (message: Parameters<typeof transport.send>[0]) => void transport.send(message)
      const eraWire = makeEraWire(send)
      // Never aborted: a listen's subscription is ended by its cancel, or by the connection's scope.
      const whole = new AbortController().signal
      const listens = makeListens({
        attach: (uri, holder) =>
          connection.run(Effect.result(connection.subscriptions.subscribe(uri, holder)), whole).then((outcome) =>
            Result.isFailure(outcome) ? outcome.failure : undefined
          ),
        detach: (uri, holder) => void connection.run(connection.subscriptions.unsubscribe(uri, holder), whole),
        deliver: (message) => transport.deliver(message),
        send,
        isLegacy: () => eraWire.era === "legacy",
        log: logLine
      })
      transport.filter = bothFilters(eraWire, listens)
      const gone = yield* Deferred.make<void>()
      const done = () => Deferred.doneUnsafe(gone, Exit.void)
      // The SDK's stdio entry does not watch for EOF; without this a closed client leaves us running.
      // Left in place: the process ends with the server, and an EPIPE must never go unhandled.
      process.stdin.on("end", done)
      process.stdin.on("close", done)
      process.stdout.on("error", done)
      yield* Effect.acquireRelease(
        Effect.sync(() =>
          serveEitherEra(({ era }) => {
            eraWire.era = era
            return connection.serverFor(era)
          }, {
            transport,
            // Listens at once; the screens they watch are capped by the engine (MAX_SUBSCRIPTIONS too).
            maxSubscriptions: MAX_SUBSCRIPTIONS
          })
        ),
        (handle) => Effect.ignore(Effect.tryPromise(() => handle.close()))
      )
      yield* Deferred.await(gone)
    })
  )
