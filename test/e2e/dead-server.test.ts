/**
 * The "Done when" lines and seed 003 tests 1-6, through the built server over stdio:
 * a socket with no server is reported as such, never as an empty server or "not found", and
 * nothing but start_server brings a server into existence.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { pendingHandle } from "../support/pendingHandle.js"
import { errorOf, makeWorld, ok, serve, type Served, textOf, type World } from "./harness.js"

type Args = Record<string, unknown>

/** A handle of a command still running on the world's (dead) socket. */
const handleOn = (world: World) => pendingHandle(world.dir, world.socketPath, "1.1")

/** Arguments that reach tmux for every tool except start_server (kill_server needs destructive). */
const DEAD_SOCKET_CALLS: Record<string, ReadonlyArray<Args | ((world: World) => Args)>> = {
  where_am_i: [{}],
  list_servers: [{}],
  get_server_info: [{}],
  run_batch: [{ operations: [{ tool: "list_panes" }, { tool: "capture_pane", arguments: { pane_id: "%0" } }], stop_on_error: false }],
  kill_server: [{}],
  list_sessions: [{}, { where: { session_name: "main" } }],
  get_session_info: [{ session_id: "$0" }, { session_name: "main" }],
  list_windows: [{}, { session_id: "$0" }, { where: { window_name: "x", regex: true } }],
  get_window_info: [{ window_id: "@0" }],
  list_panes: [{}, { session_id: "$0" }, { window_id: "@0" }, { where: { command: "sh" } }, { where: { right_of: "%0" } }],
  get_pane_info: [{ pane_id: "%0" }, { pane_id: "%0", variables: ["pane_tty"] }],
  capture_pane: [{ pane_id: "%0" }, { pane_id: "%0", start: "-", end: "-" }],
  create_session: [{}, { session_name: "x", owned: true, command: ["sleep", "60"] }, { allow_server_start: false }],
  create_window: [{ session_id: "$0" }, { session_id: "$0", generation: "1.1" }],
  split_window: [{ pane_id: "%0" }, { pane_id: "%0", start_directory: "/" }],
  respawn_pane: [{ pane_id: "%0" }],
  kill_session: [{ session_id: "$0" }],
  kill_window: [{ window_id: "@0" }],
  kill_pane: [{ pane_id: "%0" }, { pane_id: "%0", generation: "1.1" }],
  send_keys: [{ pane_id: "%0", keys: "x" }, { pane_id: "%0", keys: "C-c", force: true }],
  set_environment: [{ global: true, name: "A", value: "b" }, { session_name: "main", name: "A", value: "b" }],
  unset_environment: [{ session_id: "$0", name: "A", remove: true }],
  show_environment: [{ global: true }, { session_id: "$0", name: "PATH" }],
  show_options: [{ scope: "server" }, { scope: "window", target: "@0", name: "mode-keys" }, { global: true, hooks: true }],
  set_option: [{ name: "mouse", value: "on", global: true }, { name: "mode-keys", unset: true, target: "@0", generation: "1.1" }],
  rename_session: [{ session_id: "$0", name: "x" }],
  rename_window: [{ window_id: "@0", name: "x" }],
  select_window: [{ window_id: "@0" }, { session_id: "$0", direction: "last" }],
  select_pane: [{ pane_id: "%0" }, { window_id: "@0", direction: "previous" }],
  select_layout: [{ window_id: "@0", layout: "even-vertical" }],
  resize_pane: [{ pane_id: "%0", width: 10 }, { pane_id: "%0", zoom: false }],
  resize_window: [{ window_id: "@0", height: 10 }],
  swap_pane: [{ source_pane_id: "%0", target_pane_id: "%1" }],
  move_window: [{ window_id: "@0", session_id: "$1", index: 3 }],
  set_pane_title: [{ pane_id: "%0", title: "x" }],
  run_command: [{ pane_id: "%0", command: "true" }],
  wait_for_command: [(world) => ({ handle: handleOn(world) })],
  snapshot_pane: [{ pane_id: "%0" }],
  capture_since: [{ pane_id: "%0" }],
  wait_for_text: [{ pane_id: "%0", patterns: null, timeout: 1 }],
  search_panes: [{ patterns: ["x"] }],
  send_keys_batch: [{ pane_id: "%0", operations: [{ keys: "x" }] }],
  paste_text: [{ pane_id: "%0", text: "x" }],
  clear_pane: [{ pane_id: "%0" }],
  list_buffers: [{}],
  load_buffer: [{ name: "b", text: "x" }],
  show_buffer: [{ name: "b" }],
  paste_buffer: [{ name: "b", pane_id: "%0" }],
  delete_buffer: [{ name: "b" }],
  wait_for_channel: [{ channel: "c", timeout: 1 }],
  signal_channel: [{ channel: "c" }]
}

