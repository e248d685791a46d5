/**
 * operations/lifecycle over FakeTmux: new sessions (named, sized, started where and how asked,
 * owned, starting a server only when allowed), windows, splits and respawns read back from the
 * same command list, and kills that say what went with the object, with their refusals.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { createSession, createWindow, respawnPane, splitWindow } from "../../src/operations/lifecycle/Create.js"
import { killPane, killSession, killWindow } from "../../src/operations/lifecycle/Teardown.js"
import { OWNER_OPTION } from "../../src/services/Ownership.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { callerEnv, fakeOperations, socketPathFor } from "../support/fakeWorld.js"

const DEFAULT = socketPathFor()
const PID = 100
const GENERATION = `${PID}.1700000000`
const DIRECTORY = mkdtempSync(join(tmpdir(), "etm-lifecycle-"))
afterAll(() => rmSync(DIRECTORY, { recursive: true, force: true }))

/** $0 main: @0 (%0 in /work, %1), @1 (%2); $1 side: @2 (%3) and @1 linked at index 1. */
const world = (): FakeWorld =>
  new Map([
    [
      DEFAULT,
      FakeTmux.server({
        pid: PID,
        sessions: [
          { name: "main", windows: [{ name: "edit", panes: [{ cwd: "/work" }, {}] }, { name: "logs" }] },
          { name: "side", windows: [{ name: "other" }, { link: "@1", index: 1 }] }
        ]
      })
    ]
  ])

const serverOf = (w: FakeWorld) => w.get(DEFAULT)!

describe("createSession", () => {
  it.effect("makes a named, sized session where and with what it was asked, in one round trip", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      const created = yield* fake.run((socket) =>
        createSession(socket, {
          sessionName: "build",
          windowName: "make",
          width: 120,
          height: 40,
          startDirectory: DIRECTORY,
          environment: { ETM_FLAVOUR: "x" },
          suppressHistory: true,
          command: ["make", "-j4"]
        })
      )
      expect(created).toMatchObject({
        session: {
          session_id: "$2",
          session_name: "build",
          window_count: 1,
          session_attached: 0,
          active_window_id: "@3",
          active_pane_id: "%4"
        },
        server: { pid: PID, generation: GENERATION },
        serverStarted: false,
        owned: false
      })
      expect(fake.state.invocations).toHaveLength(1)
      const session = serverOf(w).sessions.find((s) => s.name === "build")!
      expect(session.environment?.get("ETM_FLAVOUR")).toBe("x")
      const { window, pane } = FakeTmux.pane(serverOf(w), "%4")!
      expect({ name: window.name, width: window.width, height: window.height }).toEqual({ name: "make", width: 120, height: 40 })
      expect(pane).toMatchObject({ command: "make", startCommand: ["make", "-j4"], cwd: DIRECTORY })
      expect(pane.environment).toMatchObject({ ETM_FLAVOUR: "x", HISTFILE: "" })
    }))

  it.effect("refuses a name tmux would store differently, or one in use, and sends nothing for the first", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* Effect.flip(fake.run((socket) => createSession(socket, { sessionName: "a.b" })))).toMatchObject({
        _tag: "InvalidInput"
      })
      expect(fake.state.invocations).toEqual([])
      const taken = yield* Effect.flip(fake.run((socket) => createSession(socket, { sessionName: "main" })))
      expect(taken).toMatchObject({ _tag: "InvalidInput" })
      expect(taken.message).toContain("duplicate session: main")
      expect(serverOf(w).sessions).toHaveLength(2)
    }))

  it.effect("on a dead socket fails with NoServer unless allowed, and then says it started the server", () =>
    Effect.gen(function*() {
      const w: FakeWorld = new Map()
      const fake = fakeOperations(w)
      expect(yield* Effect.flip(fake.run((socket) => createSession(socket, { sessionName: "x" })))).toMatchObject({ _tag: "NoServer" })
      expect(w.size).toBe(0)
      const started = yield* fake.run((socket) => createSession(socket, { sessionName: "x", allowServerStart: true }))
      expect(started).toMatchObject({ serverStarted: true, session: { session_id: "$0", session_name: "x" } })
      expect(serverOf(w).pid).toBe(started.server.pid)
      // The server runs now: a second call finds it and starts nothing.
      expect((yield* fake.run((socket) => createSession(socket, { sessionName: "y", allowServerStart: true }))).serverStarted).toBe(false)
    }))

  it.effect("refuses to start a server on a path that holds a file (tmux would delete it)", () =>
    Effect.gen(function*() {
      const file = join(DIRECTORY, "not-a-socket")
      writeFileSync(file, "keep me")
      const fake = fakeOperations(new Map(), { flags: { socketPath: file } })
      expect(yield* Effect.flip(fake.run((socket) => createSession(socket, { allowServerStart: true })))).toMatchObject({
        _tag: "InvalidInput"
      })
      // The probe ran; nothing that could start a server did.
      expect(fake.state.invocations.filter((invocation) => invocation.startServer)).toEqual([])
    }))

  it.effect("an owned session carries this process's mark and is killed when the services close", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      let token: string | undefined
      yield* fake.run((socket) =>
        Effect.tap(createSession(socket, { sessionName: "mine", owned: true }), () =>
          Effect.sync(() => {
            token = serverOf(w).sessions.find((s) => s.name === "mine")!.options?.get(OWNER_OPTION)
          }))
      )
      expect(token).toMatch(/^\d+-[0-9a-f]{12}$/)
      // The services' scope closed after the call: the owned session went, the others stay.
      expect(serverOf(w).sessions.map((s) => s.name)).toEqual(["main", "side"])
    }))
})

