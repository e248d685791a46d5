/**
 * What `send-keys` delivers for a key name, as tmux 3.3a sends it to a program (key-string.c reads
 * the name, input-keys.c's default table gives the bytes; cursor keys in normal mode). Names are
 * case-insensitive; `C-`, `M-` and `^` modifiers combine with a character, `M-` also with a named
 * key. A word that is no key name is typed as text. Named keys or modifiers the table does not
 * hold (S-Up, C-F5, KP*) are refused, so a test cannot pass on bytes the fake made up.
 */

const NAMED: Readonly<Record<string, string>> = {
  enter: "\r",
  tab: "\t",
  btab: "\x1b[Z",
  space: " ",
  bspace: "\x7f",
  escape: "\x1b",
  up: "\x1b[A",
  down: "\x1b[B",
  right: "\x1b[C",
  left: "\x1b[D",
  home: "\x1b[1~",
  end: "\x1b[4~",
  ic: "\x1b[2~",
  insert: "\x1b[2~",
  dc: "\x1b[3~",
  delete: "\x1b[3~",
  ppage: "\x1b[5~",
  pageup: "\x1b[5~",
  pgup: "\x1b[5~",
  npage: "\x1b[6~",
  pagedown: "\x1b[6~",
  pgdn: "\x1b[6~",
  f1: "\x1bOP",
  f2: "\x1bOQ",
  f3: "\x1bOR",
  f4: "\x1bOS",
  f5: "\x1b[15~",
  f6: "\x1b[17~",
  f7: "\x1b[18~",
  f8: "\x1b[19~",
  f9: "\x1b[20~",
  f10: "\x1b[21~",
  f11: "\x1b[23~",
  f12: "\x1b[24~"
}

/** Names tmux knows that the table above does not give bytes for. */
const UNMODELLED = /^(kp.+|mouse.*|wheel.*|any|paste(start|end)|focus(in|out))$/i

/** A Ctrl key's byte (C-a is 0x01, C-Space and C-@ are NUL, C-? is DEL), or undefined. */
const control = (char: string): string | undefined => {
  if (char === " " || char === "@" || char === "2") return "\0"
  if (char === "?" || char === "8") return "\x7f"
  const code = char.toLowerCase().charCodeAt(0)
  if (char.length === 1 && code >= 0x61 && code <= 0x7a) return String.fromCharCode(code - 0x60)
  const punctuation: Record<string, string> = {
    "[": "\x1b",
    "\\": "\x1c",
    "]": "\x1d",
    "^": "\x1e",
    _: "\x1f",
    "3": "\x1b",
    "4": "\x1c",
    "5": "\x1d",
    "6": "\x1e",
    "7": "\x1f"
  }
  return punctuation[char]
}

export type KeyReading = { readonly bytes: string } | { readonly text: string } | { readonly unmodelled: string }

/** What tmux makes of one send-keys word without -l. */
export const readKey = (word: string): KeyReading => {
  if (word === "") return { text: "" }
  if (/^0x[0-9a-f]{1,6}$/i.test(word)) return { bytes: String.fromCodePoint(parseInt(word.slice(2), 16)) }
  let rest = word
  let ctrl = false
  let meta = false
  if (rest.length > 1 && rest.startsWith("^")) {
    ctrl = true
    rest = rest.slice(1)
  }
  while (rest.length > 2 && rest[1] === "-" && "CcMmSs".includes(rest[0]!)) {
    const modifier = rest[0]!.toUpperCase()
    if (modifier === "S") return { unmodelled: word }
    if (modifier === "C") ctrl = true
    else meta = true
    rest = rest.slice(2)
  }
  const named = NAMED[rest.toLowerCase()]
  const prefix = meta ? "\x1b" : ""
  if ([...rest].length === 1 && (ctrl || meta)) {
    if (!ctrl) return { bytes: prefix + rest }
    const byte = control(rest)
    return byte === undefined ? { unmodelled: word } : { bytes: prefix + byte }
  }
  if (ctrl && rest.toLowerCase() === "space") return { bytes: `${prefix}\0` }
  if (named !== undefined) return ctrl ? { unmodelled: word } : { bytes: prefix + named }
  if (UNMODELLED.test(rest)) return { unmodelled: word }
  // A modifier before something that is no key makes the whole word no key: tmux types it.
  return { text: word }
}
