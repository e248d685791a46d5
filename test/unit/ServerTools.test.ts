import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { allTools } from "../../src/tools/registry.js"
import { visibleTools } from "../../src/tools/Tool.js"
import { call, callerEnv, fakeLayer, fakeState, socketPathFor } from "../support/fakeWorld.js"
import { errorMeta, okResult } from "../support/runTool.js"

const DEFAULT = socketPathFor()
const PID = 4242

/** One session with two windows: @0 (%0, %1) and @1 (%2); the caller will be %2. */
const world = (): FakeWorld =>
  new Map([[DEFAULT, FakeTmux.server({ pid: PID, sessions: [{ name: "main", windows: [{ panes: [{}, {}] }, { name: "agent" }] }] })]])

describe("where_am_i", () => {
  it.effect("outside tmux: no self, the default socket, and whether a server runs there", () =>
    Effect.gen(function*() {
      const dead = okResult(yield* call(fakeLayer(new Map()), "where_am_i"))
      expect(dead).toMatchObject({
        inside_tmux: false,
        caller_status: "outside_tmux",
        pane_id: null,
        window_id: null,
        session_id: null,
        caller_socket_path: null,
        effective_socket_name: "default",
        effective_socket_path: DEFAULT,
        socket_rule: "tmux default",
        targets_caller_server: null,
        server_running: false,
        server_pid: null,
        generation: null,
        live_server_count: 0,
        safety_level: "mutating",
        suppress_history: true,
        allow_server_start: false
      })
      // Said only when so: nothing on the socket is not an unresponsive server.
      expect(dead).not.toHaveProperty("server_unresponsive")
      expect(dead).not.toHaveProperty("unresponsive_server_count")
      const live = okResult(yield* call(fakeLayer(world()), "where_am_i"))
      expect(live).toMatchObject({
        inside_tmux: false,
        server_running: true,
        server_pid: PID,
        server_version: "3.3a",
        generation: `${PID}.1700000000`
      })
    }))

  it.effect("says the tool set and how many tools it enables (tools/list names them): the safety level's, narrowed by a set", () =>
    Effect.gen(function*() {
      const readonly = okResult(yield* call(fakeLayer(world(), { flags: { safety: "readonly" } }), "where_am_i"))
      // Every tool of the safety level: no set to name (said only when one narrows them).
      expect(readonly).toMatchObject({ tool_count: visibleTools(allTools, "readonly").length })
      expect(readonly).not.toHaveProperty("tool_set")
      expect(readonly).not.toHaveProperty("tools")
      const set = okResult(yield* call(fakeLayer(world(), { env: { LIBTMUX_MCP_TOOLS: "list_panes,where_am_i" } }), "where_am_i"))
      expect(set).toMatchObject({ tool_set: "LIBTMUX_MCP_TOOLS=list_panes,where_am_i", tool_count: 2 })
      const flagged = okResult(yield* call(fakeLayer(world(), { flags: { tools: "-layout", safety: "readonly" } }), "where_am_i"))
      expect(flagged.tool_set).toBe("--tools=-layout")
    }))

  it.effect("inside tmux: the caller's live pane, window and session, read from tmux", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world(), { env: callerEnv(DEFAULT, PID, "%2") })
      expect(okResult(yield* call(layer, "where_am_i"))).toMatchObject({
        inside_tmux: true,
        caller_status: "live",
        pane_id: "%2",
        window_id: "@1",
        session_id: "$0",
        caller_source: "environment",
        effective_socket_path: DEFAULT,
        socket_rule: "caller ($TMUX)",
        targets_caller_server: true,
        server_running: true,
        server_pid: PID
      })
      // The caller's socket is the effective one: its path is said once.
      expect(okResult(yield* call(layer, "where_am_i"))).not.toHaveProperty("caller_socket_path")
    }))

  it.effect("inside tmux: says when the tools query another server than the caller's", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world(), { env: { ...callerEnv(DEFAULT, PID, "%2"), LIBTMUX_SOCKET: "other" } })
      expect(okResult(yield* call(layer, "where_am_i"))).toMatchObject({
        caller_status: "live",
        caller_socket_path: DEFAULT,
        effective_socket_name: "other",
        effective_socket_path: socketPathFor("other"),
        socket_rule: "LIBTMUX_SOCKET",
        targets_caller_server: false,
        server_running: false
      })
    }))

  it.effect("inside tmux: stale callers are reported, not trusted", () =>
    Effect.gen(function*() {
      const restarted = okResult(yield* call(fakeLayer(world(), { env: callerEnv(DEFAULT, PID + 1, "%2") }), "where_am_i"))
      expect(restarted).toMatchObject({ caller_status: "server_gone", pane_id: null, window_id: null, targets_caller_server: false })
      const paneGone = okResult(yield* call(fakeLayer(world(), { env: callerEnv(DEFAULT, PID, "%7") }), "where_am_i"))
      expect(paneGone).toMatchObject({ caller_status: "pane_gone", pane_id: null, session_id: null, targets_caller_server: true })
      const serverGone = okResult(yield* call(fakeLayer(new Map(), { env: callerEnv(DEFAULT, PID, "%2") }), "where_am_i"))
      expect(serverGone).toMatchObject({ inside_tmux: true, caller_status: "server_gone", server_running: false })
      const uncertain = okResult(yield* call(fakeLayer(world(), { env: { TMUX_PANE: "%2" } }), "where_am_i"))
      expect(uncertain).toMatchObject({ inside_tmux: false, caller_status: "uncertain", pane_id: null })
    }))

  it.effect("follows a moved pane: window and session come from tmux, not from $TMUX", () =>
    Effect.gen(function*() {
      const w = world()
      const server = w.get(DEFAULT)!
      // Move the caller's window into a new session, as `move-window` would.
      server.sessions.push({ id: "$5", name: "moved", created: 1, winlinks: server.sessions[0]!.winlinks.splice(1, 1), current: 1 })
      const found = okResult(yield* call(fakeLayer(w, { env: callerEnv(DEFAULT, PID, "%2") }), "where_am_i"))
      expect(found).toMatchObject({ caller_status: "live", window_id: "@1", session_id: "$5" })
    }))
})

