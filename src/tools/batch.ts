/**
 * run_batch: several tool calls in one MCP call. Every operation is checked first (the tool set,
 * its tool's tier, the argument guard, its schema), so a refused or invalid one fails the batch
 * with its index before anything runs; then they run in order, each exactly as its own tools/call
 * (the same errors, its own audit record, its own timeouts; a cancel stops the batch). Reads are
 * run one by one, not folded into one tmux round trip: each tool's own query is what it answers by.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Denied, InvalidInput } from "../domain/Errors.js"
import { progressInSequence } from "../services/Progress.js"
import { defineTool, NonNegativeInt, optional, type ToolServices } from "./Tool.js"

export const BATCH_TOOL_NAME = "run_batch"
export const MAX_BATCH_OPERATIONS = 32
/** The most JSON bytes of one operation's result kept in the batch's result. */
export const MAX_OPERATION_RESULT_BYTES = 32_768
/** The most JSON bytes of all the operations' results together. */
export const MAX_BATCH_RESULT_BYTES = 65_536

/** How one operation ended, as its own tools/call would have said it. */
export type OperationOutcome =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly error: { readonly code: string; readonly message: string; readonly hint: string } }

/** A checked operation, ready to run as its own tools/call. */
export type PreparedOperation = Effect.Effect<OperationOutcome, never, ToolServices>

/**
 * The server's own tools/call, for run_batch: `prepare` checks an operation (its tool in the
 * server's tool set, the tier, the argument guard, decoding) without running anything. Provided by
 * mcp/CallTool.ts, which owns those checks.
 */
export class ToolCalls extends Context.Service<ToolCalls, {
  readonly prepare: (tool: string, args: unknown) => Effect.Effect<PreparedOperation, InvalidInput | Denied>
}>()("effect-tmux-mcp/ToolCalls") {}

const OperationError = Schema.Struct({ code: Schema.String, message: Schema.String, hint: Schema.String })

const BatchOperationResult = Schema.Struct({
  tool: Schema.String,
  ok: Schema.Boolean,
  // Every tool answers with an object (its structuredContent).
  result: optional(Schema.Record(Schema.String, Schema.Unknown), "The tool's own result."),
  error: optional(OperationError),
  skipped: optional(Schema.Boolean, "Not run: an earlier operation failed (stop_on_error)."),
  truncated: optional(Schema.Boolean, "The result was left out: result_bytes is over a bound."),
  result_bytes: optional(NonNegativeInt)
})
type BatchOperationResult = typeof BatchOperationResult.Type

const BatchRan = Schema.Struct({
  ok: Schema.Boolean.annotate({ description: "Every operation ran and succeeded." }),
  truncated: Schema.Boolean.annotate({ description: "Some result was left out for its size." }),
  results: Schema.Array(BatchOperationResult)
})

/** The error of a check, naming the operation by its index. */
const atOperation = (index: number, error: InvalidInput | Denied): InvalidInput | Denied =>
  error._tag === "InvalidInput"
    ? new InvalidInput({ reason: `operations.${index}: ${error.reason} Nothing was run.` })
    : new Denied({ ...error, reason: `operations.${index}: ${error.reason} Nothing was run.` })

export const runBatchTool = defineTool({
  name: BATCH_TOOL_NAME,
  title: "Batch of tmux Tool Calls",
  description: "Runs tool calls in order, all checked first; returns each result or error.",
  tier: "readonly",
  group: "context",
  // The annotations follow the safety level (mcp/ToolList.ts): the operations may do what its tools may.
  hints: { runsTools: true, idempotent: true },
  input: Schema.Struct({
    operations: Schema.Array(
      // Any value: the operation's own tool decodes it (an object, by its schema), as its tools/call would.
      // Listed as an object of the step's tool's arguments; decoded against that tool's own schema,
      // whose message names the step and the tool.
      Schema.Struct({ tool: Schema.String, arguments: optional(Schema.Unknown.annotate({ "x-etm-json-schema": { type: "object" } })) })
    ),
    // Default true, as send_keys_batch's: docs/tools.md says it, tools/list need not.
    stop_on_error: optional(Schema.Boolean)
  }),
  output: BatchRan,
  // Each operation is logged as its own call; the batch's own record keeps only their digest.
  payloadArguments: ["operations"],
  // Each operation's own tool decides which of its strings may be long or hold NUL.
  textArguments: { operations: "binary" },
  handler: (input) =>
    Effect.gen(function*() {
      const calls = yield* Effect.serviceOption(ToolCalls)
      if (Option.isNone(calls)) {
        return yield* Effect.fail(new InvalidInput({ reason: `${BATCH_TOOL_NAME} runs only through the MCP server's tools/call.` }))
      }
      // Bounded here, not in the schema: docs/tools.md says it, tools/list need not.
      if (input.operations.length > MAX_BATCH_OPERATIONS) {
        return yield* Effect.fail(new InvalidInput({ reason: `operations: at most ${MAX_BATCH_OPERATIONS} in one batch.` }))
      }
      const prepared: Array<PreparedOperation> = []
      for (const [index, operation] of input.operations.entries()) {
        if (operation.tool === BATCH_TOOL_NAME) {
          return yield* Effect.fail(atOperation(index, new InvalidInput({ reason: "a batch cannot hold another batch." })))
        }
        prepared.push(
          yield* calls.value.prepare(operation.tool, operation.arguments ?? {}).pipe(Effect.mapError((error) => atOperation(index, error)))
        )
      }
      const stopOnError = input.stop_on_error ?? true
      const inSequence = yield* progressInSequence
      const results: Array<BatchOperationResult> = []
      let stopped = false
      let bytes = 0
      for (const [index, run] of prepared.entries()) {
        const tool = input.operations[index]!.tool
        if (stopped) {
          results.push({ tool, ok: false, skipped: true })
          continue
        }
        const outcome = yield* inSequence(run)
        if (!outcome.ok) {
          results.push({ tool, ok: false, error: outcome.error })
          stopped = stopOnError
          continue
        }
        const size = Buffer.byteLength(JSON.stringify(outcome.result) ?? "", "utf8")
        if (size > MAX_OPERATION_RESULT_BYTES || bytes + size > MAX_BATCH_RESULT_BYTES) {
          results.push({ tool, ok: true, truncated: true, result_bytes: size })
          continue
        }
        bytes += size
        // A tool answers with its structuredContent, always an object.
        results.push({ tool, ok: true, result: outcome.result as { readonly [key: string]: unknown } })
      }
      return {
        ok: results.every((result) => result.ok),
        truncated: results.some((result) => result.truncated === true),
        results
      }
    })
})

export const batchTools = [runBatchTool]
