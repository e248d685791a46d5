/**
 * tools/call as an Effect: decode -> tier check -> handler -> encode -> audit. Every ordinary
 * failure becomes a normal tool result with `isError: true`, the message, a "Hint:" line and a
 * machine-readable `_meta` entry; only an unknown tool name is a protocol error (left to the caller).
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { LOCAL_HOST } from "../context/HostsConfig.js"
import { onHost } from "../context/RemoteHosts.js"
import { TmuxMcpConfig, type TmuxMcpConfigShape } from "../context/TmuxMcpConfig.js"
import { escapeMessageControls } from "../domain/ControlText.js"
import { Denied, errorCode, happenedBeforeTmux, hint, InvalidInput, isRetryable, type ToolError } from "../domain/Errors.js"
import { withRegexBudget } from "../operations/bounds/RegexBudget.js"
import { Audit, redactArguments } from "../services/Audit.js"
import { checkHostCap, Policy } from "../services/Policy.js"
import { type OperationOutcome, ToolCalls } from "../tools/batch.js"
import { allTools } from "../tools/registry.js"
import { type AnyTool, propertySignatures, takesHost, type ToolServices } from "../tools/Tool.js"
import { selectedTools } from "../tools/ToolSets.js"
import { checkArguments, pathSegment } from "./internal/ArgumentGuard.js"
import { lenientArguments } from "./internal/LenientArguments.js"
import { encodeOutput } from "./internal/OutputEncoder.js"
import { renderResultText } from "./internal/ResultText.js"

/** The `_meta` key that carries `{ code, kind?, hint, retryable, effects }` on error results. */
export const ERROR_META_KEY = "effect-tmux-mcp/error"

/**
 * A tools/call result as MCP defines it: one text block (on success a compact rendering of the
 * value that `structuredContent` carries as JSON); on failure `isError` and the error's `_meta` entry under ERROR_META_KEY. (The SDK's
 * `CallToolResult`, restated so that the library's types do not need the SDK; a type alias, not an
 * interface, so that it fits the SDK's open record.)
 */
export type ToolResult = {
  readonly content: Array<{ readonly type: "text"; readonly text: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: boolean
  readonly _meta?: Record<string, unknown>
}

/**
 * Effect's messages, but never the value given: a leaf says what was expected ("Expected string"),
 * that a key is missing, or that it is unexpected and which keys are; a check says its own message.
 */
const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) => {
    switch (issue._tag) {
      case "MissingKey":
        return "is missing"
      case "UnexpectedKey": {
        // The keys named are the schema's own, never the caller's.
        const names = propertySignatures(issue.ast).map((property) => JSON.stringify(String(property.name)))
        return names.length > 0 ? `is unexpected, expected: ${names.join(" | ")}` : "is unexpected"
      }
      default: {
        // Effect appends the input ("…, got 5", "Invalid data 5", "…to match the input 5"): cut off.
        const message = SchemaIssue.defaultLeafHook(issue)
        return message.startsWith("Invalid data ") ? "Expected a valid value" : message.replace(/(, got | the input )[\s\S]*$/, "")
      }
    }
  }
})

/** A decoding failure, described by argument path and expectation; never with the value given. */
export const describeParseError = (error: Schema.SchemaError): string => {
  const byPath = new Map<string, Array<string>>()
  for (const issue of formatIssues(error.issue).issues) {
    const keys = (issue.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment))
    // Keys may be the caller's (an excess property, a map's key): long or odd ones are not echoed.
    const path = keys.length === 0
      ? "arguments"
      : keys.map((key) => (typeof key === "symbol" ? "[key]" : pathSegment(key))).join(".")
    const message = keys.length === 0 && issue.message.startsWith("Expected object") ? "must be an object" : issue.message
    const list = byPath.get(path) ?? []
    if (!list.includes(message)) list.push(message)
    byPath.set(path, list)
  }
  return [...byPath].map(([path, messages]) => `${path}: ${messages.join(" or ")}`).join("; ")
}

const decodeArguments = (tool: AnyTool, args: unknown): Effect.Effect<unknown, InvalidInput> =>
  Result.match(Schema.decodeUnknownResult(tool.input, { onExcessProperty: "error", errors: "all" })(args ?? {}), {
    onFailure: (error) => Effect.fail(new InvalidInput({ reason: describeParseError(error) })),
    onSuccess: Effect.succeed
  })

/** The most characters of an error message sent; messages never carry a value whole, and this holds even for one that slipped through. */
export const MAX_ERROR_MESSAGE_CHARS = 1600

const bounded = (message: string): string =>
  message.length <= MAX_ERROR_MESSAGE_CHARS
    ? message
    : `${message.slice(0, MAX_ERROR_MESSAGE_CHARS - 40)}… (${message.length - MAX_ERROR_MESSAGE_CHARS + 40} characters cut)`

