/**
 * Pure rules behind send_keys, show_environment and the shape tools: which keys are one special
 * key (and so default to no Enter), how `show-environment -s` output parses, which names tmux would
 * store exactly, and the stderr tmux uses for a missing session in the environment commands.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { parseShellEnvironment } from "../../src/operations/environment/Environment.js"
import { isSpecialKey } from "../../src/operations/input/Input.js"
import { checkName } from "../../src/operations/layout/Names.js"
import { isLayout } from "../../src/operations/layout/Shape.js"
import { classifyFailure } from "../../src/tmux/Classify.js"

describe("isSpecialKey", () => {
  it("is true for named keys in any case and for keys with modifiers", () => {
    for (
      const keys of [
        "C-c",
        "C-d",
        "C-z",
        "c-c",
        "M-x",
        "S-Up",
        "C-M-a",
        "^C",
        "^d",
        "Escape",
        "escape",
        "Up",
        "down",
        "F5",
        "F12",
        "Enter",
        "Tab",
        "BSpace",
        "Space",
        "PageUp",
        "End",
        "home",
        "KP5",
        "C-Space",
        "M-é",
        "C-?",
        // tmux's hex spelling of a key: C-c.
        "0x03"
      ]
    ) {
      expect({ keys, special: isSpecialKey(keys) }).toEqual({ keys, special: true })
    }
  })

  it("is false for text, lone characters, half-formed names and C- with a character that has no control code (refused)", () => {
    for (
      const keys of ["y", "ls -la", "echo hi", "C-c C-c", "C-", "^", "S-", "--", "-", "F13", "Upx", "None", "C-~", "C--", "é", "", " "]
    ) {
      expect({ keys, special: isSpecialKey(keys) }).toEqual({ keys, special: false })
    }
  })
})

describe("parseShellEnvironment", () => {
  it("reads values with newlines, quotes, $, backquotes, backslashes and ; exactly, and removed names", () => {
    const output = [
      "A=\"line1\nline2\"; export A;\n",
      "B=\"it's \\\"q\\\" \\$x \\`y\\` \\\\ z; export C;\"; export B;\n",
      "EMPTY=\"\"; export EMPTY;\n",
      "unset GONE;\n",
      "U=\"ü 日本\t\x1b[31m\"; export U;\n"
    ].join("")
    const parsed = parseShellEnvironment(output)
    expect(parsed).toEqual(
      Result.succeed({
        variables: [
          ["A", "line1\nline2"],
          ["B", "it's \"q\" $x `y` \\ z; export C;"],
          ["EMPTY", ""],
          ["U", "ü 日本\t\x1b[31m"]
        ],
        removed: ["GONE"]
      })
    )
  })

  it("refuses output that does not follow the format instead of guessing", () => {
    for (const output of ["A=plain\n", "A=\"open; export A;\n", "A=\"x\"; export B;\n", "unset X", "A=\"x\\", "=\"x\"; export ;\n"]) {
      expect(Result.isFailure(parseShellEnvironment(output)), JSON.stringify(output)).toBe(true)
    }
    expect(parseShellEnvironment("")).toEqual(Result.succeed({ variables: [], removed: [] }))
  })
})

describe("checkName", () => {
  const accepted = (kind: Parameters<typeof checkName>[0], text: string) =>
    Result.isSuccess(Effect.runSync(Effect.result(checkName(kind, text, "name"))))

  it("accepts format-like text, ; and unicode, which the operations literalize", () => {
    for (const text of ["#(touch /tmp/x)", "#{pane_pid}", "a;", "ünï 日本 🙂", "a b"]) {
      expect(accepted("session name", text), text).toBe(true)
      expect(accepted("window name", text), text).toBe(true)
      expect(accepted("pane title", text), text).toBe(true)
    }
    expect(accepted("window name", "a:b.c")).toBe(true)
    expect(accepted("pane title", "back\\slash")).toBe(true)
    expect(accepted("pane title", "")).toBe(true)
  })

  it("refuses what tmux would not store exactly", () => {
    for (const text of ["tab\there", "new\nline", "esc\x1b", "del\x7f", "c1\u0085"]) {
      for (const kind of ["session name", "window name", "pane title"] as const) {
        expect(accepted(kind, text), `${kind} ${JSON.stringify(text)}`).toBe(false)
      }
    }
    for (const text of ["line\u2028sep", "nonchar\u{10FFFF}", "unassigned\u0378", "lone\ud800"]) {
      for (const kind of ["session name", "window name", "pane title"] as const) {
        expect(accepted(kind, text), `${kind} ${JSON.stringify(text)}`).toBe(false)
      }
    }
    for (const text of ["$HOME", "a$_", "${X}"]) {
      expect(accepted("session name", text), text).toBe(false)
      expect(accepted("window name", text), text).toBe(false)
      expect(accepted("pane title", text), text).toBe(true)
    }
    for (const text of ["$", "$1", "$ x", "$(x)", "$$", "$é"]) expect(accepted("window name", text), text).toBe(true)
    expect(accepted("session name", "a.b")).toBe(false)
    expect(accepted("session name", "a:b")).toBe(false)
    expect(accepted("window name", "back\\slash")).toBe(false)
    expect(accepted("session name", "")).toBe(false)
    expect(accepted("window name", "x".repeat(257))).toBe(false)
  })
})

describe("isLayout", () => {
  it("accepts the named layouts and layout strings, nothing else", () => {
    for (
      const layout of [
        "tiled",
        "even-horizontal",
        "main-vertical",
        "bb62,159x48,0,0{79x48,0,0,79,48,80,0,80}",
        "c4a6,80x24,0,0[80x12,0,0,1,80x11,0,13,2]",
        // tmux 3.8 prints a JSON subset.
        `{"V":2,"L":{"t":"v","w":80,"h":24,"x":0,"y":0,"c":[{"t":"p","w":80,"h":12,"x":0,"y":0,"l":1,"i":0,"I":"%0"},{"t":"p","w":39,"h":11,"x":41,"y":13,"a":true,"i":2,"I":"%2"}]}}`
      ]
    ) {
      expect(isLayout(layout), layout).toBe(true)
    }
    for (
      const layout of [
        "Tiled",
        "tiled;",
        "#(touch x)",
        "bb62",
        "bb62,80x24 ; kill-server",
        "",
        `{"V":2,"L":{"t":"p","I":"#(touch x)"}}`,
        `{"V":2,"L":{"t":"p"}} ; kill-server`,
        `{"V":2,"L":{"t":"p"};}`
      ]
    ) {
      expect(isLayout(layout), layout).toBe(false)
    }
  })
})

describe("classifyFailure for the environment commands", () => {
  it("reads set/show-environment's \"no such session\" as NotFound", () => {
    expect(classifyFailure({ stderr: "no such session: $9\n", exitCode: 1, socketLabel: "x", command: "show-environment" })).toMatchObject({
      _tag: "NotFound",
      kind: "session",
      target: "$9"
    })
  })
})
