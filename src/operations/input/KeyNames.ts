/**
 * Which send_keys strings are keys, and the spelling tmux takes for them.
 *
 * tmux looks a whole send-keys argument up as a key name (key-string.c) and types it as text when
 * the lookup fails, so a misspelt key such as `Shift+Tab` or `C-Foo` reaches the program as
 * letters. And a name the lookup accepts is not always delivered as meant: measured on 3.3a, 3.5a
 * and 3.8 with tmux's default `extended-keys off`, `S-Tab` is typed as five letters on 3.3a and
 * sent as a plain Tab on 3.5a and 3.8, `C-Tab` sends nothing on 3.3a and a Tab later, `C-S-a` is
 * text on 3.3a and C-a later, `M-BTab` loses its Meta from 3.5a. So keys are read here, once: a key
 * becomes the one spelling that every supported version delivers the same (`BTab` for Shift+Tab),
 * a key-like string tmux would not deliver as meant is refused, and everything else is text, sent
 * with `send-keys -l` so tmux never reads it as a name.
 *
 * The rule for "key-like" (documented in docs/tools.md):
 * - Text: anything with whitespace or a control character, a single character, and a word that is
 *   no key name (`hello`, `None`, `F13`, `-la`).
 * - A key: a key name or common spelling alone, in any case (`Enter`, `esc`, `PgUp`, `[ETX]`), a
 *   hex code (`0x1b`), `^X`, or modifiers before a key name or one character, each modifier `C-`,
 *   `M-`, `S-` (tmux's) or a word (`Ctrl`, `Control`, `Alt`, `Meta`, `Option`, `Shift`) followed
 *   by `-` or `+`: `C-c`, `Ctrl+C`, `ctrl-shift-up`, `Alt+x`, `Shift+Tab`.
 * - Refused (InvalidInput, naming the spelling to use when there is one): modifiers before a word
 *   that is no key name (`C-Foo`, `Ctrl+Shift+Banana`), unless the only modifiers are tmux's
 *   letters in lower case (`c-section` is text); Cmd, Super and Win, which no terminal sends; and
 *   combinations tmux does not deliver as meant (Ctrl with a digit, Enter, Tab or Escape; Shift
 *   with a character other than a letter); a hex code after `0X`, or of no character tmux shows
 *   (a surrogate, past U+10FFFF, a C1 control, unassigned, a noncharacter).
 */

/** What `readKeys` made of a send_keys string. */
export type KeyReading =
  | { readonly _tag: "Text" }
  | { readonly _tag: "Key"; /** The spelling sent to tmux, e.g. "BTab", "C-c", "M-Up". */ readonly key: string }
  | { readonly _tag: "Refused"; readonly reason: string }

const TEXT: KeyReading = { _tag: "Text" }
const key = (name: string): KeyReading => ({ _tag: "Key", key: name })

/** Keys that take any of Ctrl, Meta and Shift (tmux sends them as xterm-style modified sequences). */
const MODIFIABLE = [
  ...Array.from({ length: 12 }, (_, i) => `F${i + 1}`),
  "Insert",
  "Delete",
  "Home",
  "End",
  "PageUp",
  "PageDown",
  "Up",
  "Down",
  "Left",
  "Right"
]
/** Keys that take Meta only (C-Space aside): tmux sends Meta as an Escape before the key. */
const META_ONLY = ["Tab", "Space", "BSpace", "Enter", "Escape"]
/** Keys that take no modifier. */
const PLAIN = ["BTab", "KP/", "KP*", "KP-", "KP+", "KP.", "KPEnter", ...Array.from({ length: 10 }, (_, i) => `KP${i}`)]

/**
 * tmux 3.5's names for the C0 controls ("[ETX]"; Tab, Enter and Escape keep their names), sent as
 * their `C-` spelling, which 3.3a takes too.
 */
const C0_NAMES = "NUL SOH STX ETX EOT ENQ ASC BEL BS - LF VT FF - SO SI DLE DC1 DC2 DC3 DC4 NAK SYN ETB CAN EM SUB - FS GS RS US"
  .split(" ")
  .flatMap((name, code): Array<readonly [string, string]> =>
    name === "-" ? [] : [[`[${name.toLowerCase()}]`, code === 0 ? "C-Space" : `C-${String.fromCharCode(code + (code <= 26 ? 96 : 64))}`]]
  )

/** The names tmux knows in every supported version and common spellings, lower case -> what is sent. */
const NAMES = new Map<string, string>([
  ...[...MODIFIABLE, ...META_ONLY, ...PLAIN].map((name) => [name.toLowerCase(), name] as const),
  ["ic", "Insert"],
  ["ins", "Insert"],
  ["dc", "Delete"],
  ["del", "Delete"],
  ["npage", "PageDown"],
  ["pgdn", "PageDown"],
  ["ppage", "PageUp"],
  ["pgup", "PageUp"],
  ["esc", "Escape"],
  ["return", "Enter"],
  ["backspace", "BSpace"],
  ["backtab", "BTab"],
  ["arrowup", "Up"],
  ["arrowdown", "Down"],
  ["arrowleft", "Left"],
  ["arrowright", "Right"],
  ...C0_NAMES
])

