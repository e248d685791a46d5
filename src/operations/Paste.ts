/**
 * Pasting text into a pane through a buffer of its own: `load-buffer` from the client's stdin, then
 * `paste-buffer -d` (and an Enter if asked), in one invocation. The text never appears in an argv or
 * a temporary file, arrives as one paste (bracketed when the program asked for that), and is never
 * read as key names. The buffer is removed on every path: `-d` removes it after a paste, and any
 * failure or interruption deletes it explicitly.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import { Conflict, InvalidInput, type TmuxError } from "../domain/Errors.js"
import { PaneId } from "../domain/Ids.js"
import type { ResolvedSocket } from "../services/SocketResolver.js"
import { Tmux } from "../tmux/Tmux.js"
import { NonNegativeInt } from "../domain/Model.js"
import { BUFFER_PREFIX, checkBufferText, deleteTmuxBuffer, pasteCommand } from "./Buffers.js"
import { typablePane } from "./Input.js"

export const TextPasted = Schema.Struct({
  pane_id: PaneId,
  bytes: NonNegativeInt.annotations({ description: "UTF-8 bytes pasted (the text itself is not returned)." }),
  bracketed: Schema.Boolean.annotations({
    description: "Bracketed paste was asked for (tmux adds the brackets only when the pane's program turned that mode on)."
  }),
  enter_sent: Schema.Boolean,
  pane_in_mode: Schema.Boolean.annotations({
    description: "The pane was in copy mode or another tmux mode: the text went to the program all the same, and the pane is still in the mode."
  })
})
export type TextPasted = typeof TextPasted.Type

export interface PasteTextRequest {
  readonly text: string
  readonly bracketed: boolean
  /** Press Enter after the paste (runs what was pasted, in a shell). */
  readonly enter: boolean
}

/** A buffer name no one else uses, in this server's namespace. */
const pasteBufferName = (): string => `${BUFFER_PREFIX}paste.${randomBytes(8).toString("hex")}`

export const pasteText = (
  socket: ResolvedSocket,
  paneId: string,
  request: PasteTextRequest
): Effect.Effect<TextPasted, TmuxError | InvalidInput | Conflict, Tmux> =>
  Effect.gen(function* () {
    const bytes = yield* checkBufferText(request.text)
    const pane = yield* typablePane(socket, paneId, "pasted")
    // tmux pastes past a mode, straight to the program, but an Enter goes to the mode: the text
    // would sit there unrun while the result said Enter was sent.
    if (request.enter && pane.in_mode) {
      return yield* Effect.fail(
        new Conflict({
          kind: "copy_mode",
          reason: `pane ${paneId} is in copy mode (or another tmux mode), where Enter would go to the mode, not the program. Leave the mode first (send_keys "q"), or paste without enter. Nothing was pasted.`
        })
      )
    }
    const buffer = pasteBufferName()
    const tmux = yield* Tmux
    const commands = [
      ["load-buffer", "-b", buffer, "-"],
      pasteCommand(buffer, paneId, { bracketed: request.bracketed, deleteAfter: true }),
      ...(request.enter ? [["send-keys", "-t", paneId, "Enter"]] : [])
    ]
    yield* tmux.run(socket, commands, { stdin: request.text }).pipe(
      // The paste may not have happened (pane gone, server busy, the call cancelled): then -d did not run.
      Effect.onError(() => Effect.ignore(deleteTmuxBuffer(socket, buffer)))
    )
    return { pane_id: paneId, bytes, bracketed: request.bracketed, enter_sent: request.enter, pane_in_mode: pane.in_mode }
  })
