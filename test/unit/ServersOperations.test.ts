/**
 * operations/servers over FakeTmux: probing (never starting a server), counting, starting one that
 * stays up without sessions, killing one (never the caller's), the generation check, discovering
 * the servers behind socket files, and where the caller is.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ensureGeneration } from "../../src/operations/servers/Servers.js"
import { killServer, listServers, probeServer, serverInfo, startServer } from "../../src/operations/servers/Servers.js"
import { whereAmI } from "../../src/operations/servers/WhereAmI.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { callerEnv, fakeOperations, socketPathFor, UID } from "../support/fakeWorld.js"

const DEFAULT = socketPathFor()
const PID = 100
const GENERATION = `${PID}.1700000000`

/** $0 a: @0 (%0, %1); $1 b: @1 (%2) and @0 linked. */
const world = (): FakeWorld =>
  new Map([
    [
      DEFAULT,
      FakeTmux.server({
        pid: PID,
        sessions: [{ name: "a", windows: [{ panes: [{}, {}] }] }, { name: "b", windows: [{}, { link: "@0", index: 1 }] }]
      })
    ]
  ])

describe("probeServer / serverInfo / ensureGeneration", () => {
  it.effect("probes without ever starting a server, and counts a linked window's panes once", () =>
    Effect.gen(function*() {
      const dead = fakeOperations(new Map())
      expect(Option.isNone(yield* dead.run((socket) => probeServer(socket)))).toBe(true)
      expect(yield* dead.run((socket) => serverInfo(socket))).toMatchObject({ is_alive: false, pid: null, session_count: 0 })
      expect(dead.state.invocations.every((i) => !i.startServer)).toBe(true)
      const live = fakeOperations(world())
      expect(Option.getOrThrow(yield* live.run((socket) => probeServer(socket)))).toMatchObject({ pid: PID, generation: GENERATION })
      expect(yield* live.run((socket) => serverInfo(socket))).toMatchObject({
        is_alive: true,
        pid: PID,
        session_count: 2,
        window_count: 2,
        pane_count: 3,
        is_caller_server: null
      })
    }))

  it.effect("passes the generation it sees, refuses another one, and a dead server", () =>
    Effect.gen(function*() {
      yield* fakeOperations(world()).run((socket) => ensureGeneration(socket, GENERATION))
      yield* fakeOperations(world()).run((socket) => ensureGeneration(socket, undefined))
      expect(yield* Effect.flip(fakeOperations(world()).run((socket) => ensureGeneration(socket, "1.2")))).toMatchObject({
        _tag: "NotFound",
        kind: "server",
        target: "1.2"
      })
      expect(yield* Effect.flip(fakeOperations(new Map()).run((socket) => ensureGeneration(socket, GENERATION)))).toMatchObject({
        _tag: "NoServer"
      })
    }))
})

describe("startServer / killServer", () => {
  it.effect("starts a server that stays up without sessions, and says when one was already running", () =>
    Effect.gen(function*() {
      const w: FakeWorld = new Map()
      const fake = fakeOperations(w)
      const started = yield* fake.run((socket) => startServer(socket))
      expect(started.started).toBe(true)
      expect(w.get(DEFAULT)).toMatchObject({ exitEmpty: false, sessions: [], pid: started.server.pid })
      expect(yield* fake.run((socket) => startServer(socket))).toEqual({ started: false, server: started.server })
    }))

  it.effect("kills a server, never the caller's own, and a dead one is NoServer", () =>
    Effect.gen(function*() {
      const w = world()
      const inside = fakeOperations(w, { env: callerEnv(DEFAULT, PID, "%0") })
      expect(yield* Effect.flip(inside.run((socket) => killServer(socket)))).toMatchObject({ _tag: "Denied", kind: "self" })
      expect(w.size).toBe(1)
      const outside = fakeOperations(w)
      expect(yield* outside.run((socket) => killServer(socket))).toMatchObject({ pid: PID })
      expect(w.size).toBe(0)
      expect(yield* Effect.flip(outside.run((socket) => killServer(socket)))).toMatchObject({ _tag: "NoServer" })
    }))
})

describe("listServers / whereAmI", () => {
  const TMPDIR = mkdtempSync(join(tmpdir(), "etm-servers-"))
  const directory = join(TMPDIR, `tmux-${UID}`)
  mkdirSync(directory)
  const listening: Array<Server> = []
  afterAll(() => {
    for (const server of listening) server.close()
    rmSync(TMPDIR, { recursive: true, force: true })
  })
  const socketFile = (name: string) =>
    Effect.callback<string>((resume) => {
      const path = join(directory, name)
      const server = createServer().listen(path, () => resume(Effect.succeed(path)))
      listening.push(server)
    })

  it.effect("asks every socket file once, counting live servers and skipping stale sockets and other files", () =>
    Effect.gen(function*() {
      const live = yield* socketFile("live")
      const stale = yield* socketFile("stale")
      writeFileSync(join(directory, "not-a-socket"), "")
      const w: FakeWorld = new Map([[live, FakeTmux.server({ pid: 7, sessions: [{ name: "s" }, { name: "t" }] })]])
      const fake = fakeOperations(w, { tmpdir: TMPDIR })
      expect(yield* fake.run(() => listServers())).toEqual([
        { socket_name: "live", socket_path: live, pid: 7, version: "3.3a", generation: "7.1700000000", session_count: 2 }
      ])
      expect(fake.state.invocations.map((i) => i.socketPath).sort()).toEqual([live, stale].sort())
    }))

  it.effect("says where the caller is, read from tmux, and when its pane or server is gone", () =>
    Effect.gen(function*() {
      const live = fakeOperations(world(), { env: callerEnv(DEFAULT, PID, "%2") })
      expect(yield* live.run(() => whereAmI())).toMatchObject({
        inside_tmux: true,
        caller_status: "live",
        pane_id: "%2",
        window_id: "@1",
        session_id: "$1",
        server_running: true,
        generation: GENERATION
      })
      const paneGone = fakeOperations(world(), { env: callerEnv(DEFAULT, PID, "%7") })
      expect(yield* paneGone.run(() => whereAmI())).toMatchObject({ caller_status: "pane_gone", pane_id: null })
      const restarted = fakeOperations(world(), { env: callerEnv(DEFAULT, PID + 1, "%2") })
      expect(yield* restarted.run(() => whereAmI())).toMatchObject({ caller_status: "server_gone", server_running: true })
    }))
})
