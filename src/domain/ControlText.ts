/**
 * Control characters in text that programs control: C0 (U+0000–U+001F), DEL and C1
 * (U+0080–U+009F). A terminal acts on them — ESC and the C1 CSI / OSC / DCS start sequences (an
 * OSC 52 writes the clipboard), BEL, BS and CR sound or move — so no output carries them raw
 * unless a caller asks for escapes.
 *
 * Names and paths (a pane's directory and command, titles, names set by programs or other
 * clients) keep every other character and show each control as `\xNN`, so the text stays readable
 * and a control in it stays visible. A value that already holds the four characters `\x1b` then
 * reads like one holding ESC; ids, which are ours and never escaped, tell objects apart. Screen text
 * from a capture drops controls instead, as a screen shows nothing for them.
 */
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g

// eslint-disable-next-line no-control-regex
const CONTROL_BUT_NEWLINE = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/g

const hexEscape = (character: string): string => `\\x${character.charCodeAt(0).toString(16).padStart(2, "0")}`

/** `text` with each control character written as `\xNN`. */
export const escapeControls = (text: string): string => text.replace(CONTROL, hexEscape)

/**
 * An error message that may quote a tmux server, a socket or a binary (stderr, an exit message):
 * each control but the newline written as `\xNN`, so a message of several lines keeps them.
 */
export const escapeMessageControls = (text: string): string => text.replace(CONTROL_BUT_NEWLINE, hexEscape)

// eslint-disable-next-line no-control-regex
const INVISIBLE = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g
// eslint-disable-next-line no-control-regex
const INVISIBLE_BUT_ESC = /[\x00-\x08\x0a-\x1a\x1c-\x1f\x7f-\x9f]/g

/**
 * One captured row without control characters (tabs stay). tmux 3.3a never stores them in a pane's
 * grid, but newer tmux keeps a C1 character as a zero-width part of the cell before it. With
 * `keepEscape`, ESC stays: the colour and attribute sequences `capture-pane -e` writes start with it.
 */
export const stripControls = (row: string, keepEscape = false): string => row.replace(keepEscape ? INVISIBLE_BUT_ESC : INVISIBLE, "")

/**
 * What `capture-pane -e` writes around a row's text: SGR sequences (`ESC [ … m`) and, from tmux
 * 3.4, OSC 8 hyperlinks (`ESC ] 8 ; … ST`). Zero cells wide.
 */
// eslint-disable-next-line no-control-regex
export const CAPTURE_ESCAPE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?/g

/** A row of `capture-pane -e` as the plain capture reads it. */
export const withoutCaptureEscapes = (row: string): string => (row.includes("\x1b") ? row.replace(CAPTURE_ESCAPE, "") : row)

/**
 * A string field of an output that programs control: the operations see it exactly, and it is
 * encoded (sent) with its controls escaped.
 */
export const DisplayText = Schema.String.pipe(
  Schema.decodeTo(Schema.String, SchemaTransformation.transform({ decode: (text: string) => text, encode: escapeControls }))
)
