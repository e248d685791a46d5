/**
 * Typing into a pane with `send-keys`. The caller's keys reach tmux as one argument, after `--`,
 * so they are never split on spaces, never read as flags and never parsed by a shell: an argv
 * element, or a token of the command line `whenAlive` quotes for tmux's parser, which reads it back
 * exactly.
 *
 * Without `literal`, the string is read once (KeyNames.ts): one key is sent in the spelling tmux
 * delivers ("Shift+Tab" as BTab), a key-like string tmux would not deliver is refused, and text is
 * sent with `-l`, so tmux never reads it as a key name. With `literal` it is always text.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { Conflict, errorCode, InvalidInput, NotFound, type TmuxError } from "../../domain/Errors.js"
import { PaneId } from "../../domain/Ids.js"
import { NonNegativeInt } from "../../domain/Model.js"
import { BATCH_BUDGET, commandListBytes } from "../../tmux/CommandBatches.js"
import { ifFormat } from "../../tmux/ControlProtocol.js"
import * as Format from "../../tmux/Format.js"
import { decode, runTree } from "../../tmux/Query.js"
import { Tmux, type TmuxCommand } from "../../tmux/Tmux.js"
import { ensureGeneration, type GenerationCheck } from "../servers/Servers.js"
import { lookCommands, takeLook } from "../watching/InlineLook.js"
import type { PaneView } from "../watching/Snapshot.js"
import { readKeys } from "./KeyNames.js"

/**
 * Whether `keys` (without `literal`) is one key (see KeyNames.ts: C-c, Escape, Up, Shift+Tab, …).
 * This decides the default of `enter`: after a key an Enter is never what was meant.
 */
export const isSpecialKey = (keys: string): boolean => readKeys(keys)._tag === "Key"

/** tmux refuses a command line over about 16 KiB; longer text goes in pieces of this size. */
const CHUNK_BYTES = 8192
/** The most UTF-8 bytes one send-keys request types. */
export const MAX_KEYS_BYTES = 65_536

/** Splits text into pieces of at most `limit` UTF-8 bytes without cutting a character. */
const chunksOf = (text: string, limit: number): Array<string> => {
  const chunks: Array<string> = []
  let current = ""
  let size = 0
  for (const character of text) {
    const bytes = Buffer.byteLength(character, "utf8")
    if (size + bytes > limit) {
      chunks.push(current)
      current = ""
      size = 0
    }
    current += character
    size += bytes
  }
  if (current !== "") chunks.push(current)
  return chunks
}

/** What to type: text or one tmux key name, literally or not, with or without an Enter. */
export interface SendKeysRequest {
  readonly keys: string
  /** Type the keys as text, never as key names. Default false. */
  readonly literal?: boolean | undefined
  /** Press Enter afterwards. Default: true, except after a lone special key (see `isSpecialKey`). */
  readonly enter?: boolean | undefined
}

/** What `sendKeys` sent, and whether the pane was in a tmux mode (the keys then went to the mode). */
export const KeysSent = Schema.Struct({
  pane_id: PaneId,
  literal: Schema.Boolean,
  special_key: Schema.Boolean.annotate({
    description: "The keys were one special key (C-c, Escape, Up, F5, …), which is why Enter defaulted to false."
  }),
  key: Schema.NullOr(Schema.String).annotate({ description: "The key sent, in tmux's spelling (BTab for Shift+Tab); null for text." }),
  enter_sent: Schema.Boolean,
  keys_length: NonNegativeInt.annotate({
    description: "Characters sent before the Enter (the keys themselves are not returned)."
  }),
  pane_in_mode: Schema.Boolean.annotate({
    description: "The pane was in copy mode or another tmux mode: the keys went to that mode, not to the program."
  }),
  left_mode: Schema.Boolean.annotate({ description: "exit_mode took the pane out of copy mode (or another tmux mode) first." })
})
export type KeysSent = typeof KeysSent.Type

const paneStateRecord = Format.record("pst", {
  pane_id: Format.string("pane_id"),
  dead: Format.bool("pane_dead"),
  in_mode: Format.bool("pane_in_mode"),
  // Read with the pane, at no extra round trip: a paste's flags depend on it (internal/ExactPaste.ts).
  server_version: Format.string("version")
})

