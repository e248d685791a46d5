/**
 * operations/input over FakeTmux: keys (names, text, Enter, long text in pieces, batches), pastes
 * through private buffers, and the buffers of our namespace, with what reached the pane's program
 * (`pane.input`, the bytes tmux sends) and which buffers remain, and the refusals.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { deleteBuffer, listBuffers, loadBuffer, pasteBuffer, showBuffer } from "../../src/operations/input/Buffers.js"
import { sendKeys, sendKeysBatch } from "../../src/operations/input/Input.js"
import { pasteText } from "../../src/operations/input/Paste.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { fakeOperations, socketPathFor } from "../support/fakeWorld.js"

const DEFAULT = socketPathFor()

/** One session: %0 a shell, %1 a program that asked for bracketed paste; buffers of ours and someone else's. */
const world = (): FakeWorld =>
  new Map([
    [
      DEFAULT,
      FakeTmux.server({
        sessions: [{ name: "main", windows: [{ panes: [{}, { command: "vim", bracketedPaste: true }] }] }],
        buffers: [
          { name: "etm.notes", data: "line one\nline two\n", created: 1_700_000_100 },
          { name: "buffer0001", data: "a person's copy", created: 1_700_000_200 },
          { name: "etm.paste.0123456789abcdef", data: "x", created: 1_700_000_300 }
        ]
      })
    ]
  ])

const serverOf = (w: FakeWorld) => w.get(DEFAULT)!
const paneOf = (w: FakeWorld, id: string) => FakeTmux.pane(serverOf(w), id)!.pane

describe("sendKeys", () => {
  it.effect("types text then Enter; a key name is sent as that key, without an Enter", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => sendKeys(socket, "%0", { keys: "ls -la" }))).toEqual({
        pane_id: "%0",
        literal: false,
        special_key: false,
        key: null,
        enter_sent: true,
        keys_length: 6,
        pane_in_mode: false,
        left_mode: false
      })
      expect(yield* fake.run((socket) => sendKeys(socket, "%0", { keys: "C-c" }))).toMatchObject({
        special_key: true,
        key: "C-c",
        enter_sent: false
      })
      yield* fake.run((socket) => sendKeys(socket, "%0", { keys: "Up", literal: true, enter: false }))
      yield* fake.run((socket) => sendKeys(socket, "%0", { keys: "Escape" }))
      expect(paneOf(w, "%0").input).toBe("ls -la\r\x03Up\x1b")
    }))

  it.effect("sends long text in pieces, in order, typed literally", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      const text = "é".repeat(5000)
      yield* fake.run((socket) => sendKeys(socket, "%0", { keys: text, enter: false }))
      expect(paneOf(w, "%0").input).toBe(text)
      // The first piece goes with the pane's lookup, guarded by an if-shell; the others on their own.
      const [lookup, ...sends] = fake.state.invocations.map((i) => i.commands)
      expect(lookup?.map((c) => c[0])).toEqual(["list-panes", "if-shell"])
      expect(sends.length).toBeGreaterThan(0)
      expect(sends.every((commands) => commands.every((c) => c[0] === "send-keys" && c.includes("-l")))).toBe(true)
    }))

  it.effect("a piece whose quoted command line would not fit one invocation is sent on its own, after the lookup", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      // Each control character takes four bytes quoted (\ooo): 8000 of them do not fit beside the lookup.
      const text = "\x01".repeat(8000)
      yield* fake.run((socket) => sendKeys(socket, "%0", { keys: text, literal: true, enter: false }))
      expect(paneOf(w, "%0").input).toBe(text)
      expect(fake.state.invocations.map((i) => i.commands.map((c) => c[0]))).toEqual([["list-panes"], ["send-keys"]])
    }))

  it.effect("refuses a dead pane and bad keys before anything is sent; keys to a pane in copy mode go to the mode", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      paneOf(w, "%0").dead = true
      expect(yield* Effect.flip(fake.run((socket) => sendKeys(socket, "%0", { keys: "x" })))).toMatchObject({
        _tag: "Conflict",
        kind: "dead"
      })
      expect(yield* Effect.flip(fake.run((socket) => sendKeys(socket, "%1", { keys: "nul\0" })))).toMatchObject({ _tag: "InvalidInput" })
      expect(yield* Effect.flip(fake.run((socket) => sendKeys(socket, "%1", { keys: "", enter: false })))).toMatchObject({
        _tag: "InvalidInput"
      })
      expect(yield* Effect.flip(fake.run((socket) => sendKeys(socket, "%9", { keys: "x" })))).toMatchObject({
        _tag: "NotFound",
        kind: "pane"
      })
      expect(fake.state.invocations.every((i) => i.commands.every((c) => c[0] !== "send-keys"))).toBe(true)
      paneOf(w, "%1").inMode = true
      expect(yield* fake.run((socket) => sendKeys(socket, "%1", { keys: "q" }))).toMatchObject({ pane_in_mode: true })
      expect(paneOf(w, "%1")).toMatchObject({ inMode: false, input: "\r" })
    }))
})

