/** Typing and pasting into panes: send_keys, send_keys_batch, paste_text. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { InvalidInput } from "../domain/Errors.js"
import { PaneId } from "../domain/Ids.js"
import { MAX_BUFFER_BYTES } from "../operations/input/Buffers.js"
import {
  KeysBatchSent,
  KeysSent,
  MAX_BATCH_DELAY_MS,
  MAX_BATCH_OPERATIONS,
  MAX_KEYS_BYTES,
  sendKeys,
  sendKeysBatch
} from "../operations/input/Input.js"
import { pasteText, TextPasted } from "../operations/input/Paste.js"
import { forceArgument, generationArgument } from "./internal/Arguments.js"
import { refuseCallerPaneUnlessForced } from "./internal/PaneGuard.js"
import { defineTool, Int, optional, socketArguments } from "./Tool.js"

const keysArgument = Schema.String.annotations({
  description: "Text to type, or one tmux key name such as C-c or Up. May be empty to press only Enter."
})
const literalArgument = optional(Schema.Boolean, "true: type keys as text, never as a key name. Default false.")
const enterArgument = optional(
  Schema.Boolean,
  "Press Enter after the keys. Default true, but false when keys is one special key (C-c, Escape, Up, F5, …)."
)

export const sendKeysTool = defineTool({
  name: "send_keys",
  title: "Send Keys to tmux Pane",
  description:
    `Types into a pane, as if at its keyboard. keys is sent as one piece, never split on spaces and never parsed by a shell. With literal: false (default) a keys string that is exactly one tmux key name (case-insensitive: C-c, C-d, C-z, M-x, ^C, Escape, Enter, Tab, Up, Down, Home, End, PageUp, F1-F12, BSpace, Space, …) is sent as that key, and anything else is typed as text; so a lone word such as "end" or "up" is a key: use literal: true to type it. literal: true always types the text exactly (quotes, $, ; and newlines included; a newline acts like Enter in most programs). enter (press Enter afterwards) defaults to true, except when keys is one special key (a named key, or a key with a C-/M-/S- modifier): then it defaults to false, because Enter after C-c or Up is never what was meant. An explicit enter always wins. Refuses the pane this MCP server runs in unless force is true. A dead pane is refused (tmux would drop the keys); in a pane in copy mode (pane_in_mode) the keys go to that mode. At most ${MAX_KEYS_BYTES} bytes; the keys are kept out of the audit log and the result. For several steps use send_keys_batch; for long or multi-line text to paste use paste_text.`,
  tier: "mutating",
  group: "terminal",
  hints: { idempotent: false, openWorld: true },
  input: Schema.Struct({
    pane_id: PaneId,
    keys: keysArgument,
    literal: literalArgument,
    enter: enterArgument,
    force: forceArgument,
    generation: generationArgument,
    ...socketArguments
  }),
  output: KeysSent,
  payloadArguments: ["keys"],
  textArguments: { keys: "text" },
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      yield* refuseCallerPaneUnlessForced(socket, input, "type into", "typing into your own terminal")
      return yield* sendKeys(socket, input.pane_id, {
        keys: input.keys,
        literal: input.literal,
        enter: input.enter,
        generation: input.generation
      })
    })
})

export const sendKeysBatchTool = defineTool({
  name: "send_keys_batch",
  title: "Send a Sequence of Keys to tmux Pane",
  description:
    `Several send_keys operations to one pane, in order, e.g. [{keys: "C-c"}, {keys: "cd /tmp"}, {keys: "ls"}]. Each operation has send_keys' keys, literal and enter with the same rules and defaults. Every operation is checked before anything is sent (one bad operation sends nothing), and the pane is looked up once; without delay_ms the operations go in as few tmux round trips as possible (usually one). delay_ms pauses between operations (at most ${MAX_BATCH_DELAY_MS}; all pauses together within the server's wait ceiling). Returns per-operation results (sent | failed | skipped, with the error code and message of a failure); stop_on_error (default true) skips the rest after a failure. The call itself fails only when nothing was sent. Same refusals as send_keys: the caller's own pane unless force, dead panes. 1-${MAX_BATCH_OPERATIONS} operations, at most ${MAX_KEYS_BYTES} bytes of keys in all; the keys are kept out of the audit log and the result.`,
  tier: "mutating",
  group: "terminal",
  hints: { idempotent: false, openWorld: true },
  input: Schema.Struct({
    pane_id: PaneId,
    operations: Schema.Array(Schema.Struct({ keys: keysArgument, literal: literalArgument, enter: enterArgument }))
      .pipe(Schema.minItems(1), Schema.maxItems(MAX_BATCH_OPERATIONS))
      .annotations({ description: `1-${MAX_BATCH_OPERATIONS} operations, sent in order.` }),
    delay_ms: optional(
      Int.pipe(Schema.between(0, MAX_BATCH_DELAY_MS)),
      `Milliseconds to pause between operations, 0-${MAX_BATCH_DELAY_MS} (default 0: no pause, fewest round trips).`
    ),
    stop_on_error: optional(Schema.Boolean, "Skip the remaining operations after one fails. Default true."),
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
      yield* refuseCallerPaneUnlessForced(socket, input, "type into", "typing into your own terminal")
      return yield* sendKeysBatch(socket, input.pane_id, {
        operations: input.operations,
        delayMs,
        stopOnError: input.stop_on_error ?? true,
        generation: input.generation
      })
    })
})

export const pasteTextTool = defineTool({
  name: "paste_text",
  title: "Paste Text into tmux Pane",
  description:
    `Pastes text into a pane as one paste, the way a terminal pastes: exact (quotes, $, ;, backslashes, unicode, newlines; nothing is read as a key name), through a tmux buffer of its own that is loaded from stdin (the text is in no command line and no temporary file) and removed afterwards on every path. bracketed (default true) asks for bracketed paste: tmux adds the brackets only if the program turned that mode on (bash, zsh, fish, vim do), so a shell shows multi-line text without running it; text holding the paste-end sequence ESC[201~ is then refused (it would end the paste and run the rest). Newlines are sent as carriage returns, as a terminal paste does. enter (default false) presses Enter after the paste, which runs it in a shell: without it, pasted text is not run. A pane in copy mode gets the text all the same (pane_in_mode: true), but enter is refused there (the Enter would go to the mode). Refuses the pane this MCP server runs in unless force is true, and dead panes. At most ${MAX_BUFFER_BYTES} bytes; the text is kept out of the audit log and the result.`,
  tier: "mutating",
  group: "terminal",
  hints: { idempotent: false, openWorld: true },
  input: Schema.Struct({
    pane_id: PaneId,
    text: Schema.String.annotations({ description: `The text to paste, 1 to ${MAX_BUFFER_BYTES} bytes.` }),
    bracketed: optional(Schema.Boolean, "Bracketed paste when the program asked for it. Default true."),
    enter: optional(Schema.Boolean, "Press Enter after the paste. Default false: the text is not run."),
    force: forceArgument,
    generation: generationArgument,
    ...socketArguments
  }),
  output: TextPasted,
  payloadArguments: ["text"],
  textArguments: { text: "binary" },
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      yield* refuseCallerPaneUnlessForced(socket, input, "paste into", "pasting into your own terminal")
      return yield* pasteText(socket, input.pane_id, {
        text: input.text,
        bracketed: input.bracketed ?? true,
        enter: input.enter ?? false,
        generation: input.generation
      })
    })
})

export const inputTools = [sendKeysTool, sendKeysBatchTool, pasteTextTool]
