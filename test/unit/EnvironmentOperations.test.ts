/**
 * operations/environment over FakeTmux: set, unset (-u) and remove (-r) globally or in a session
 * named by id, name or pane, and show a scope whole, by name or within a byte budget, reading
 * tmux's `show-environment -s` whatever the values hold.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { setEnvironment, showEnvironment, unsetEnvironment } from "../../src/operations/environment/Environment.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { fakeOperations, socketPathFor } from "../support/fakeWorld.js"

const DEFAULT = socketPathFor()

/** $0 work (%0, %1) with a client named "ghost"; $1 play (%2). */
const world = (): FakeWorld =>
  new Map([
    [
      DEFAULT,
      FakeTmux.server({
        environment: { PATH: "/usr/bin", HOME: "/home/fake", GONE: null },
        sessions: [
          { name: "work", windows: [{ panes: [{}, {}] }], environment: { EDITOR: "vim" } },
          { name: "play", windows: [{}] }
        ],
        clients: [{ session: "work", name: "ghost" }]
      })
    ]
  ])

const serverOf = (w: FakeWorld) => w.get(DEFAULT)!
const sessionEnv = (w: FakeWorld, id: string) => serverOf(w).sessions.find((s) => s.id === id)!.environment!

describe("setEnvironment / unsetEnvironment", () => {
  it.effect("sets a variable globally, or in a session by id, by pane and by name", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => setEnvironment(socket, { global: true }, "ETM_A", "-n\nline"))).toEqual({
        name: "ETM_A",
        status: "set",
        scope: "global",
        session_id: null,
        value_length: 7
      })
      expect(serverOf(w).environment.get("ETM_A")).toBe("-n\nline")
      expect(yield* fake.run((socket) => setEnvironment(socket, { session_id: "$1" }, "ETM_B", "1"))).toMatchObject({
        scope: "session",
        session_id: "$1"
      })
      expect(yield* fake.run((socket) => setEnvironment(socket, { pane_id: "%1" }, "ETM_C", "2"))).toMatchObject({ session_id: "$0" })
      const before = fake.state.invocations.length
      expect(yield* fake.run((socket) => setEnvironment(socket, { session_name: "play" }, "ETM_D", "3"))).toMatchObject({
        session_id: "$1"
      })
      // A name is looked up first, on its own: `-t =name` could change a client's session instead.
      expect(fake.state.invocations.length - before).toBe(2)
      expect(Object.fromEntries(sessionEnv(w, "$1"))).toMatchObject({ ETM_B: "1", ETM_D: "3" })
      expect(sessionEnv(w, "$0").get("ETM_C")).toBe("2")
    }))

  it.effect("unsets an entry, or removes the variable for the scope's new processes", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => unsetEnvironment(socket, { session_id: "$0" }, "EDITOR", "unset"))).toEqual({
        name: "EDITOR",
        scope: "session",
        session_id: "$0",
        mode: "unset"
      })
      expect(sessionEnv(w, "$0").has("EDITOR")).toBe(false)
      yield* fake.run((socket) => unsetEnvironment(socket, { global: true }, "HOME", "removed"))
      expect(serverOf(w).environment.get("HOME")).toBeNull()
    }))

  it.effect("refuses bad names and values before sending anything, and a missing session", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      for (const [name, value] of [["1BAD", "x"], ["A=B", "x"], ["__proto__", "x"], ["OK", "nul\0"], ["OK", "x".repeat(12_289)]] as const) {
        expect(yield* Effect.flip(fake.run((socket) => setEnvironment(socket, { global: true }, name, value)))).toMatchObject({
          _tag: "InvalidInput"
        })
      }
      expect(fake.state.invocations).toEqual([])
      expect(yield* Effect.flip(fake.run((socket) => setEnvironment(socket, { session_id: "$9" }, "A", "b")))).toMatchObject({
        _tag: "NotFound",
        kind: "session",
        target: "$9"
      })
      expect(yield* Effect.flip(fake.run((socket) => setEnvironment(socket, { pane_id: "%9" }, "A", "b")))).toMatchObject({
        _tag: "NotFound",
        kind: "pane",
        target: "%9"
      })
      expect(yield* Effect.flip(fake.run((socket) => unsetEnvironment(socket, { session_name: "nope" }, "A", "unset")))).toMatchObject({
        _tag: "NotFound",
        kind: "session"
      })
    }))
})

describe("showEnvironment", () => {
  it.effect("reads the global scope whole, values with quotes and newlines exactly, removed names apart", () =>
    Effect.gen(function*() {
      const w = world()
      serverOf(w).environment.set("ODD", "a \"b\" $c `d` \\e\nf")
      const listing = yield* fakeOperations(w).run((socket) => showEnvironment(socket, { global: true }))
      expect(listing).toMatchObject({
        scope: "global",
        session_id: null,
        variables: { HOME: "/home/fake", ODD: "a \"b\" $c `d` \\e\nf", PATH: "/usr/bin" },
        removed: ["GONE"],
        total: 4,
        returned: 4,
        truncated: false
      })
    }))

  it.effect("reads a session by id, by name in one round trip, or by pane, and one variable by name", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      expect(yield* fake.run((socket) => showEnvironment(socket, { session_id: "$0" }))).toMatchObject({
        session_id: "$0",
        variables: { EDITOR: "vim" }
      })
      const before = fake.state.invocations.length
      expect(yield* fake.run((socket) => showEnvironment(socket, { session_name: "work" }))).toMatchObject({
        session_id: "$0",
        variables: { EDITOR: "vim" }
      })
      expect(fake.state.invocations.length - before).toBe(1)
      expect(yield* fake.run((socket) => showEnvironment(socket, { pane_id: "%2" }))).toMatchObject({ session_id: "$1", variables: {} })
      expect(yield* fake.run((socket) => showEnvironment(socket, { global: true }, { name: "PATH" }))).toMatchObject({
        variables: { PATH: "/usr/bin" },
        total: 1
      })
      // A name that is not set is an empty listing, not an error.
      expect(yield* fake.run((socket) => showEnvironment(socket, { session_id: "$0" }, { name: "NOPE" }))).toMatchObject({
        variables: {},
        total: 0
      })
    }))

  it.effect("a session name that is only a client's name is NotFound, not that client's session", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      expect(yield* Effect.flip(fake.run((socket) => showEnvironment(socket, { session_name: "ghost" })))).toMatchObject({
        _tag: "NotFound",
        kind: "session",
        target: "ghost"
      })
      expect(yield* Effect.flip(fake.run((socket) => showEnvironment(socket, { session_id: "$9" })))).toMatchObject({
        _tag: "NotFound",
        kind: "session",
        target: "$9"
      })
    }))

  it.effect("keeps within max_bytes, naming what it left out", () =>
    Effect.gen(function*() {
      const listing = yield* fakeOperations(world()).run((socket) => showEnvironment(socket, { global: true }, { maxBytes: 14 }))
      expect(listing).toMatchObject({
        variables: { HOME: "/home/fake" },
        truncated: true,
        omitted_names: ["PATH", "GONE"],
        returned: 1,
        total: 3
      })
    }))
})
