/**
 * Pasting text into a pane through a buffer of its own: `load-buffer` from the client's stdin, then
 * `paste-buffer -d` (and an Enter if asked), in one invocation. The text never appears in an argv or
 * a temporary file, arrives as one paste (bracketed when the program asked for that), and is never
 * read as key names. The buffer is removed on every path: `-d` removes it after a paste, and any
 * failure or interruption deletes it explicitly. A bracketed paste never carries the paste-end
 * sequence (internal/BracketedPaste.ts).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { Conflict, InvalidInput, type TmuxError } from "../../domain/Errors.js"
import { PaneId } from "../../domain/Ids.js"
import { NonNegativeInt } from "../../domain/Model.js"
import * as Format from "../../tmux/Format.js"
import type { Tmux } from "../../tmux/Tmux.js"
import { ensureGeneration, type GenerationCheck } from "../servers/Servers.js"
import { lookCommands, takeLook } from "../watching/InlineLook.js"
import type { PaneView } from "../watching/Snapshot.js"
import { checkBufferText, pasteThroughPrivateBuffer } from "./Buffers.js"
import { typablePane } from "./Input.js"
import { refusePasteEnd } from "./internal/BracketedPaste.js"

/** What `pasteText` pasted (the text itself is not returned). */
export const TextPasted = Schema.Struct({
  pane_id: PaneId,
  bytes: NonNegativeInt.annotate({ description: "UTF-8 bytes pasted (the text itself is not returned)." }),
  bracketed: Schema.Boolean.annotate({
    description: "Bracketed paste was asked for (tmux adds the brackets only when the pane's program turned that mode on)."
  }),
  enter_sent: Schema.Boolean,
  pane_in_mode: Schema.Boolean.annotate({
    description:
      "The pane was in copy mode or another tmux mode: the text went to the program all the same, and the pane is still in the mode."
  })
})
export type TextPasted = typeof TextPasted.Type

/** Text to paste, bracketed or not, with or without an Enter afterwards. */
export interface PasteTextRequest extends GenerationCheck {
  readonly text: string
  readonly bracketed: boolean
  /** Press Enter after the paste (runs what was pasted, in a shell). */
  readonly enter: boolean
  /** Look at the pane for a cursor in the paste's own command list, for a wait on the answer. Default false. */
  readonly look?: boolean | undefined
}

/** What `pasteTextAndLook` pasted, and the look at the pane taken with the paste when one was asked for. */
export interface TextPastedAndLook {
  readonly pasted: TextPasted
  readonly look: PaneView | undefined
}

/**
 * Pastes text into a pane as one exact paste through a private buffer loaded from stdin and removed
 * on every path; bracketed text holding the paste-end sequence is refused.
 */
export const pasteText = (
  socket: ResolvedSocket,
  paneId: string,
  request: PasteTextRequest
): Effect.Effect<TextPasted, TmuxError | InvalidInput | Conflict, Tmux> =>
  Effect.map(pasteTextAndLook(socket, paneId, { ...request, look: false }), ({ pasted }) => pasted)

/** `pasteText`, and with `request.look` the look at the pane taken in the paste's command list. */
export const pasteTextAndLook = Effect.fn("Paste.pasteText")((
  socket: ResolvedSocket,
  paneId: string,
  request: PasteTextRequest
): Effect.Effect<TextPastedAndLook, TmuxError | InvalidInput | Conflict, Tmux> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, request.generation)
    const bytes = yield* checkBufferText(request.text)
    if (request.bracketed) yield* refusePasteEnd(request.text, "text")
    const pane = yield* typablePane(socket, paneId, "pasted")
    // tmux pastes past a mode, straight to the program, but an Enter goes to the mode: the text
    // would sit there unrun while the result said Enter was sent.
    if (request.enter && pane.in_mode) {
      return yield* Effect.fail(
        new Conflict({
          kind: "copy_mode",
          reason:
            `pane ${paneId} is in copy mode (or another tmux mode), where Enter would go to the mode, not the program. Leave the mode first (send_keys "q"), or paste without enter. Nothing was pasted.`
        })
      )
    }
    const marks = Format.newMarks()
    const look = request.look === true
    const printed = yield* pasteThroughPrivateBuffer(socket, paneId, request.text, {
      bracketed: request.bracketed,
      serverVersion: pane.server_version,
      before: look ? lookCommands(paneId, marks) : [],
      after: request.enter ? [["send-keys", "-t", paneId, "Enter"]] : []
    })
    const pasted = { pane_id: paneId, bytes, bracketed: request.bracketed, enter_sent: request.enter, pane_in_mode: pane.in_mode }
    return { pasted, look: look ? (yield* Effect.fromResult(takeLook(printed, marks))).view : undefined }
  })
)