describe("createWindow / splitWindow / respawnPane", () => {
  it.effect("adds a window at the next free index, detached, and reads it and its pane back", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      const { window, pane } = yield* fake.run((socket) => createWindow(socket, "$0", { windowName: "tests", command: ["npm", "test"] }))
      expect(window).toMatchObject({
        window_id: "@3",
        window_name: "tests",
        window_index: 2,
        session_id: "$0",
        active: false,
        pane_count: 1
      })
      expect(pane).toMatchObject({ pane_id: "%4", command: "npm", placements: [{ session_id: "$0", window_index: 2 }] })
      expect(serverOf(w).sessions[0]!.current).toBe(0)
      const shown = yield* fake.run((socket) => createWindow(socket, "$0", { windowIndex: 7, detached: false }))
      expect(shown.window).toMatchObject({ window_index: 7, active: true, window_name: "bash" })
    }))

  it.effect("refuses a taken index, a missing session and a stale generation", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      expect(yield* Effect.flip(fake.run((socket) => createWindow(socket, "$0", { windowIndex: 1 })))).toMatchObject({
        _tag: "InvalidInput"
      })
      expect(yield* Effect.flip(fake.run((socket) => createWindow(socket, "$9", {})))).toMatchObject({
        _tag: "NotFound",
        kind: "session",
        target: "$9"
      })
      const before = fake.state.invocations.length
      expect(yield* Effect.flip(fake.run((socket) => createWindow(socket, "$0", { generation: "1.2" })))).toMatchObject({
        _tag: "NotFound",
        kind: "server"
      })
      // Only the probe ran.
      expect(fake.sentSince(before).map((commands) => commands.map((c) => c[0]))).toEqual([["display-message"]])
      yield* fake.run((socket) => createWindow(socket, "$0", { generation: GENERATION }))
    }))

  it.effect("splits a pane in the direction and size asked, starting in that pane's directory", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      const below = yield* fake.run((socket) => splitWindow(socket, "%0", {}))
      expect(below.pane).toMatchObject({ pane_id: "%4", window_id: "@0", cwd: "/work", active: false })
      const { window } = FakeTmux.pane(serverOf(w), "%0")!
      expect(window.panes.map((p) => p.id)).toEqual(["%0", "%4", "%1"])
      const left = yield* fake.run((socket) =>
        splitWindow(socket, "%2", { direction: "left", size: 20, detached: false, startDirectory: DIRECTORY })
      )
      expect(left.pane).toMatchObject({ width: 20, left: 0, active: true, cwd: DIRECTORY })
      expect(FakeTmux.pane(serverOf(w), "%2")!.pane).toMatchObject({ left: 21, width: 59 })
      const percent = yield* fake.run((socket) => splitWindow(socket, "%3", { direction: "below", size: "25%" }))
      expect(percent.pane).toMatchObject({ height: 6, top: 18 })
      expect(yield* Effect.flip(fake.run((socket) => splitWindow(socket, "%9", {})))).toMatchObject({
        _tag: "NotFound",
        kind: "pane",
        target: "%9"
      })
    }))

  it.effect("respawns a pane's process (killing it by default), refusing a live one without kill and the caller's own", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w, { env: callerEnv(DEFAULT, PID, "%1") })
      const before = FakeTmux.pane(serverOf(w), "%2")!.pane.pid
      const respawned = yield* fake.run((socket) => respawnPane(socket, "%2", { command: ["htop"] }))
      expect(respawned.pane).toMatchObject({ pane_id: "%2", command: "htop", dead: false })
      expect(respawned.pane.pid).not.toBe(before)
      const live = yield* Effect.flip(fake.run((socket) => respawnPane(socket, "%2", { kill: false })))
      expect(live).toMatchObject({ _tag: "InvalidInput" })
      FakeTmux.pane(serverOf(w), "%2")!.pane.dead = true
      expect((yield* fake.run((socket) => respawnPane(socket, "%2", { kill: false }))).pane.dead).toBe(false)
      const sent = fake.state.invocations.length
      expect(yield* Effect.flip(fake.run((socket) => respawnPane(socket, "%1", {})))).toMatchObject({ _tag: "Denied", kind: "self" })
      expect(fake.state.invocations).toHaveLength(sent)
    }))
})