/** A pane that can receive input: it exists and its program is alive. */
export interface TypablePane {
  /** The look at the pane taken just before the commands that followed the lookup (see InlineLook.ts), when asked for. */
  readonly look?: PaneView | undefined
  readonly pane_id: string
  /** In copy mode or another tmux mode: keys go to that mode, not to the program. */
  readonly in_mode: boolean
  /** The server's `#{version}` (e.g. "3.3a", "next-3.9"). */
  readonly server_version: string
}

/**
 * Looks the pane up before anything is sent: a dead pane is refused (tmux would drop input sent
 * there without a word), a missing one is NotFound. `then` runs in the same invocation, after the
 * lookup (which stops the list when the pane is missing): commands guarded by `whenAlive`. With
 * `look`, a look at the pane for a cursor comes between the lookup and `then`.
 */
export const typablePane = (
  socket: ResolvedSocket,
  paneId: string,
  sent: "typed" | "pasted" = "typed",
  then: ReadonlyArray<TmuxCommand> = [],
  look = false
): Effect.Effect<TypablePane, TmuxError | Conflict, Tmux> =>
  Effect.gen(function*() {
    const marks = Format.newMarks()
    const commands: ReadonlyArray<TmuxCommand> = [
      ["list-panes", "-t", paneId, "-F", paneStateRecord.format(marks)],
      ...(look ? lookCommands(paneId, marks) : []),
      ...then
    ]
    const printed = yield* runTree(socket, commands, { kind: "pane", id: paneId })
    const looked = look ? yield* Effect.fromResult(takeLook(printed, marks)) : { rest: printed, view: undefined }
    const pane = (yield* decode(paneStateRecord, Format.parseOutput(looked.rest, marks))).find((row) => row.pane_id === paneId)
    if (pane === undefined) return yield* Effect.fail(new NotFound({ kind: "pane", target: paneId, socket: socket.label }))
    if (pane.dead) {
      return yield* Effect.fail(
        new Conflict({ kind: "dead", reason: `pane ${paneId} is dead (its program exited): nothing ${sent} there would arrive.` })
      )
    }
    return { pane_id: pane.pane_id, in_mode: pane.in_mode, server_version: pane.server_version, look: looked.view }
  })

/** What one send-keys request becomes, checked before anything is sent. */
export interface KeysPlan {
  readonly literal: boolean
  readonly special: boolean
  /** The key sent, in tmux's spelling, when the keys are one key. */
  readonly key: string | null
  readonly enter: boolean
  /** Characters typed before the Enter. */
  readonly length: number
  /** Payload bytes (the keys' UTF-8 length). */
  readonly bytes: number
  /** The command lists to run in order: one, or several pieces for long text. */
  readonly invocations: ReadonlyArray<ReadonlyArray<TmuxCommand>>
}

/** Checks a request and builds its commands; the reason is returned when it cannot be sent. */
export const planKeys = (paneId: string, request: SendKeysRequest): Result.Result<KeysPlan, string> => {
  const { keys } = request
  const literal = request.literal ?? false
  // Node refuses argv with NUL bytes in an exception that quotes the argument.
  if (keys.includes("\0")) return Result.fail("keys must not contain NUL characters.")
  const bytes = Buffer.byteLength(keys, "utf8")
  if (bytes > MAX_KEYS_BYTES) return Result.fail(`keys must be at most ${MAX_KEYS_BYTES} bytes.`)
  const reading = literal ? undefined : readKeys(keys)
  if (reading?._tag === "Refused") return Result.fail(reading.reason)
  const key = reading?._tag === "Key" ? reading.key : null
  const special = key !== null
  const enter = request.enter ?? !special
  if (keys === "" && !enter) return Result.fail("nothing to send: keys is empty and enter is false.")
  const invocations: Array<Array<TmuxCommand>> = keys === ""
    ? [[]]
    : key !== null
    ? [[["send-keys", "-t", paneId, "--", key]]]
    : chunksOf(keys, CHUNK_BYTES).map((chunk) => [["send-keys", "-t", paneId, "-l", "--", chunk]])
  if (enter) invocations[invocations.length - 1]!.push(["send-keys", "-t", paneId, "Enter"])
  return Result.succeed({ literal, special, key, enter, length: [...keys].length, bytes, invocations })
}