/**
 * Tools whose answer about a dead server is data, not an error. wait_for_command's command died with
 * its server: outcome pane_died. run_batch reports each operation's own error (checked below).
 */
const ANSWERS_WITH_DATA = new Set(["where_am_i", "list_servers", "get_server_info", "run_batch", "wait_for_command"])

const expectNoServer = (result: Parameters<typeof errorOf>[0], world: World) => {
  const error = errorOf(result)
  expect(error.code).toBe("no_server")
  expect(error.text).toContain("No tmux server is running on socket")
  expect(error.text).toContain(world.socketName)
  expect(error.hint).toContain("list_servers")
  expect(error.hint).toContain("start_server")
  expect(error.text).not.toContain("list_panes")
  expect(error.hint).not.toContain("list_panes")
  expect(error.text).not.toMatch(/not found/i)
  expect(error.effects).toBe("none")
}

describe("a socket with no server (LIBTMUX_SOCKET set, nothing running)", () => {
  let world: World
  let server: Served

  beforeAll(async () => {
    world = makeWorld()
    server = await serve(world, { env: { LIBTMUX_SAFETY: "destructive" } })
  })
  afterAll(async () => {
    await server?.close()
    world?.dispose()
  })

  it("seed 003 test 2 (dead half): where_am_i says server_running false and live_server_count 0", async () => {
    const where = ok(await server.call("where_am_i"))
    expect(where.server_running).toBe(false)
    expect(where.live_server_count).toBe(0)
    expect(where.effective_socket_name).toBe(world.socketName)
    expect(where.effective_socket_path).toBe(world.socketPath)
    expect(where.socket_rule).toBe("LIBTMUX_SOCKET")
    expect(where.server_pid).toBeNull()
  })

  it("list_panes fails with no_server and a hint naming list_servers and start_server, never list_panes", async () => {
    expectNoServer(await server.call("list_panes"), world)
  })

  it("seed 003 test 5: capture_pane(pane_id=\"%0\") names \"no tmux server\", not \"Pane not found -> call list_panes\"", async () => {
    const result = await server.call("capture_pane", { pane_id: "%0" })
    expectNoServer(result, world)
    expect(textOf(result)).toMatch(/no tmux server/i)
  })

  it("get_server_info answers is_alive false with the real socket path, and list_servers an empty page", async () => {
    const info = ok(await server.call("get_server_info"))
    expect(info.is_alive).toBe(false)
    expect(info.socket_name).toBe(world.socketName)
    expect(info.socket_path).toBe(world.socketPath)
    expect(info.pid).toBeNull()
    const servers = ok(await server.call("list_servers"))
    expect(servers).toMatchObject({ items: [], total: 0, truncated: false })
  })

  it("seed 003 test 3 (with this issue's tools instead of create_session): no tool but start_server starts a server on a dead socket, and no socket file appears", async () => {
    const listed = server.tools.map((tool) => tool.name).filter((name) => name !== "start_server")
    // Every tool of the server is exercised: a new tool must be added to DEAD_SOCKET_CALLS.
    expect([...listed].sort()).toEqual(Object.keys(DEAD_SOCKET_CALLS).sort())
    for (const name of listed) {
      for (const entry of DEAD_SOCKET_CALLS[name]!) {
        const args = typeof entry === "function" ? entry(world) : entry
        const result = await server.call(name, args)
        if (ANSWERS_WITH_DATA.has(name)) expect(result.isError, `${name} ${JSON.stringify(args)}`).not.toBe(true)
        else expect(errorOf(result).code, `${name} ${JSON.stringify(args)}`).toBe("no_server")
        if (name === "run_batch") {
          expect(ok(result).results.map((operation: any) => operation.error?.code)).toEqual(["no_server", "no_server"])
        }
      }
    }
    expect(world.socketFiles()).toEqual([])
    expect(world.tmux(["-N", "list-sessions"]).status).not.toBe(0)
    expect(ok(await server.call("where_am_i")).server_running).toBe(false)
  })

  it("seed 003 test 6 (with this issue's tools instead of set_environment): a dead server is an expected tool error, never a JSON-RPC error, and stderr carries no defect or stack trace", async () => {
    for (const name of ["list_sessions", "get_session_info", "list_windows", "get_window_info", "get_pane_info", "kill_server"]) {
      const args = DEAD_SOCKET_CALLS[name]![0] as Args
      // A JSON-RPC error would reject this promise; an expected error is a normal result.
      const result = await server.call(name, args)
      expect(result.isError).toBe(true)
      expect(errorOf(result).code).toBe("no_server")
    }
    // Every answered call has its audit line by now, so anything written with them has arrived too.
    await server.audit()
    const stderr = server.stderr()
    expect(stderr).not.toMatch(/defect/i)
    expect(stderr).not.toMatch(/^\s+at /m)
    expect(stderr).not.toMatch(/Internal error/)
    expect(server.protocolErrors).toEqual([])
  })

  it("every resource template read, and a screen subscription, on the dead socket is a no_server error (the tools' message and hint), never a defect or a server start", async () => {
    const uris = ["tmux://sessions", "tmux://session/%240", "tmux://window/%400", "tmux://pane/%250", "tmux://pane/%250/screen"]
    const attempts = [
      ...uris.map((uri) => () => server.client.readResource({ uri })),
      () => server.client.subscribeResource({ uri: "tmux://pane/%250/screen" })
    ]
    for (const attempt of attempts) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e as { message: string; data?: { code?: string } }
      )
      expect(error?.data?.code).toBe("no_server")
      expect(error?.message).toMatch(/No tmux server is running on socket[\s\S]*Hint: Call list_servers/)
    }
    expect(server.stderr()).not.toMatch(/defect|^\s+at /m)
    expect(world.socketFiles()).toEqual([])
  })

  it("seed 003 test 4 (start_server instead of create_session(allow_server_start=true)): start_server on the dead socket reports started true; then where_am_i says server_running true", async () => {
    const started = ok(await server.call("start_server"))
    expect(started.started).toBe(true)
    expect(started.socket_name).toBe(world.socketName)
    expect(started.socket_path).toBe(world.socketPath)
    expect(started.pid).toBeGreaterThan(0)
    expect(world.socketFiles()).toEqual([world.socketName])

    const where = ok(await server.call("where_am_i"))
    expect(where.server_running).toBe(true)
    expect(where.server_pid).toBe(started.pid)
    expect(where.live_server_count).toBe(1)

    // The sessionless server stays up (exit-empty off), and a second start is a no-op.
    const again = ok(await server.call("start_server"))
    expect(again).toMatchObject({ started: false, pid: started.pid })
    expect(ok(await server.call("list_sessions"))).toMatchObject({ items: [], total: 0 })
    expect(ok(await server.call("list_panes"))).toMatchObject({ items: [], total: 0 })
  })

  it("a live server with no sessions is not reported as no_server", async () => {
    const error = errorOf(await server.call("capture_pane", { pane_id: "%0" }))
    expect(error.code).not.toBe("no_server")
    expect(error.text).not.toContain("No tmux server is running")
  })

  it("on a live server with a session, an unknown pane is not_found naming list_panes (the no_server hint is only for dead servers)", async () => {
    expect(world.tmux(["new-session", "-d", "-s", "scratch"]).status).toBe(0)
    const error = errorOf(await server.call("capture_pane", { pane_id: "%999" }))
    expect(error.code).toBe("not_found")
    expect(error.hint).toContain("list_panes")
    expect(error.hint).not.toContain("start_server")
  })

  it("kill_server ends the server it started; afterwards the socket is dead again", async () => {
    const killed = ok(await server.call("kill_server"))
    expect(killed.killed).toBe(true)
    expect(ok(await server.call("where_am_i")).server_running).toBe(false)
    expectNoServer(await server.call("list_sessions"), world)
  })
})