describe("sendKeysBatch", () => {
  it.effect("packs operations without a delay into one invocation, each reporting its outcome", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      const batch = yield* fake.run((socket) =>
        sendKeysBatch(socket, "%0", {
          operations: [{ keys: "vim" }, { keys: "i", enter: false }, { keys: "Escape" }, { keys: ":q", literal: true }],
          delayMs: 0,
          stopOnError: true
        })
      )
      expect(batch).toMatchObject({ operations_total: 4, operations_sent: 4, operations_failed: 0, invocations: 1 })
      expect(batch.results.map((r) => [r.status, r.enter_sent])).toEqual([
        ["sent", true],
        ["sent", false],
        ["sent", false],
        ["sent", true]
      ])
      expect(paneOf(w, "%0").input).toBe("vim\ri\x1b:q\r")
    }))

  it.effect("refuses an invalid operation before sending any, and a batch of none", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      const refused = yield* Effect.flip(
        fake.run((socket) => sendKeysBatch(socket, "%0", { operations: [{ keys: "a" }, { keys: "\0" }], delayMs: 0, stopOnError: true }))
      )
      expect(refused).toMatchObject({ _tag: "InvalidInput" })
      expect(refused.message).toContain("operations[1]")
      expect(yield* Effect.flip(fake.run((socket) => sendKeysBatch(socket, "%0", { operations: [], delayMs: 0, stopOnError: true }))))
        .toMatchObject({ _tag: "InvalidInput" })
      expect(fake.state.invocations).toEqual([])
    }))
})

describe("pasteText", () => {
  it.effect("pastes through a private buffer that is gone afterwards, bracketed when the program asked, Enter after", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => pasteText(socket, "%1", { text: "a\nb", bracketed: true, enter: true }))).toEqual({
        pane_id: "%1",
        bytes: 3,
        bracketed: true,
        enter_sent: true,
        pane_in_mode: false
      })
      expect(paneOf(w, "%1").input).toBe("\x1b[200~a\rb\x1b[201~\r")
      // The shell in %0 never asked for brackets: tmux pastes the text as it is.
      yield* fake.run((socket) => pasteText(socket, "%0", { text: "echo hi", bracketed: true, enter: false }))
      expect(paneOf(w, "%0").input).toBe("echo hi")
      // The text travelled on stdin, never in an argv, and no buffer of the paste is left.
      expect(fake.state.invocations.filter((i) => i.stdin !== undefined).map((i) => i.stdin)).toEqual(["a\nb", "echo hi"])
      expect(fake.state.invocations.flatMap((i) => i.commands.flat()).some((arg) => arg.includes("echo hi"))).toBe(false)
      expect(serverOf(w).buffers.map((b) => b.name).sort()).toEqual(["buffer0001", "etm.notes", "etm.paste.0123456789abcdef"])
    }))

  it.effect("refuses the paste-end sequence, empty text, and Enter into a pane in copy mode", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(
        yield* Effect.flip(fake.run((socket) => pasteText(socket, "%1", { text: "x\x1b[201~rm -rf ~\n", bracketed: true, enter: false })))
      ).toMatchObject({ _tag: "InvalidInput" })
      expect(yield* Effect.flip(fake.run((socket) => pasteText(socket, "%1", { text: "", bracketed: false, enter: false })))).toMatchObject(
        { _tag: "InvalidInput" }
      )
      paneOf(w, "%0").inMode = true
      expect(yield* Effect.flip(fake.run((socket) => pasteText(socket, "%0", { text: "ls", bracketed: false, enter: true }))))
        .toMatchObject({ _tag: "Conflict", kind: "copy_mode" })
      expect(paneOf(w, "%0").input).toBe("")
      expect(paneOf(w, "%1").input).toBe("")
    }))
})

