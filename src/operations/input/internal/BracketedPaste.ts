/**
 * What a bracketed paste must never carry. tmux wraps the text in ESC [ 2 0 0 ~ … ESC [ 2 0 1 ~ when
 * the program asked for bracketed paste, and passes the text through unchanged (3.7 and later are
 * sent `-S` for that, ExactPaste.ts): a paste-end sequence inside the text ends the paste early, and
 * a shell runs what follows its next newline although nobody pressed Enter. The 8-bit form, C1 CSI
 * (U+009B) then `201~`, is refused too: a program reading 8-bit controls takes it for the same thing.
 */
import * as Effect from "effect/Effect"
import { InvalidInput } from "../../../domain/Errors.js"

// eslint-disable-next-line no-control-regex
const PASTE_END = /\x1b\[201~|\u009b201~/

/** Fails when `text` holds a paste-end sequence; `argument` names where the text came from. */
export const refusePasteEnd = (text: string, argument: string): Effect.Effect<void, InvalidInput> => {
  const at = text.search(PASTE_END)
  return at < 0
    ? Effect.void
    : Effect.fail(
      new InvalidInput({
        reason:
          `${argument} holds the bracketed-paste end sequence ESC [ 2 0 1 ~ (at character ${at}): inside a bracketed paste it would end the paste early, and a shell would run what follows as if typed. Remove it, or pass bracketed: false to type the text as it is. Nothing was pasted.`
      })
    )
}
