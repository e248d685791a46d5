/**
 * Typing into a pane with `send-keys`. The caller's keys reach tmux as one argv element, after
 * `--`, so they are never split on spaces, never read as flags and never parsed by a shell.
 *
 * Without `literal`, tmux first looks the whole string up as a key name (case-insensitively: "C-c",
 * "Up", "end", "F5", "^C", "0x41"); anything else is typed as text. With `literal` it is always text.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { InvalidInput, NotFound, type TmuxError } from "../domain/Errors.js"
import { PaneId } from "../domain/Ids.js"
import type { ResolvedSocket } from "../services/SocketResolver.js"
import * as Format from "../tmux/Format.js"
import { Tmux, type TmuxCommand } from "../tmux/Tmux.js"
import { decode, queryTree } from "./Query.js"

/** tmux's named keys (key-string.c), compared case-insensitively as tmux does. */
const NAMED_KEYS = new Set(
  [
    ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
    "IC",
    "Insert",
    "DC",
    "Delete",
    "Home",
    "End",
    "NPage",
    "PageDown",
    "PgDn",
    "PPage",
    "PageUp",
    "PgUp",
    "Tab",
    "BTab",
    "Space",
    "BSpace",
    "Enter",
    "Escape",
    "Up",
    "Down",
    "Left",
    "Right",
    "KP/",
    "KP*",
    "KP-",
    "KP+",
    "KP.",
    "KPEnter",
    ...Array.from({ length: 10 }, (_, i) => `KP${i}`)
  ].map((name) => name.toLowerCase())
)

/** ASCII keys that keep a Ctrl modifier as it is (key-string.c). */
const CTRL_KEEPS = "!#()+,-.0123456789:;<=>'\r\t"

/**
 * Whether tmux would read `keys` as one special key: a named key (Escape, Up, F5, Enter, Tab, …)
 * or any key with a modifier (C-c, M-x, S-Up, ^D). A lone printable character ("y") is text.
 * This decides the default of `enter`: after a special key an Enter is never what was meant.
 */
export const isSpecialKey = (keys: string): boolean => {
  let rest = keys
  let ctrl = false
  let modified = false
  if (rest.length > 1 && rest.startsWith("^")) {
    ctrl = modified = true
    rest = rest.slice(1)
  }
  while (rest.length > 2 && rest[1] === "-" && "CcMmSs".includes(rest[0]!)) {
    if ("Cc".includes(rest[0]!)) ctrl = true
    modified = true
    rest = rest.slice(2)
  }
  if (rest === "") return false
  if ([...rest].length > 1) return NAMED_KEYS.has(rest.toLowerCase())
  const code = rest.codePointAt(0)!
  if (!modified || code < 0x20) return false
  // tmux turns C-<ASCII> into a control character only for these; other C-<ASCII> are typed as text.
  if (ctrl && code <= 0x7f && !CTRL_KEEPS.includes(rest)) {
    return (code >= 97 && code <= 122) || (code >= 64 && code <= 95) || code === 32 || code === 63
  }
  return true
}

/** tmux refuses a command line over about 16 KiB; longer text goes in pieces of this size. */
const CHUNK_BYTES = 8192
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

export interface SendKeysRequest {
  readonly keys: string
  /** Type the keys as text, never as key names. Default false. */
  readonly literal?: boolean | undefined
  /** Press Enter afterwards. Default: true, except after a lone special key (see `isSpecialKey`). */
  readonly enter?: boolean | undefined
}

export const KeysSent = Schema.Struct({
  pane_id: PaneId,
  literal: Schema.Boolean,
  special_key: Schema.Boolean.annotations({
    description: "The keys were one special key (C-c, Escape, Up, F5, …), which is why Enter defaulted to false."
  }),
  enter_sent: Schema.Boolean,
  keys_length: Schema.Number.pipe(Schema.int(), Schema.nonNegative()).annotations({
    description: "Characters sent before the Enter (the keys themselves are not returned)."
  }),
  pane_in_mode: Schema.Boolean.annotations({
    description: "The pane was in copy mode or another tmux mode: the keys went to that mode, not to the program."
  })
})
export type KeysSent = typeof KeysSent.Type

const paneStateRecord = Format.record("pst", {
  pane_id: Format.string("pane_id"),
  dead: Format.bool("pane_dead"),
  in_mode: Format.bool("pane_in_mode")
})

/**
 * Sends keys, then Enter as a key of its own. A dead pane is refused before anything is sent (tmux
 * would drop the keys without a word). Text longer than one tmux command allows goes in pieces,
 * in order, typed literally (text that long cannot be a key name, so nothing changes meaning).
 */
export const sendKeys = (
  socket: ResolvedSocket,
  paneId: string,
  request: SendKeysRequest
): Effect.Effect<KeysSent, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function* () {
    const { keys } = request
    const literal = request.literal ?? false
    // Node refuses argv with NUL bytes in an exception that quotes the argument.
    if (keys.includes("\0")) return yield* Effect.fail(new InvalidInput({ reason: "keys must not contain NUL characters." }))
    const bytes = Buffer.byteLength(keys, "utf8")
    if (bytes > MAX_KEYS_BYTES) {
      return yield* Effect.fail(new InvalidInput({ reason: `keys must be at most ${MAX_KEYS_BYTES} bytes.` }))
    }
    const special = !literal && isSpecialKey(keys)
    const enter = request.enter ?? !special
    if (keys === "" && !enter) {
      return yield* Effect.fail(new InvalidInput({ reason: "nothing to send: keys is empty and enter is false." }))
    }

    const state = yield* queryTree(socket, (m) => [["list-panes", "-t", paneId, "-F", paneStateRecord.format(m)]], {
      kind: "pane",
      id: paneId
    })
    const pane = (yield* decode(paneStateRecord, state)).find((row) => row.pane_id === paneId)
    if (pane === undefined) return yield* Effect.fail(new NotFound({ kind: "pane", target: paneId, socket: socket.label }))
    if (pane.dead) {
      return yield* Effect.fail(
        new InvalidInput({ reason: `pane ${paneId} is dead (its program exited): nothing typed there would arrive.` })
      )
    }

    const invocations: Array<Array<TmuxCommand>> =
      keys === ""
        ? [[]]
        : bytes <= CHUNK_BYTES
          ? [[["send-keys", "-t", paneId, ...(literal ? ["-l"] : []), "--", keys]]]
          : chunksOf(keys, CHUNK_BYTES).map((chunk) => [["send-keys", "-t", paneId, "-l", "--", chunk]])
    if (enter) invocations[invocations.length - 1]!.push(["send-keys", "-t", paneId, "Enter"])
    const tmux = yield* Tmux
    for (const commands of invocations) yield* tmux.run(socket, commands)
    return {
      pane_id: paneId,
      literal,
      special_key: special,
      enter_sent: enter,
      keys_length: [...keys].length,
      pane_in_mode: pane.in_mode
    }
  })