export const errorResult = (tool: AnyTool, error: ToolError): ToolResult => {
  const recovery = hint(error)
  return {
    isError: true,
    // The tmux errors escape their own text; a denial or conflict may quote a name a program set.
    // A tmux failure names the tool, never the command list we sent.
    content: [{
      type: "text",
      text: `${bounded(escapeMessageControls(error._tag === "Failed" ? error.messageFor(tool.name) : error.message))}\nHint: ${recovery}`
    }],
    _meta: {
      [ERROR_META_KEY]: {
        code: errorCode(error),
        ...(error._tag === "Denied" || error._tag === "Conflict"
          ? { kind: error.kind }
          : error._tag === "Failed" && error.reason === "access"
          ? { kind: "server_access" }
          : error._tag === "Failed" && error.reason === "refused"
          ? { kind: "socket_owner" }
          : error._tag === "Failed" && error.reason === "host"
          ? { kind: "host_link" }
          : {}),
        hint: recovery,
        retryable: isRetryable(error),
        effects: tool.tier === "readonly" || happenedBeforeTmux(error) ? "none" : "possible"
      }
    }
  }
}

// The text is what most clients hand the model: the compact rendering; structuredContent keeps the typed JSON.
const successResult = (value: unknown): ToolResult => ({
  content: [{ type: "text", text: renderResultText(value) }],
  structuredContent: value as Record<string, unknown>
})

/** A bug, not a tmux failure: reported as an error result and logged, never crashing the server. */
const defectResult = (tool: AnyTool, defect: unknown): ToolResult => ({
  isError: true,
  content: [
    {
      type: "text",
      text: `Internal error in ${tool.name}: ${
        escapeMessageControls(defect instanceof Error ? defect.message : String(defect))
      }\nHint: This is a bug in effect-tmux-mcp; run \`effect-tmux-mcp doctor\` and report it.`
    }
  ],
  _meta: { [ERROR_META_KEY]: { code: "failed", hint: "report the bug", retryable: false, effects: "possible" } }
})

/**
 * The argument bounds, lenient strings (the decoded value bounded again) and decoding: what every
 * way of running a tool checks before its handler. Nothing reaches tmux before they pass.
 */
const decodedInput = (tool: AnyTool, args: unknown): Effect.Effect<unknown, InvalidInput> =>
  Effect.gen(function*() {
    yield* Effect.fromResult(checkArguments(tool, args))
    // Strings some clients send for numbers, flags, objects and arrays; what they decode to is guarded too.
    const lenient = lenientArguments(tool.input, args)
    if (lenient !== args) yield* Effect.fromResult(checkArguments(tool, lenient))
    return yield* decodeArguments(tool, lenient)
  })

/** A call's arguments without `host`, the host it names (`local` by default) and whether it named one. */
interface Hosted {
  readonly args: unknown
  readonly host: string
  readonly given: boolean
}

/**
 * With a hosts file, a tool that targets a server or surveys the hosts takes `host`: a name of the
 * file or `local`, never a destination. It is taken out before decoding (the tools' own schemas do
 * not know it); without a hosts file it is an unknown argument like any other.
 */
const hostedArguments = (tool: AnyTool, args: unknown, config: TmuxMcpConfigShape): Effect.Effect<Hosted, InvalidInput> => {
  if (config.hosts === undefined || !takesHost(tool) || typeof args !== "object" || args === null || !("host" in args)) {
    return Effect.succeed({ args, host: LOCAL_HOST, given: false })
  }
  const { host, ...rest } = args as Record<string, unknown>
  const names = [LOCAL_HOST, ...config.hosts.hosts.map((entry) => entry.name)]
  return typeof host === "string" && names.includes(host)
    ? Effect.succeed({ args: rest, host, given: true })
    : Effect.fail(new InvalidInput({ reason: `host: must be one of ${names.join(", ")} (where_am_i shows each host).` }))
}

/**
 * The handler, about the call's host: a tool that surveys hosts is told the host it is narrowed
 * to (`input.host`); any other runs on the host (`onHost`), `local` when none was named.
 */
const runHandler = (tool: AnyTool, input: unknown, hosted: Hosted): Effect.Effect<unknown, ToolError, ToolServices> =>
  tool.surveysHosts === true
    ? tool.handler(hosted.given ? { ...(input as object), host: hosted.host } : input)
    : onHost(hosted.host)(tool.handler(input))

/** tools/call's checks: the safety tier, the host's, then the input's. */
const checkedInput = (tool: AnyTool, hosted: Hosted): Effect.Effect<unknown, InvalidInput | Denied, Policy | TmuxMcpConfig> =>
  Effect.andThen(
    Effect.flatMap(Policy, (policy) => policy.check(tool)),
    // A tool that runs others is checked per operation, each on its own host.
    Effect.andThen(tool.hints.runsTools === true ? Effect.void : checkHostCap(tool, hosted.host), decodedInput(tool, hosted.args))
  )

/**
 * A tool's value as JSON, as tools/call computes it: the input's checks, the handler and encoding.
 * No tier check and no audit: tools/call adds them; resource reads use only readonly tools.
 */
export const toolValue = (tool: AnyTool, args: unknown): Effect.Effect<unknown, ToolError, ToolServices> =>
  withRegexBudget(Effect.gen(function*() {
    const hosted = yield* hostedArguments(tool, args, yield* TmuxMcpConfig)
    const input = yield* decodedInput(tool, hosted.args)
    const output = yield* runHandler(tool, input, hosted)
    // Encoding checks the handler kept its promise (a broken promise is a bug: it throws, a defect).
    return encodeOutput(tool.output, output)
  }))