interface Modifiers {
  ctrl: boolean
  meta: boolean
  shift: boolean
}

const MODIFIER_WORD = /^(ctrl|control|ctl|alt|meta|option|opt|shift|cmd|command|super|win)[+-](?=.)/i
const MODIFIER_LETTER = /^([cms])-(?=.)/i

/** Characters tmux turns into a control character with Ctrl (besides letters). */
const CTRL_CHARACTERS = "@[\\]^_? /"

const refused = (why: string, use?: string): KeyReading => ({
  _tag: "Refused",
  reason: `keys reads as a key tmux would not send as meant (${why})${
    use === undefined ? "" : `: send ${use}`
  }. Pass literal: true to type it as text.`
})

const prefix = (modifiers: Modifiers) => `${modifiers.ctrl ? "C-" : ""}${modifiers.meta ? "M-" : ""}${modifiers.shift ? "S-" : ""}`

/** A named key with modifiers, as tmux delivers it. */
const namedKey = (name: string, modifiers: Modifiers): KeyReading => {
  const { ctrl, meta, shift } = modifiers
  if (MODIFIABLE.includes(name)) return key(prefix(modifiers) + name)
  if (name === "Tab" && shift) return ctrl || meta ? refused("Shift+Tab with another modifier", "BTab") : key("BTab")
  if (META_ONLY.includes(name)) {
    if (name === "Space" && ctrl && !shift) return key(prefix(modifiers) + name)
    if (ctrl || shift) return refused(`${ctrl ? "Ctrl" : "Shift"} with ${name}`, prefix({ ctrl: false, meta, shift: false }) + name)
    return key(prefix(modifiers) + name)
  }
  return ctrl || meta || shift ? refused(`a modifier with ${name}`, name) : key(name)
}

/** One character with modifiers, as tmux delivers it. */
const characterKey = (character: string, modifiers: Modifiers): KeyReading => {
  let base = character
  if (modifiers.shift) {
    if (!/^[a-z]$/i.test(base)) return refused("Shift with a character other than a letter: send the shifted character")
    base = base.toUpperCase()
  }
  if (modifiers.ctrl) {
    if (/^[a-z]$/i.test(base)) base = base.toLowerCase()
    else if (!CTRL_CHARACTERS.includes(base)) return refused("Ctrl with a character that has no control code")
    if (base === " ") base = "Space"
  }
  return key(prefix({ ...modifiers, shift: false }) + base)
}

/** Code points past ASCII that tmux cannot show (wcwidth < 0): C1 controls, unassigned, noncharacters. */
const UNSHOWN = /^[\p{Cc}\p{Cn}]$/u

/**
 * A hex code: tmux (key-string.c) reads only a lower-case `0x` as one, and types a code as letters
 * when it is no Unicode scalar value (a surrogate, past U+10FFFF) or one it cannot show (measured
 * on 3.3a: 0x80, 0x9b, 0xd7ff, 0xffff, 0x10ffff are typed as text; 0x7f, 0xe000, 0x10fffd sent).
 */
const hexKey = (x: string, digits: string): KeyReading => {
  const code = Number.parseInt(digits, 16)
  if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) || (code >= 0x80 && UNSHOWN.test(String.fromCodePoint(code)))) {
    return refused("a hex code of no character tmux can send")
  }
  return x === "x" ? key(`0x${digits}`) : refused("tmux reads a hex code only after a lower-case 0x", `0x${digits}`)
}

/** Reads a send_keys string (without `literal`) as text, one key, or a key-like string to refuse. */
export const readKeys = (keys: string): KeyReading => {
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f]/u.test(keys) || [...keys].length <= 1) return TEXT
  const hex = /^0([xX])([0-9a-fA-F]{1,6})$/.exec(keys)
  if (hex !== null) return hexKey(hex[1]!, hex[2]!)
  const modifiers: Modifiers = { ctrl: false, meta: false, shift: false }
  let rest = keys
  let spelled = false
  if (rest.startsWith("^") && [...rest].length === 2) {
    modifiers.ctrl = true
    rest = rest.slice(1)
  }
  for (;;) {
    const word = MODIFIER_WORD.exec(rest)
    const letter = word === null ? MODIFIER_LETTER.exec(rest) : null
    const found = word ?? letter
    if (found === null) break
    const name = found[1]!.toLowerCase()
    if (["cmd", "command", "super", "win"].includes(name)) return refused("a terminal sends no Cmd, Super or Win key")
    if (word !== null || found[1] === found[1]!.toUpperCase()) spelled = true
    if (name.startsWith("c")) modifiers.ctrl = true
    else if (name === "shift" || name === "s") modifiers.shift = true
    else modifiers.meta = true
    rest = rest.slice(found[0].length)
  }
  const modified = modifiers.ctrl || modifiers.meta || modifiers.shift
  const name = NAMES.get(rest.toLowerCase())
  if (name !== undefined) return namedKey(name, modifiers)
  if (!modified) return TEXT
  if ([...rest].length === 1) return characterKey(rest, modifiers)
  return spelled ? refused("no key has that name") : TEXT
}
