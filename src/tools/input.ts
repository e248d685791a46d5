/** Typing and pasting into panes: send_keys, send_keys_batch, paste_text. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { InvalidInput } from "../domain/Errors.js"
import { PaneId } from "../domain/Ids.js"
import { clearPane, PaneCleared } from "../operations/input/ClearPane.js"
import {
  KeysBatchSent,
  KeysSent,
  MAX_BATCH_DELAY_MS,
  MAX_BATCH_OPERATIONS,
  sendKeysAndLook,
  sendKeysBatch
} from "../operations/input/Input.js"
import { pasteTextAndLook, TextPasted } from "../operations/input/Paste.js"
import { ensureGeneration } from "../operations/servers/Servers.js"
import { forceArgument, generationArgument } from "./internal/Arguments.js"
import { refuseCallerPaneUnlessForced, refuseWatchedPaneUnlessForced } from "./internal/PaneGuard.js"
import { checkWaitAfter, waitAfter, waitAfterArgument, waitedFields, waitLikeSendKeysArgument } from "./internal/WaitAfter.js"
import { defineTool, Int, optional, socketArguments } from "./Tool.js"

const keysArgument = Schema.String.annotate({
  description: "Text, or a key name such as C-c."
})
const literalArgument = optional(Schema.Boolean)
const enterArgument = optional(
  Schema.Boolean
)

export const sendKeysTool = defineTool({
  name: "send_keys",
  title: "Send Keys to tmux Pane",
  description:
    "Types text or one key name (C-c, Escape, Up, ...) into a pane, then Enter unless a key; wait: then waits for the answer. Commands: run_command.",
  tier: "mutating",
  group: "terminal",
  hints: { idempotent: false, openWorld: true },
  input: Schema.Struct({
    pane_id: PaneId,
    keys: keysArgument,
    literal: literalArgument,
    enter: enterArgument,
    exit_mode: optional(Schema.Boolean),
    wait: waitAfterArgument,
    force: forceArgument,
    generation: generationArgument,
    ...socketArguments
  }),
  output: Schema.Struct({ ...KeysSent.fields, ...waitedFields }),
  payloadArguments: ["keys"],
  textArguments: { keys: "text" },
  handler: (input) =>
    Effect.gen(function*() {
      const criteria = yield* checkWaitAfter(input.wait)
      const socket = yield* resolveSocket(input)
      yield* refuseCallerPaneUnlessForced(socket, input, "type into", "typing into your own terminal")
      // A person's copy mode is theirs: leaving it in a pane they watch needs force, as run_command does.
      if (input.exit_mode === true) yield* refuseWatchedPaneUnlessForced(socket, input, "take out of copy mode")
      const { look, sent } = yield* sendKeysAndLook(socket, input.pane_id, {
        keys: input.keys,
        literal: input.literal,
        enter: input.enter,
        exitMode: input.exit_mode,
        generation: input.generation,
        look: criteria !== undefined
      })
      return criteria === undefined ? sent : { ...sent, ...(yield* waitAfter(socket, input.pane_id, look, criteria)) }
    })
})

export const sendKeysBatchTool = defineTool({
  name: "send_keys_batch",
  title: "Send a Sequence of Keys to tmux Pane",
  description: "Several send_keys steps in order, checked first, in few round trips. Returns each step's status.",
  tier: "mutating",
  group: "terminal",
  hints: { idempotent: false, openWorld: true },
  input: Schema.Struct({
    pane_id: PaneId,
    operations: Schema.Array(
      // keys as send_keys' (described there once).
      Schema.Struct({ pane_id: optional(PaneId), keys: Schema.String, literal: literalArgument, enter: enterArgument })
    )
      .pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(MAX_BATCH_OPERATIONS))),
    delay_ms: optional(Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: MAX_BATCH_DELAY_MS })))),
    stop_on_error: optional(Schema.Boolean, "Default true."),
    force: forceArgument,
    generation: generationArgument,
    ...socketArguments
  }),
  output: KeysBatchSent,
  payloadArguments: ["operations"],
  textArguments: { operations: "text" },
  handler: (input) =>
    Effect.gen(function*() {
      const delayMs = input.delay_ms ?? 0
      const { waitMaxSeconds } = yield* TmuxMcpConfig
      const pauses = delayMs * (input.operations.length - 1)
      if (pauses > waitMaxSeconds * 1000) {
        return yield* Effect.fail(
          new InvalidInput({
            reason:
              `delay_ms x (operations - 1) is ${pauses} ms, above the server's wait ceiling of ${waitMaxSeconds} s: use a shorter delay or split the batch.`
          })
        )
      }
      const socket = yield* resolveSocket(input)
      // Every pane the batch types into is guarded before anything is sent.
      const panes = new Set(input.operations.map((operation) => operation.pane_id ?? input.pane_id))
      for (const pane_id of panes) {
        yield* refuseCallerPaneUnlessForced(socket, { pane_id, force: input.force }, "type into", "typing into your own terminal")
      }
      return yield* sendKeysBatch(socket, input.pane_id, {
        operations: input.operations.map(({ pane_id, ...operation }) => ({ ...operation, paneId: pane_id })),
        delayMs,
        stopOnError: input.stop_on_error ?? true,
        generation: input.generation
      })
    })
})

export const pasteTextTool = defineTool({
  name: "paste_text",
  title: "Paste Text into tmux Pane",
  description: "Pastes text into a pane exactly, as a terminal paste (bracketed, not run unless enter); wait: as send_keys'.",
  tier: "mutating",
  group: "terminal",
  hints: { idempotent: false, openWorld: true },
  input: Schema.Struct({
    pane_id: PaneId,
    text: Schema.String,
    bracketed: optional(Schema.Boolean, "Default true."),
    enter: optional(Schema.Boolean, "Default false: not run."),
    wait: waitLikeSendKeysArgument,
    force: forceArgument,
    generation: generationArgument,
    ...socketArguments
  }),
  output: Schema.Struct({ ...TextPasted.fields, ...waitedFields }),
  payloadArguments: ["text"],
  textArguments: { text: "binary" },
  handler: (input) =>
    Effect.gen(function*() {
      const criteria = yield* checkWaitAfter(input.wait)
      const socket = yield* resolveSocket(input)
      yield* refuseCallerPaneUnlessForced(socket, input, "paste into", "pasting into your own terminal")
      const { look, pasted } = yield* pasteTextAndLook(socket, input.pane_id, {
        text: input.text,
        bracketed: input.bracketed ?? true,
        enter: input.enter ?? false,
        generation: input.generation,
        look: criteria !== undefined
      })
      return criteria === undefined ? pasted : { ...pasted, ...(yield* waitAfter(socket, input.pane_id, look, criteria)) }
    })
})

export const clearPaneTool = defineTool({
  name: "clear_pane",
  title: "Clear tmux Pane",
  description: "Clears a pane's scrollback (and screen, with screen); returns lines cleared.",
  tier: "mutating",
  group: "terminal",
  hints: { destructive: true, idempotent: true },
  input: Schema.Struct({
    pane_id: PaneId,
    screen: optional(Schema.Boolean),
    // Also the caller's pane and a watched one (docs/tools.md): one description fewer in tools/list.
    force: optional(Schema.Boolean),
    generation: generationArgument,
    ...socketArguments
  }),
  output: PaneCleared,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      // The generation first, as every mutating tool checks it: before the guard reads the pane.
      yield* ensureGeneration(socket, input.generation)
      yield* refuseCallerPaneUnlessForced(socket, input, "clear", "clearing your own terminal")
      yield* refuseWatchedPaneUnlessForced(socket, input, "clear")
      return yield* clearPane(socket, input.pane_id, { screen: input.screen ?? false })
    })
})

export const inputTools = [sendKeysTool, sendKeysBatchTool, pasteTextTool, clearPaneTool]