/** A send_keys request that may first take the pane out of copy mode. */
export interface SendKeysOnceRequest extends SendKeysRequest, GenerationCheck {
  /**
   * Leave copy mode (or another tmux mode) first, so the keys reach the program; with empty keys
   * and no `enter`, only that. Default false.
   */
  readonly exitMode?: boolean | undefined
  /**
   * Look at the pane for a cursor in the keys' own command list (or, when they cannot go with the
   * lookup, the lookup's, just before them), for a wait on what the program answers. Default false.
   */
  readonly look?: boolean | undefined
}

/** What `sendKeysAndLook` sent, and the look at the pane taken with the keys when one was asked for. */
export interface KeysSentAndLook {
  readonly sent: KeysSent
  readonly look: PaneView | undefined
}

/** Room the pane lookup takes next to a `whenAlive` command in one invocation (its format and marks, ~150 bytes). */
const LOOKUP_BYTES = 512

/**
 * The commands as one `if-shell -F` that tmux runs only while the pane is alive, to send in the
 * same invocation as the pane's lookup: then nothing lies between the check and the keys, and the
 * call costs one round trip. The commands travel as a command line that tmux's parser reads back
 * exactly (ControlProtocol.quoteArgument: quoted, control characters escaped; if-shell expands no
 * format in it). Undefined when that line would not fit one invocation: the keys then go on their own.
 */
const whenAlive = (paneId: string, commands: ReadonlyArray<TmuxCommand>, look: boolean): TmuxCommand | undefined => {
  const guarded = ifFormat("#{?pane_dead,0,1}", commands, { target: paneId })
  const room = LOOKUP_BYTES + (look ? LOOK_BYTES : 0)
  return commandListBytes([guarded]) + room <= BATCH_BUDGET ? guarded : undefined
}

/** Room a look for a cursor takes in the same invocation (its formats and marks, ~400 bytes). */
const LOOK_BYTES = 1024

/**
 * Sends keys, then Enter as a key of its own. A dead pane is refused and gets nothing (tmux would
 * drop the keys without a word, or hand them to a mode still shown there). Text longer than one
 * tmux command allows goes in pieces, in order, typed literally (text that long cannot be a key
 * name, so nothing changes meaning). The first piece goes with the pane's lookup (`whenAlive`),
 * except with exit_mode, where the lookup decides whether to leave a mode first.
 */
export const sendKeys = (
  socket: ResolvedSocket,
  paneId: string,
  request: SendKeysOnceRequest
): Effect.Effect<KeysSent, TmuxError | InvalidInput | Conflict, Tmux> =>
  Effect.map(sendKeysAndLook(socket, paneId, { ...request, look: false }), ({ sent }) => sent)

/** `sendKeys`, and with `request.look` the look at the pane taken with the keys. */
export const sendKeysAndLook = Effect.fn("Input.sendKeys")((
  socket: ResolvedSocket,
  paneId: string,
  request: SendKeysOnceRequest
): Effect.Effect<KeysSentAndLook, TmuxError | InvalidInput | Conflict, Tmux> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, request.generation)
    const exitMode = request.exitMode === true
    const exitOnly = exitMode && request.keys === "" && request.enter !== true
    const plan = exitOnly
      ? { literal: false, special: false, key: null, enter: false, length: 0, invocations: [] }
      : yield* Effect.fromResult(Result.mapError(planKeys(paneId, request), (reason) => new InvalidInput({ reason })))
    const [first = [], ...rest] = plan.invocations
    const look = request.look === true
    const together = exitMode || first.length === 0 ? undefined : whenAlive(paneId, first, look)
    const pane = yield* typablePane(socket, paneId, "typed", together === undefined ? [] : [together], look)
    const leftMode = exitMode && pane.in_mode
    const tmux = yield* Tmux
    // `copy-mode -q` leaves every mode of the pane (tmux 3.3a on), in the keys' own round trip.
    const afterLookup = together === undefined ? [leftMode ? [["copy-mode", "-q", "-t", paneId], ...first] : first, ...rest] : rest
    for (const commands of afterLookup) {
      if (commands.length > 0) yield* tmux.run(socket, commands)
    }
    const sent: KeysSent = {
      pane_id: paneId,
      literal: plan.literal,
      special_key: plan.special,
      key: plan.key,
      enter_sent: plan.enter,
      keys_length: plan.length,
      pane_in_mode: pane.in_mode && !leftMode,
      left_mode: leftMode
    }
    return { sent, look: pane.look }
  })
)

