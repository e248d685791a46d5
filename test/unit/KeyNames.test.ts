/**
 * The key-name reading behind send_keys (operations/input/KeyNames.ts): which strings are one key
 * and the spelling sent for them, which are text, and which key-like strings are refused. The
 * spellings sent are the ones measured to reach a program the same on tmux 3.3a, 3.5a and 3.8
 * (test/integration/input.test.ts checks the bytes on the running version).
 */
import { describe, expect, it } from "@effect/vitest"
import { type KeyReading, readKeys } from "../../src/operations/input/KeyNames.js"

const sent = (keys: string) => {
  const reading: KeyReading = readKeys(keys)
  return reading._tag === "Key" ? reading.key : reading._tag
}

describe("readKeys", () => {
  it("sends tmux's names and modifiers as they are, in any case", () => {
    const table: Record<string, string> = {
      "C-c": "C-c",
      "c-c": "C-c",
      "C-C": "C-c",
      "^C": "C-c",
      "^d": "C-d",
      "M-x": "M-x",
      "C-M-a": "C-M-a",
      "S-Up": "S-Up",
      "C-S-Up": "C-S-Up",
      "M-F5": "M-F5",
      "Escape": "Escape",
      "escape": "Escape",
      "Enter": "Enter",
      "Tab": "Tab",
      "BTab": "BTab",
      "BSpace": "BSpace",
      "Space": "Space",
      "C-Space": "C-Space",
      "M-Enter": "M-Enter",
      "PPage": "PageUp",
      "npage": "PageDown",
      "IC": "Insert",
      "DC": "Delete",
      "home": "Home",
      "F12": "F12",
      "KP5": "KP5",
      "KPEnter": "KPEnter",
      "C-?": "C-?",
      "C-[": "C-[",
      "C-@": "C-@",
      "C-/": "C-/",
      "M-é": "M-é",
      "M--": "M--",
      "0x1b": "0x1b",
      "0x1B": "0x1B",
      "0x7f": "0x7f",
      "0xe9": "0xe9",
      "0x20ac": "0x20ac",
      "0xe000": "0xe000",
      "0x1f600": "0x1f600",
      "0x10fffd": "0x10fffd",
      "[ETX]": "C-c",
      "[nul]": "C-Space",
      "[FS]": "C-\\"
    }
    for (const [keys, key] of Object.entries(table)) expect({ keys, sent: sent(keys) }).toEqual({ keys, sent: key })
  })

  it("maps common spellings to tmux's names", () => {
    const table: Record<string, string> = {
      "Ctrl+C": "C-c",
      "ctrl-c": "C-c",
      "CTRL+c": "C-c",
      "Control+D": "C-d",
      "Ctl-z": "C-z",
      "Shift+Tab": "BTab",
      "S-Tab": "BTab",
      "shift-tab": "BTab",
      "BackTab": "BTab",
      "Esc": "Escape",
      "ESC": "Escape",
      "Return": "Enter",
      "Alt+x": "M-x",
      "Meta-x": "M-x",
      "Option+Left": "M-Left",
      "Alt+Shift+Up": "M-S-Up",
      "Ctrl+Alt+Delete": "C-M-Delete",
      "Del": "Delete",
      "Ins": "Insert",
      "PgUp": "PageUp",
      "PgDn": "PageDown",
      "Backspace": "BSpace",
      "Alt+Backspace": "M-BSpace",
      "ArrowUp": "Up",
      "Ctrl+Shift+a": "C-a",
      "Shift+a": "A",
      "S-x": "X",
      "Ctrl+Space": "C-Space",
      "ctrl+shift+up": "C-S-Up"
    }
    for (const [keys, key] of Object.entries(table)) expect({ keys, sent: sent(keys) }).toEqual({ keys, sent: key })
  })

  it("reads text as text: whitespace, one character, words that are no key name, tmux's lower-case letters before a word", () => {
    for (
      const keys of [
        "hello",
        "ls -la",
        "Enter the code",
        "C-c C-c",
        "y",
        "+",
        "-",
        "é",
        "",
        " ",
        "C-",
        "^",
        "S-",
        "--",
        "-la",
        "--help",
        "F13",
        "Upx",
        "None",
        "Any",
        "User0",
        "WheelUp",
        "c-section",
        "s-curve",
        "a-b",
        "x+y",
        "tab\there",
        "line\n"
      ]
    ) {
      expect({ keys, sent: sent(keys) }).toEqual({ keys, sent: "Text" })
    }
  })

  it("refuses key-like strings tmux would not deliver as meant, naming the right spelling when there is one", () => {
    const table: Record<string, string | undefined> = {
      "C-Foo": undefined,
      "Ctrl+Shift+Banana": undefined,
      "Ctrl+Foo": undefined,
      "M-Banana": undefined,
      "Cmd+C": undefined,
      "Super+x": undefined,
      "C-1": undefined,
      "C-~": undefined,
      "C--": undefined,
      "C-é": undefined,
      "Ctrl+Tab": "Tab",
      "C-Enter": "Enter",
      "C-Escape": "Escape",
      "C-BSpace": "BSpace",
      "Shift+Enter": "Enter",
      "S-Space": "Space",
      "M-S-Enter": "M-Enter",
      "Ctrl+Shift+Tab": "BTab",
      "M-BTab": "BTab",
      "S-KP1": "KP1",
      "S-1": undefined,
      "Shift+/": undefined,
      // tmux reads only a lower-case 0x as hex, and types as letters a code that is no character
      // (surrogates, past U+10FFFF) or none it can show (C1 controls, unassigned, noncharacters),
      // as measured on 3.3a.
      "0X1b": "0x1b",
      "0xd800": undefined,
      "0xdfff": undefined,
      "0x110000": undefined,
      "0xffffff": undefined,
      "0x80": undefined,
      "0x9b": undefined,
      "0xd7ff": undefined,
      "0xffff": undefined,
      "0x10ffff": undefined
    }
    for (const [keys, use] of Object.entries(table)) {
      const reading = readKeys(keys)
      expect({ keys, tag: reading._tag }).toEqual({ keys, tag: "Refused" })
      if (reading._tag !== "Refused") continue
      expect(reading.reason).toContain("literal: true")
      if (use === undefined) expect(reading.reason, keys).not.toMatch(/: send [A-Z]/)
      else expect(reading.reason, keys).toContain(`send ${use}.`)
      // The caller's string is never echoed.
      expect(reading.reason, keys).not.toContain(keys)
    }
  })
})