/** An operation's outcome read back from its result: run_batch reports each as its own call would. */
const operationOutcome = (result: ToolResult): OperationOutcome => {
  if (result.isError !== true) return { ok: true, result: result.structuredContent }
  const meta = result._meta?.[ERROR_META_KEY] as { readonly code: string; readonly hint: string }
  const text = result.content[0]?.text ?? ""
  const cut = text.lastIndexOf("\nHint: ")
  return { ok: false, error: { code: meta.code, message: cut < 0 ? text : text.slice(0, cut), hint: meta.hint } }
}

/**
 * run_batch's view of tools/call: an operation's tool must be one of `tools` (the server's tool
 * set) and pass the checks above; it then runs as a call of its own.
 */
const toolCallsOf = (
  tools: ReadonlyMap<string, AnyTool> | undefined
): Effect.Effect<typeof ToolCalls.Service, never, Policy | Audit | TmuxMcpConfig> =>
  Effect.gen(function*() {
    // Only these two: the whole context would also carry the call's Progress over run_batch's own.
    const services = Context.pick(Policy, Audit)(yield* Effect.context<Policy | Audit>())
    const config = yield* TmuxMcpConfig
    let known = tools
    return {
      prepare: (name, args) => {
        known ??= new Map(selectedTools(allTools, config.toolSelection).map((tool) => [tool.name, tool]))
        const tool = known.get(name)
        if (tool === undefined) {
          return Effect.fail(new InvalidInput({ reason: "tool: names no tool of this server's tool set (tools/list shows them)." }))
        }
        return hostedArguments(tool, args, config).pipe(
          Effect.flatMap((hosted) => checkedInput(tool, hosted)),
          Effect.as(callTool(tool, args, known).pipe(Effect.map(operationOutcome), Effect.provide(services))),
          Effect.mapError((error) => error._tag === "InvalidInput" ? new InvalidInput({ reason: `${tool.name}: ${error.reason}` }) : error),
          Effect.provide(services),
          Effect.provideService(TmuxMcpConfig, config)
        )
      }
    }
  })

/** How many of a batch's operations failed or were skipped, read from its result (`results[].ok`). */
const operationsNotOk = (value: unknown): number => {
  const results = (value as { readonly results?: unknown }).results
  return Array.isArray(results) ? results.filter((result) => (result as { readonly ok?: unknown }).ok === false).length : 0
}

/**
 * Runs one tool as the MCP server's tools/call does: the safety tier, the argument bounds, decoding,
 * the handler, encoding and one audit record; every ordinary failure (and a defect) is an error
 * result, so the Effect never fails. `tools` is the server's tool set, for run_batch's operations
 * (by default the registry's, less what LIBTMUX_MCP_TOOLS leaves out).
 */
export const callTool = (
  tool: AnyTool,
  args: unknown,
  tools?: ReadonlyMap<string, AnyTool>
): Effect.Effect<ToolResult, never, ToolServices | Policy | Audit> =>
  Effect.gen(function*() {
    // Wall-clock on purpose: the audit says how long the call really took (to 0.01 ms); no wait depends on it.
    const started = performance.now()
    const audit = yield* Audit
    const outcome = yield* Effect.gen(function*() {
      const hosted = yield* hostedArguments(tool, args, yield* TmuxMcpConfig)
      const input = yield* checkedInput(tool, hosted)
      // Only a tool that runs others (run_batch) is given the way to; every other call skips building it.
      const output = tool.hints.runsTools === true
        ? yield* Effect.provideService(tool.handler(input), ToolCalls, yield* toolCallsOf(tools))
        : yield* runHandler(tool, input, hosted)
      // Encoding checks the handler kept its promise (a broken promise is a bug: it throws, a defect).
      return encodeOutput(tool.output, output)
      // run_batch's operations run inside it: one budget for the whole call.
    }).pipe(withRegexBudget, Effect.result)
    const result = Result.match(outcome, {
      onFailure: (error) => errorResult(tool, error),
      onSuccess: successResult
    })
    const failedOperations = Result.isSuccess(outcome) && tool.hints.runsTools === true ? operationsNotOk(outcome.success) : 0
    yield* audit.record({
      tool: tool.name,
      outcome: Result.isFailure(outcome) ? "error" : failedOperations > 0 ? "partial" : "ok",
      error_code: Result.isFailure(outcome) ? errorCode(outcome.failure) : null,
      ...(failedOperations > 0 ? { failed_operations: failedOperations } : {}),
      duration_ms: Math.round((performance.now() - started) * 100) / 100,
      arguments: redactArguments(args, tool.payloadArguments)
    })
    return result
  }).pipe(
    Effect.catchDefect((defect) =>
      Effect.sync(() => {
        process.stderr.write(`effect-tmux-mcp: defect in ${tool.name}: ${Cause.pretty(Cause.die(defect))}\n`)
        return defectResult(tool, defect)
      })
    )
  )