describe("killSession / killWindow / killPane", () => {
  it.effect("a session takes its own windows, keeps the linked one, and the server stays while sessions remain", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      const teardown = yield* fake.run((socket) => killSession(socket, "$0"))
      expect(teardown).toMatchObject({
        killed: "session",
        id: "$0",
        name: "main",
        sessions_closed: [{ session_id: "$0", session_name: "main" }],
        windows_closed: [{ window_id: "@0", window_name: "edit" }],
        pane_ids_closed: ["%0", "%1"],
        windows_kept: [{ window_id: "@1", window_name: "logs" }],
        sessions_remaining: 1,
        server_exited: false,
        generation: GENERATION
      })
      expect(fake.state.invocations).toHaveLength(1)
      expect(serverOf(w).sessions.map((s) => s.id)).toEqual(["$1"])
      expect([...serverOf(w).windows.keys()]).toEqual(["@1", "@2"])
    }))

  it.effect("a window goes from every session holding it; a last pane takes its window; the last session the server", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => killWindow(socket, "@1"))).toMatchObject({
        windows_closed: [{ window_id: "@1" }],
        pane_ids_closed: ["%2"],
        sessions_closed: []
      })
      expect(yield* fake.run((socket) => killPane(socket, "%1"))).toMatchObject({ pane_ids_closed: ["%1"], windows_closed: [], name: null })
      expect(yield* fake.run((socket) => killPane(socket, "%3"))).toMatchObject({
        windows_closed: [{ window_id: "@2", window_name: "other" }],
        sessions_closed: [{ session_id: "$1", session_name: "side" }],
        sessions_remaining: 1,
        server_exited: false
      })
      expect(yield* fake.run((socket) => killSession(socket, "$0"))).toMatchObject({ sessions_remaining: 0, server_exited: true })
      expect(w.size).toBe(0)
    }))

  it.effect("refuses what holds the caller's pane, a stale generation, and a missing object", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w, { env: callerEnv(DEFAULT, PID, "%2") })
      // %2's window @1 is linked into side too: neither session may be killed from inside.
      expect(yield* Effect.flip(fake.run((socket) => killSession(socket, "$1")))).toMatchObject({ _tag: "Denied", kind: "self" })
      expect(yield* Effect.flip(fake.run((socket) => killWindow(socket, "@1")))).toMatchObject({ _tag: "Denied", kind: "self" })
      expect(yield* Effect.flip(fake.run((socket) => killPane(socket, "%2")))).toMatchObject({ _tag: "Denied", kind: "self" })
      expect(yield* Effect.flip(fake.run((socket) => killPane(socket, "%0", { generation: "1.2" })))).toMatchObject({
        _tag: "NotFound",
        kind: "server"
      })
      expect(yield* Effect.flip(fake.run((socket) => killWindow(socket, "@9")))).toMatchObject({
        _tag: "NotFound",
        kind: "window",
        target: "@9"
      })
      expect(serverOf(w).sessions).toHaveLength(2)
      expect(serverOf(w).windows.size).toBe(3)
    }))
})