/** The most operations one `sendKeysBatch` takes. */
export const MAX_BATCH_OPERATIONS = 64
export const MAX_BATCH_DELAY_MS = 2000

/**
 * Room for one packed invocation's argv, well below what one tmux invocation carries
 * (tmux/CommandBatches.ts), so the batch packs its commands below that.
 */
const INVOCATION_BYTES = 12_288

/** Operations sent together by the same invocations: they succeed or fail together. */
export interface BatchStep {
  readonly operations: ReadonlyArray<number>
  readonly invocations: ReadonlyArray<ReadonlyArray<TmuxCommand>>
}

/**
 * Groups planned operations into steps. With `packed`, consecutive one-invocation operations share
 * an invocation while it stays under tmux's size limit (so a batch of short keys is one round trip);
 * an operation that needs several pieces is a step of its own. Without `packed`, every operation is
 * its own step (there is a pause between them).
 */
export const batchSteps = (plans: ReadonlyArray<KeysPlan>, packed: boolean): Array<BatchStep> => {
  const steps: Array<{ operations: Array<number>; invocations: Array<Array<TmuxCommand>> }> = []
  let open: { operations: Array<number>; invocations: Array<Array<TmuxCommand>> } | undefined
  plans.forEach((plan, index) => {
    const single = plan.invocations.length === 1 ? plan.invocations[0]! : undefined
    if (
      packed && single !== undefined && open !== undefined && commandListBytes([...open.invocations[0]!, ...single]) <= INVOCATION_BYTES
    ) {
      open.operations.push(index)
      open.invocations[0]!.push(...single)
      return
    }
    const step = { operations: [index], invocations: plan.invocations.map((commands) => [...commands]) }
    steps.push(step)
    open = packed && single !== undefined ? step : undefined
  })
  return steps
}

/** One operation of a batch: sent, failed or skipped. */
export const BatchOperationResult = Schema.Struct({
  index: NonNegativeInt,
  pane_id: PaneId,
  status: Schema.Literals(["sent", "failed", "skipped"]).annotate({
    description:
      "sent; failed (tmux refused the invocation that carried it: it may have been sent in part); skipped (not attempted after an earlier failure, stop_on_error)."
  }),
  ok: Schema.Boolean.annotate({ description: "status is sent." }),
  literal: Schema.Boolean,
  special_key: Schema.Boolean,
  key: Schema.NullOr(Schema.String),
  enter_sent: Schema.Boolean.annotate({ description: "An Enter followed this operation's keys (only when sent)." }),
  keys_length: NonNegativeInt,
  error: Schema.NullOr(
    Schema.Struct({
      code: Schema.String.annotate({
        description: "The error code, as a failed call's _meta carries it (not_found, no_server, failed, timeout)."
      }),
      message: Schema.String
    })
  )
})
export type BatchOperationResult = typeof BatchOperationResult.Type

/** What `sendKeysBatch` did: per-operation results, counts and the round trips it took. */
export const KeysBatchSent = Schema.Struct({
  pane_id: PaneId.annotate({ description: "The batch's own pane; each result names the pane it went to." }),
  pane_in_mode: Schema.Boolean.annotate({
    description: "A pane was in copy mode or another tmux mode: the keys went to that mode, not to the program."
  }),
  operations_total: NonNegativeInt,
  operations_sent: NonNegativeInt,
  operations_failed: NonNegativeInt,
  operations_skipped: NonNegativeInt,
  invocations: NonNegativeInt.annotate({ description: "tmux round trips the batch took." }),
  results: Schema.Array(BatchOperationResult)
})
export type KeysBatchSent = typeof KeysBatchSent.Type