describe("seed 003 tests 1 and 2: where_am_i outside tmux, dead vs live socket", () => {
  let world: World
  let server: Served
  const liveName = "etm-e2e-live"

  beforeAll(async () => {
    world = makeWorld()
    world.startTmux(liveName)
    server = await serve(world)
  })
  afterAll(async () => {
    await server?.close()
    world?.dispose()
  })

  it("seed 003 test 1: outside tmux, inside_tmux is false and server_running follows the socket (dead default, live by socket_name)", async () => {
    const dead = ok(await server.call("where_am_i"))
    expect(dead).toMatchObject({ inside_tmux: false, caller_status: "outside_tmux", pane_id: null, server_running: false })
    expect(dead.caller_socket_path).toBeNull()
    expect(dead.targets_caller_server).toBeNull()

    const live = ok(await server.call("where_am_i", { socket_name: liveName }))
    expect(live).toMatchObject({ inside_tmux: false, server_running: true, effective_socket_name: liveName })
    expect(live.socket_rule).toBe("socket_name argument")
  })

  it("seed 003 test 2: live_server_count counts the one live server; on the live socket server_running is true, on the dead one false", async () => {
    const dead = ok(await server.call("where_am_i"))
    expect(dead.server_running).toBe(false)
    expect(dead.live_server_count).toBe(1)
    const live = ok(await server.call("where_am_i", { socket_path: world.socketPathOf(liveName) }))
    expect(live.server_running).toBe(true)
    expect(live.live_server_count).toBe(1)
    expect(live.server_pid).toBeGreaterThan(0)
    // Probing never started a server on the dead socket.
    expect(world.socketFiles()).toEqual([liveName])
  })
})