describe("buffers", () => {
  it.effect("loads into our namespace (text on stdin), lists only ours newest first, shows within a budget", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => loadBuffer(socket, "todo", "✓ done"))).toEqual({
        name: "todo",
        tmux_buffer: "etm.todo",
        bytes: 8,
        replaced: false
      })
      expect((yield* fake.run((socket) => loadBuffer(socket, "notes", "new"))).replaced).toBe(true)
      expect(serverOf(w).buffers.find((b) => b.name === "etm.notes")!.data).toBe("new")
      const listed = yield* fake.run((socket) => listBuffers(socket))
      expect(listed.map((b) => b.name)).toEqual(["notes", "todo", "paste.0123456789abcdef"])
      expect(listed[1]).toMatchObject({ tmux_buffer: "etm.todo", bytes: 8 })
      expect(yield* fake.run((socket) => showBuffer(socket, "todo", 2))).toMatchObject({ content: "", bytes: 8, truncated: true })
      expect(yield* fake.run((socket) => showBuffer(socket, "todo", 3))).toMatchObject({ content: "✓", returned_bytes: 3, truncated: true })
      expect(yield* Effect.flip(fake.run((socket) => showBuffer(socket, "nope", 10)))).toMatchObject({ _tag: "InvalidInput" })
      expect(yield* Effect.flip(fake.run((socket) => loadBuffer(socket, "x", "")))).toMatchObject({ _tag: "InvalidInput" })
    }))

  it.effect("pastes a buffer (checked through a private one when bracketed), deletes it after when asked", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => pasteBuffer(socket, "notes", "%0", { bracketed: false, deleteAfter: false }))).toMatchObject({
        deleted: false
      })
      expect(paneOf(w, "%0").input).toBe("line one\rline two\r")
      yield* fake.run((socket) => pasteBuffer(socket, "notes", "%1", { bracketed: true, deleteAfter: true }))
      expect(paneOf(w, "%1").input).toBe("\x1b[200~line one\rline two\r\x1b[201~")
      expect(serverOf(w).buffers.map((b) => b.name)).not.toContain("etm.notes")
      expect(yield* Effect.flip(fake.run((socket) => pasteBuffer(socket, "notes", "%0", { bracketed: false, deleteAfter: false }))))
        .toMatchObject({ _tag: "InvalidInput" })
      paneOf(w, "%0").dead = true
      expect(
        yield* Effect.flip(
          fake.run((socket) => pasteBuffer(socket, "paste.0123456789abcdef", "%0", { bracketed: false, deleteAfter: false }))
        )
      ).toMatchObject({ _tag: "Conflict", kind: "dead" })
    }))

  it.effect("asks for an unescaped paste as the server's version needs: no -S to 3.3a; -S tried, then without, where the version cannot be placed", () =>
    Effect.gen(function*() {
      const pasteFlags = (fake: ReturnType<typeof fakeOperations>) =>
        fake.state.invocations.flatMap((i) => i.commands.filter((c) => c[0] === "paste-buffer").map((c) => c.includes("-S")))
      const w = world()
      const fake = fakeOperations(w)
      yield* fake.run((socket) => pasteText(socket, "%1", { text: "\x1b[31mred", bracketed: true, enter: false }))
      yield* fake.run((socket) => pasteBuffer(socket, "notes", "%0", { bracketed: false, deleteAfter: false }))
      expect(pasteFlags(fake)).toEqual([false, false])
      // A build that names no release (FakeTmux refuses -S as 3.3a does): one refused try, nothing run by it, then the paste.
      const master = world()
      serverOf(master).version = "master"
      const probing = fakeOperations(master)
      yield* probing.run((socket) => pasteText(socket, "%1", { text: "\x1b[31mred", bracketed: true, enter: false }))
      yield* probing.run((socket) => pasteBuffer(socket, "notes", "%0", { bracketed: false, deleteAfter: false }))
      expect(pasteFlags(probing)).toEqual([true, false, true, false])
      expect(paneOf(master, "%1").input).toBe("\x1b[200~\x1b[31mred\x1b[201~")
      expect(paneOf(master, "%0").input).toBe("line one\rline two\r")
      expect(serverOf(master).buffers.map((b) => b.name).sort()).toEqual(["buffer0001", "etm.notes", "etm.paste.0123456789abcdef"])
      // No delete-buffer was needed: the refused list loaded nothing.
      expect(probing.state.invocations.flatMap((i) => i.commands.map((c) => c[0]))).not.toContain("delete-buffer")
    }))

  it.effect("deletes ours by name, a missing one being no error, and never another program's", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => deleteBuffer(socket, "notes"))).toEqual({ name: "notes", deleted: true })
      expect(yield* fake.run((socket) => deleteBuffer(socket, "notes"))).toEqual({ name: "notes", deleted: false })
      // "buffer0001" as our name means etm.buffer0001: the person's buffer stays.
      expect(yield* fake.run((socket) => deleteBuffer(socket, "buffer0001"))).toEqual({ name: "buffer0001", deleted: false })
      expect(serverOf(w).buffers.map((b) => b.name)).toContain("buffer0001")
    }))
})