/** One operation of a batch: send_keys' request, to its own pane or the batch's. */
export interface BatchKeysRequest extends SendKeysRequest {
  readonly paneId?: string | undefined
}

/** Several send-keys requests, in order, each to its own pane or the batch's. */
export interface SendKeysBatchRequest extends GenerationCheck {
  readonly operations: ReadonlyArray<BatchKeysRequest>
  /** Pause between operations; 0 packs them into as few invocations as possible. */
  readonly delayMs: number
  /** Skip the remaining operations after one fails. */
  readonly stopOnError: boolean
}

/**
 * Several send-keys requests in order, each to its own pane or to `paneId`: every operation is
 * checked and each pane looked up once before anything is sent. Each operation reports its own outcome; the call as a whole fails
 * only when nothing at all was sent, with the first error.
 */
export const sendKeysBatch = Effect.fn("Input.sendKeysBatch")((
  socket: ResolvedSocket,
  paneId: string,
  request: SendKeysBatchRequest
): Effect.Effect<KeysBatchSent, TmuxError | InvalidInput | Conflict, Tmux> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, request.generation)
    const { operations, delayMs } = request
    if (operations.length < 1 || operations.length > MAX_BATCH_OPERATIONS) {
      return yield* Effect.fail(new InvalidInput({ reason: `operations must hold 1 to ${MAX_BATCH_OPERATIONS} entries.` }))
    }
    const plans: Array<KeysPlan> = []
    const targets = operations.map((operation) => operation.paneId ?? paneId)
    for (const [index, operation] of operations.entries()) {
      const plan = planKeys(targets[index]!, operation)
      if (Result.isFailure(plan)) {
        return yield* Effect.fail(new InvalidInput({ reason: `operations[${index}]: ${plan.failure} Nothing was sent.` }))
      }
      plans.push(plan.success)
    }
    const total = plans.reduce((sum, plan) => sum + plan.bytes, 0)
    if (total > MAX_KEYS_BYTES) {
      return yield* Effect.fail(new InvalidInput({ reason: `the operations' keys must be at most ${MAX_KEYS_BYTES} bytes together.` }))
    }
    let inMode = false
    for (const target of new Set(targets)) inMode = (yield* typablePane(socket, target)).in_mode || inMode
    const tmux = yield* Tmux
    const results: Array<BatchOperationResult> = plans.map((plan, index) => ({
      index,
      pane_id: targets[index]!,
      status: "skipped",
      ok: false,
      literal: plan.literal,
      special_key: plan.special,
      key: plan.key,
      enter_sent: false,
      keys_length: plan.length,
      error: null
    }))
    let invocations = 0
    let firstError: TmuxError | undefined
    for (const [position, step] of batchSteps(plans, delayMs === 0).entries()) {
      if (position > 0 && delayMs > 0) yield* Effect.sleep(delayMs)
      const outcome = yield* Effect.result(
        Effect.forEach(step.invocations, (commands) => Effect.andThen(Effect.sync(() => invocations++), tmux.run(socket, commands)), {
          discard: true
        })
      )
      for (const index of step.operations) {
        results[index] = Result.isSuccess(outcome)
          ? { ...results[index]!, status: "sent", ok: true, enter_sent: plans[index]!.enter }
          : { ...results[index]!, status: "failed", error: { code: errorCode(outcome.failure), message: outcome.failure.message } }
      }
      if (Result.isFailure(outcome)) {
        firstError ??= outcome.failure
        if (request.stopOnError) break
      }
    }
    const count = (status: BatchOperationResult["status"]) => results.filter((result) => result.status === status).length
    if (count("sent") === 0 && firstError !== undefined) return yield* Effect.fail(firstError)
    return {
      pane_id: paneId,
      pane_in_mode: inMode,
      operations_total: results.length,
      operations_sent: count("sent"),
      operations_failed: count("failed"),
      operations_skipped: count("skipped"),
      invocations,
      results
    }
  })
)