describe("get_server_info", () => {
  it.effect("reports a dead server as is_alive false, not as an error", () =>
    Effect.gen(function*() {
      expect(okResult(yield* call(fakeLayer(new Map()), "get_server_info"))).toEqual({
        is_alive: false,
        socket_name: "default",
        socket_path: DEFAULT,
        socket_rule: "tmux default",
        pid: null,
        version: null,
        start_time: null,
        generation: null,
        session_count: 0,
        window_count: 0,
        pane_count: 0,
        is_caller_server: null
      })
    }))

  it.effect("counts sessions, windows and panes, a linked window once", () =>
    Effect.gen(function*() {
      const server = FakeTmux.server({
        pid: 77,
        sessions: [
          { name: "a", windows: [{ panes: [{}, {}] }] },
          { name: "b", windows: [{}, { link: "@0", index: 3 }] }
        ]
      })
      const info = okResult(yield* call(fakeLayer(new Map([[socketPathFor("x"), server]])), "get_server_info", { socket_name: "x" }))
      expect(info).toMatchObject({
        is_alive: true,
        socket_name: "x",
        pid: 77,
        version: "3.3a",
        session_count: 2,
        window_count: 2,
        pane_count: 3
      })
    }))

  it.effect("reports a live sessionless server with zero counts", () =>
    Effect.gen(function*() {
      const info = okResult(yield* call(fakeLayer(new Map([[DEFAULT, FakeTmux.server({ sessions: [] })]])), "get_server_info"))
      expect(info).toMatchObject({ is_alive: true, session_count: 0, window_count: 0, pane_count: 0 })
    }))

  it.effect("knows the caller's server inside tmux", () =>
    Effect.gen(function*() {
      expect(okResult(yield* call(fakeLayer(world(), { env: callerEnv(DEFAULT, PID, "%2") }), "get_server_info")).is_caller_server).toBe(
        true
      )
      const elsewhere = fakeLayer(new Map([...world(), [socketPathFor("x"), FakeTmux.server({ pid: 9, sessions: [{ name: "s" }] })]]), {
        env: callerEnv(DEFAULT, PID, "%2")
      })
      expect(okResult(yield* call(elsewhere, "get_server_info", { socket_name: "x" })).is_caller_server).toBe(false)
    }))
})

describe("start_server", () => {
  it.effect("starts a sessionless server that stays up, then reports started false", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(new Map())
      const first = okResult(yield* call(layer, "start_server"))
      expect(first).toMatchObject({ started: true, socket_name: "default", socket_path: DEFAULT, version: "3.3a" })
      const state = yield* fakeState(layer)
      expect(state.world.get(DEFAULT)?.pid).toBe(first.pid)
      const started = state.invocations.filter((invocation) => invocation.startServer)
      expect(started).toHaveLength(1)
      expect(started[0]!.commands).toContainEqual(["set-option", "-g", "exit-empty", "off"])
      const second = okResult(yield* call(layer, "start_server"))
      expect(second).toMatchObject({ started: false, pid: first.pid, generation: first.generation })
      expect(okResult(yield* call(layer, "get_server_info"))).toMatchObject({ is_alive: true, session_count: 0 })
    }))
})

