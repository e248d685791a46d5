/**
 * Pure rules behind the buffer, paste, channel and batch tools: which names are accepted, where
 * show_buffer cuts text, and how a batch of send-keys operations is packed into invocations.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { BufferName, prefixWithin, tmuxBufferName } from "../../src/operations/input/Buffers.js"
import { batchSteps, type KeysPlan, planKeys, type SendKeysRequest } from "../../src/operations/input/Input.js"
import { ChannelName } from "../../src/operations/watching/Channels.js"

const accepts = (schema: Schema.Codec<string>, value: string) => Result.isSuccess(Schema.decodeUnknownResult(schema)(value))

describe("buffer and channel names", () => {
  it("accept 1-64 characters of A-Z a-z 0-9 _ . -", () => {
    for (const name of ["a", "notes", "build-done", "x.y_z-1", "-S", "..", "n".repeat(64)]) {
      expect({ name, buffer: accepts(BufferName, name), channel: accepts(ChannelName, name) }).toEqual({
        name,
        buffer: true,
        channel: true
      })
    }
  })

  it("refuse anything that could reach a format, a path, a command separator or a flag parser", () => {
    for (const name of ["", "a b", "../x", "x/y", "x;", "#{pid}", "a,b", "}", "ü", "tab\t", "n".repeat(65)]) {
      expect({ name, buffer: accepts(BufferName, name), channel: accepts(ChannelName, name) }).toEqual({
        name,
        buffer: false,
        channel: false
      })
    }
  })

  it("a buffer is held in tmux under the etm. prefix", () => {
    expect(tmuxBufferName("notes")).toBe("etm.notes")
  })
})

describe("prefixWithin", () => {
  it("keeps the longest prefix within the byte limit without cutting a character", () => {
    expect(prefixWithin("abc", 3)).toBe("abc")
    expect(prefixWithin("abc", 2)).toBe("ab")
    expect(prefixWithin("éé", 3)).toBe("é")
    expect(prefixWithin("日本", 5)).toBe("日")
    expect(prefixWithin("🙂x", 3)).toBe("")
    expect(prefixWithin("🙂x", 4)).toBe("🙂")
    expect(prefixWithin("", 1)).toBe("")
  })
})

const plans = (requests: ReadonlyArray<SendKeysRequest>): Array<KeysPlan> =>
  requests.map((request) => Result.getOrThrow(planKeys("%1", request)))

describe("batchSteps", () => {
  it("packs short operations into one invocation, in order", () => {
    const steps = batchSteps(plans([{ keys: "ls" }, { keys: "C-c" }, { keys: "", enter: true }]), true)
    expect(steps).toEqual([
      {
        operations: [0, 1, 2],
        invocations: [
          [
            // Text goes with -l, so tmux never reads it as a key name.
            ["send-keys", "-t", "%1", "-l", "--", "ls"],
            ["send-keys", "-t", "%1", "Enter"],
            ["send-keys", "-t", "%1", "--", "C-c"],
            ["send-keys", "-t", "%1", "Enter"]
          ]
        ]
      }
    ])
  })

  it("starts a new invocation before tmux's command size limit, and gives text in pieces a step of its own", () => {
    const medium = "m".repeat(5000)
    const long = "l".repeat(20_000)
    const steps = batchSteps(
      plans([
        { keys: medium, enter: false },
        { keys: medium, enter: false },
        { keys: medium, enter: false },
        { keys: long, enter: false },
        { keys: "x" }
      ]),
      true
    )
    expect(steps.map((step) => step.operations)).toEqual([[0, 1], [2], [3], [4]])
    expect(steps.map((step) => step.invocations.length)).toEqual([1, 1, 3, 1])
    for (const step of steps) {
      for (const invocation of step.invocations) {
        expect(invocation.flat().reduce((n, arg) => n + Buffer.byteLength(arg) + 1, 0)).toBeLessThan(16_384 - 512)
      }
    }
    const typed = steps.slice(0, 3).flatMap((step) => step.invocations.flat().map((command) => command[command.length - 1])).join("")
    expect(typed === medium + medium + medium + long).toBe(true)
  })

  it("gives every operation a step of its own when they are paced", () => {
    const steps = batchSteps(plans([{ keys: "a" }, { keys: "b" }]), false)
    expect(steps.map((step) => step.operations)).toEqual([[0], [1]])
  })
})

describe("planKeys", () => {
  it("says why a request cannot be sent", () => {
    expect(planKeys("%1", { keys: "", enter: false })).toEqual(Result.fail("nothing to send: keys is empty and enter is false."))
    expect(Result.isFailure(planKeys("%1", { keys: "a\0b" }))).toBe(true)
    expect(Result.isFailure(planKeys("%1", { keys: "k".repeat(65_537) }))).toBe(true)
    // A key-like string tmux would not deliver: refused, the same for send_keys and every batch step.
    const refused = planKeys("%1", { keys: "Ctrl+Shift+Banana" })
    expect(Result.isFailure(refused) && refused.failure).toContain("literal: true")
  })

  it("sends one key in tmux's spelling (no -l, no Enter) and text with -l", () => {
    expect(Result.getOrThrow(planKeys("%1", { keys: "Shift+Tab" }))).toMatchObject({
      key: "BTab",
      special: true,
      enter: false,
      invocations: [[["send-keys", "-t", "%1", "--", "BTab"]]]
    })
    expect(Result.getOrThrow(planKeys("%1", { keys: "Enter the code", enter: false }))).toMatchObject({
      key: null,
      invocations: [[["send-keys", "-t", "%1", "-l", "--", "Enter the code"]]]
    })
    // literal: never read as a key.
    expect(Result.getOrThrow(planKeys("%1", { keys: "C-Foo", literal: true, enter: false }))).toMatchObject({
      key: null,
      invocations: [[["send-keys", "-t", "%1", "-l", "--", "C-Foo"]]]
    })
  })
})
