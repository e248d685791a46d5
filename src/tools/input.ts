/** Typing into panes: send_keys. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Denied } from "../domain/Errors.js"
import { PaneId } from "../domain/Ids.js"
import { refuseCallerPane } from "../operations/Guards.js"
import { KeysSent, MAX_KEYS_BYTES, sendKeys } from "../operations/Input.js"
import { forceArgument, generationArgument } from "./Arguments.js"
import { resolveChecked } from "./Resolve.js"
import { defineTool, optional, socketArguments } from "./Tool.js"

export const sendKeysTool = defineTool({
  name: "send_keys",
  title: "Send Keys to tmux Pane",
  description: `Types into a pane, as if at its keyboard. keys is sent as one piece, never split on spaces and never parsed by a shell. With literal: false (default) a keys string that is exactly one tmux key name (case-insensitive: C-c, C-d, C-z, M-x, ^C, Escape, Enter, Tab, Up, Down, Home, End, PageUp, F1-F12, BSpace, Space, …) is sent as that key, and anything else is typed as text; so a lone word such as "end" or "up" is a key: use literal: true to type it. literal: true always types the text exactly (quotes, $, ; and newlines included; a newline acts like Enter in most programs). enter (press Enter afterwards) defaults to true, except when keys is one special key (a named key, or a key with a C-/M-/S- modifier): then it defaults to false, because Enter after C-c or Up is never what was meant. An explicit enter always wins. Refuses the pane this MCP server runs in unless force is true. A dead pane is refused (tmux would drop the keys); in a pane in copy mode (pane_in_mode) the keys go to that mode. At most ${MAX_KEYS_BYTES} bytes; the keys are kept out of the audit log and the result.`,
  tier: "mutating",
  hints: { idempotent: false, openWorld: true },
  input: Schema.Struct({
    pane_id: PaneId,
    keys: Schema.String.annotations({ description: "Text to type, or one tmux key name such as C-c or Up. May be empty to press only Enter." }),
    literal: optional(Schema.Boolean, "true: type keys as text, never as a key name. Default false."),
    enter: optional(
      Schema.Boolean,
      "Press Enter after the keys. Default true, but false when keys is one special key (C-c, Escape, Up, F5, …)."
    ),
    force: forceArgument,
    generation: generationArgument,
    ...socketArguments
  }),
  output: KeysSent,
  payloadArguments: ["keys"],
  handler: (input) =>
    Effect.gen(function* () {
      const socket = yield* resolveChecked(input)
      if (input.force !== true) {
        yield* refuseCallerPane(socket, input.pane_id, "type into").pipe(
          Effect.mapError((denied) =>
              new Denied({ kind: denied.kind, reason: `${denied.reason} Pass force: true if typing into your own terminal is intended.` }))
        )
      }
      return yield* sendKeys(socket, input.pane_id, { keys: input.keys, literal: input.literal, enter: input.enter })
    })
})

export const inputTools = [sendKeysTool]