describe("kill_server", () => {
  const destructive = { flags: { safety: "destructive" } } as const

  it.effect("kills a server that is not the caller's", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world(), destructive)
      expect(okResult(yield* call(layer, "kill_server"))).toEqual({
        killed: true,
        socket_name: "default",
        socket_path: DEFAULT,
        pid: PID,
        generation: `${PID}.1700000000`
      })
      expect((yield* fakeState(layer)).world.size).toBe(0)
      expect(okResult(yield* call(layer, "get_server_info")).is_alive).toBe(false)
      expect(errorMeta(yield* call(layer, "kill_server")).code).toBe("no_server")
    }))

  it.effect("refuses to kill the caller's own server, even when only the socket or only the pid matches", () =>
    Effect.gen(function*() {
      for (const env of [callerEnv(DEFAULT, PID, "%2"), callerEnv(DEFAULT, PID + 1, "%2"), callerEnv("/elsewhere/sock", PID, "%2")]) {
        const layer = fakeLayer(world(), { ...destructive, env: { ...env, LIBTMUX_SOCKET_PATH: DEFAULT } })
        const meta = errorMeta(yield* call(layer, "kill_server"))
        expect(meta).toMatchObject({ code: "denied", effects: "none" })
        expect(meta.text).toContain("Refusing to kill")
        expect((yield* fakeState(layer)).world.has(DEFAULT)).toBe(true)
        expect((yield* fakeState(layer)).invocations.flatMap((i) => i.commands.map((c) => c[0]))).not.toContain("kill-server")
      }
    }))
})

describe("list_servers", () => {
  let base: string
  let dir: string
  const listeners: Array<Server> = []
  const listen = (path: string) =>
    new Promise<void>((resolve, reject) => {
      const server = createServer()
      server.once("error", reject)
      server.listen(path, () => resolve())
      listeners.push(server)
    })

  beforeAll(async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), "etm-unit-")))
    dir = join(base, `tmux-4242`)
    mkdirSync(dir)
    // alpha and beta answer; stale is a socket file whose server is gone; notes is no socket.
    await Promise.all([listen(join(dir, "alpha")), listen(join(dir, "beta")), listen(join(dir, "stale")), listen(join(base, "extra.sock"))])
    writeFileSync(join(dir, "notes"), "")
  })
  afterAll(async () => {
    await Promise.all(listeners.map((server) => new Promise((resolve) => server.close(resolve))))
    rmSync(base, { recursive: true, force: true })
  })

  const worldOnDisk = (): FakeWorld =>
    new Map([
      [join(dir, "beta"), FakeTmux.server({ pid: 2, sessions: [{ name: "x" }] })],
      [join(dir, "alpha"), FakeTmux.server({ pid: 1, sessions: [{ name: "a" }, { name: "b" }] })],
      [join(base, "extra.sock"), FakeTmux.server({ pid: 3, sessions: [] })],
      // A server nobody can find: no socket file in the directory.
      [join(dir, "ghost"), FakeTmux.server({ pid: 4, sessions: [{ name: "g" }] })]
    ])

  it.effect("lists the live servers among the socket files, skipping stale sockets and other files", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(worldOnDisk(), { tmpdir: base })
      const page = okResult(yield* call(layer, "list_servers"))
      expect(page).toMatchObject({ total: 2, offset: 0, truncated: false })
      expect(page.items).toEqual([
        { socket_name: "alpha", socket_path: join(dir, "alpha"), pid: 1, version: "3.3a", generation: "1.1700000000", session_count: 2 },
        { socket_name: "beta", socket_path: join(dir, "beta"), pid: 2, version: "3.3a", generation: "2.1700000000", session_count: 1 }
      ])
      // Sorted by path: the extra socket sits above the socket directory.
      const withExtra = okResult(yield* call(layer, "list_servers", { extra_socket_paths: [join(base, "extra.sock")], limit: 1 }))
      expect(withExtra).toMatchObject({ total: 3, limit: 1, truncated: true })
      expect(withExtra.items).toEqual([
        expect.objectContaining({ socket_name: null, socket_path: join(base, "extra.sock"), session_count: 0 })
      ])
    }))

  it.effect("feeds where_am_i's live_server_count", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(worldOnDisk(), { tmpdir: base, env: { LIBTMUX_SOCKET: "alpha" } })
      expect(okResult(yield* call(layer, "where_am_i"))).toMatchObject({ live_server_count: 2, server_running: true, server_pid: 1 })
    }))
})
