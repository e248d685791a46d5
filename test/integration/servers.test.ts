/**
 * Server-level tools on real tmux: every tool on a dead socket, starting, killing, discovering and
 * inspecting servers.
 */
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { allTools } from "../../src/tools/registry.js"
import { callerEnv, isSocket, processAlive, serverIdentity, socketFilesBelow, useWorlds, waitFor } from "../support/liveTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"

const { world, defer } = useWorlds()

/** Arguments that make each tool reach for the server (ids where a tool would otherwise need a caller). */
const deadSocketCalls: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["kill_server", {}],
  ["list_sessions", {}],
  ["get_session_info", { session_id: "$0" }],
  ["get_session_info", { session_name: "main" }],
  ["list_windows", {}],
  ["list_windows", { session_id: "$0" }],
  ["get_window_info", { window_id: "@0" }],
  ["list_panes", {}],
  ["list_panes", { session_id: "$0" }],
  ["list_panes", { window_id: "@0" }],
  ["list_panes", { where: { command: "sh" } }],
  ["list_panes", { where: { right_of: "%0" } }],
  ["get_pane_info", { pane_id: "%0" }],
  ["get_pane_info", { pane_id: "%0", variables: ["pane_tty"] }],
  ["capture_pane", { pane_id: "%0" }],
  ["create_session", { session_name: "x" }],
  ["create_window", { session_id: "$0" }],
  ["split_window", { pane_id: "%0" }],
  ["respawn_pane", { pane_id: "%0" }],
  ["kill_session", { session_id: "$0" }],
  ["kill_window", { window_id: "@0" }],
  ["kill_pane", { pane_id: "%0" }],
  ["send_keys", { pane_id: "%0", keys: "x" }],
  ["set_environment", { global: true, name: "A", value: "b" }],
  ["set_environment", { session_name: "main", name: "A", value: "b" }],
  ["unset_environment", { session_id: "$0", name: "A" }],
  ["show_environment", { global: true }],
  ["show_options", { scope: "server" }],
  ["show_options", { scope: "session", target: "$0", hooks: true }],
  ["set_option", { name: "mouse", value: "on", global: true }],
  ["rename_session", { session_id: "$0", name: "x" }],
  ["rename_window", { window_id: "@0", name: "x" }],
  ["select_window", { session_id: "$0", direction: "next" }],
  ["select_pane", { window_id: "@0", direction: "next" }],
  ["select_layout", { window_id: "@0", layout: "tiled" }],
  ["resize_pane", { pane_id: "%0", zoom: true }],
  ["resize_window", { window_id: "@0", width: 10 }],
  ["swap_pane", { source_pane_id: "%0", target_pane_id: "%1" }],
  ["move_window", { window_id: "@0", session_id: "$1" }],
  ["set_pane_title", { pane_id: "%0", title: "x" }],
  ["run_command", { pane_id: "%0", command: "true" }],
  ["snapshot_pane", { pane_id: "%0" }],
  ["capture_since", { pane_id: "%0" }],
  ["wait_for_text", { pane_id: "%0", patterns: ["x"], timeout: 1 }],
  ["search_panes", { patterns: ["x"] }],
  ["send_keys_batch", { pane_id: "%0", operations: [{ keys: "x" }] }],
  ["paste_text", { pane_id: "%0", text: "x" }],
  ["clear_pane", { pane_id: "%0" }],
  ["list_buffers", {}],
  ["load_buffer", { name: "b", text: "x" }],
  ["show_buffer", { name: "b" }],
  ["paste_buffer", { name: "b", pane_id: "%0" }],
  ["delete_buffer", { name: "b" }],
  ["wait_for_channel", { channel: "c", timeout: 1 }],
  ["signal_channel", { channel: "c" }]
]
/**
 * Tools that answer about a dead socket with data instead of an error. wait_for_command's socket is
 * the one in its handle: a command whose server died ends with outcome pane_died (command.test.ts).
 * run_batch reports each operation's own no_server (below, and e2e/dead-server.test.ts).
 */
const reportingTools = ["where_am_i", "list_servers", "get_server_info", "run_batch", "wait_for_command"]

describe("a dead socket", () => {
  it("every targeted tool fails with no_server and a hint out of the loop; nothing starts a server", async () => {
    const w = world()
    const layer = w.layer({ flags: { safety: "destructive" } })
    // The table covers every tool but start_server: a new tool must be added here.
    expect(new Set([...deadSocketCalls.map(([name]) => name), ...reportingTools, "start_server"])).toEqual(
      new Set(allTools.map((tool) => tool.name))
    )

    for (const [name, args] of deadSocketCalls) {
      const error = errorMeta(await runTool(layer, name, args))
      expect({ name, args, code: error.code }).toEqual({ name, args, code: "no_server" })
      expect(error.text).toContain("No tmux server is running")
      expect(error.text).toContain(w.socketName)
      expect(error.text).toContain("list_servers")
      expect(error.text).toContain("start_server")
      expect(error.text).not.toContain("list_panes")
      expect(error.effects).toBe("none")
    }

    const where = okResult(await runTool(layer, "where_am_i"))
    expect(where).toMatchObject({ server_running: false, server_pid: null, live_server_count: 0, inside_tmux: false })
    const servers = okResult(await runTool(layer, "list_servers"))
    expect(servers).toMatchObject({ items: [], total: 0 })
    const info = okResult(await runTool(layer, "get_server_info"))
    expect(info).toMatchObject({ is_alive: false, pid: null, session_count: 0, socket_name: w.socketName })
    expect(info.socket_path).toBe(w.socketPath)
    const batch = okResult(
      await runTool(layer, "run_batch", {
        operations: [{ tool: "list_panes" }, { tool: "kill_pane", arguments: { pane_id: "%0" } }],
        stop_on_error: false
      })
    )
    expect(batch.results.map((result: any) => [result.ok, result.error?.code])).toEqual([[false, "no_server"], [false, "no_server"]])

    expect(socketFilesBelow(w.tmpdir)).toEqual([])
    expect(w.tmux("has-session").stderr).toMatch(/no server running|error connecting/)
  })

  it("a caller whose server is gone gets no_server from the caller-default lookups", async () => {
    const w = world()
    const layer = w.layer({ env: { TMUX: `${w.socketPath},4242,0`, TMUX_PANE: "%0" } })
    for (const tool of ["get_session_info", "get_window_info", "get_pane_info"]) {
      const error = errorMeta(await runTool(layer, tool))
      expect({ tool, code: error.code }).toEqual({ tool, code: "no_server" })
      expect(error.text).toContain("list_servers")
    }
    expect(okResult(await runTool(layer, "where_am_i"))).toMatchObject({
      inside_tmux: true,
      caller_status: "server_gone",
      pane_id: null,
      server_running: false
    })
    expect(socketFilesBelow(w.tmpdir)).toEqual([])
  })

  it("where_am_i tells a dead socket from a live one", async () => {
    const w = world()
    const layer = w.layer()
    expect(okResult(await runTool(layer, "where_am_i")).server_running).toBe(false)
    w.tmuxOk("new-session", "-d", "-s", "main")
    const where = okResult(await runTool(layer, "where_am_i"))
    expect(where).toMatchObject({
      server_running: true,
      server_pid: serverIdentity(w).pid,
      effective_socket_name: w.socketName,
      effective_socket_path: w.socketPath,
      // The world names its socket through configuration (flag or variable), never the default.
      socket_rule: expect.stringMatching(/socket.name|LIBTMUX_SOCKET/i),
      live_server_count: 1,
      inside_tmux: false,
      caller_status: "outside_tmux",
      targets_caller_server: null
    })
  })
})

describe("start_server", () => {
  it("starts a sessionless server that stays up, then reports it was already running", async () => {
    const w = world()
    const layer = w.layer()
    const first = okResult(await runTool(layer, "start_server"))
    expect(first).toMatchObject({ started: true, socket_name: w.socketName, socket_path: w.socketPath })
    const { pid, startTime } = serverIdentity(w)
    expect(first.pid).toBe(pid)
    expect(first.generation).toBe(`${pid}.${startTime}`)

    const second = okResult(await runTool(layer, "start_server"))
    expect(second).toMatchObject({ started: false, pid, generation: first.generation })

    // Still there, with no sessions, because exit-empty is off.
    expect(w.tmuxOk("show-options", "-gv", "exit-empty").trim()).toBe("off")
    expect(w.tmuxOk("list-sessions")).toBe("")
    expect(serverIdentity(w).pid).toBe(pid)
    expect(okResult(await runTool(layer, "get_server_info"))).toMatchObject({
      is_alive: true,
      pid,
      session_count: 0,
      window_count: 0,
      pane_count: 0
    })
  })

  it("does not hand the MCP process's environment to the server it starts", async () => {
    const w = world()
    const layer = w.layer({ env: { ETM_SECRET: "1", LC_ETM_TEST: "kept", AWS_SECRET_ACCESS_KEY: "nope" } })
    expect(okResult(await runTool(layer, "start_server")).started).toBe(true)
    const names = w
      .tmuxOk("show-environment", "-g")
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => line.replace(/^-/, "").split("=")[0]!)
    expect(names).not.toContain("ETM_SECRET")
    expect(names).not.toContain("AWS_SECRET_ACCESS_KEY")
    expect(names).toContain("LC_ETM_TEST")
    expect(names).toContain("PATH")
    // PWD is tmux's own: the server sets it from its working directory at start-up.
    const allowed = /^(PATH|HOME|TERM|SHELL|USER|LOGNAME|LANG|LC_.*|TMUX_TMPDIR|PWD)$/
    expect(names.filter((name) => !allowed.test(name))).toEqual([])
  })
})

describe("kill_server", () => {
  it("kills the server on the socket", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "doomed")
    const { pid } = serverIdentity(w)
    const layer = w.layer({ flags: { safety: "destructive" } })
    const killed = okResult(await runTool(layer, "kill_server"))
    expect(killed).toMatchObject({ killed: true, pid, socket_name: w.socketName, socket_path: w.socketPath })
    await waitFor("the server to exit", () => !processAlive(pid))
    expect(w.tmux("list-sessions").stderr).toMatch(/no server running|error connecting/)
    expect(okResult(await runTool(layer, "get_server_info")).is_alive).toBe(false)
    expect(errorMeta(await runTool(layer, "kill_server")).code).toBe("no_server")
  })

  it("is a destructive tool: denied at the default safety level", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "kept")
    const error = errorMeta(await runTool(w.layer(), "kill_server"))
    expect(error.code).toBe("denied")
    expect(error.text).toContain("LIBTMUX_SAFETY=destructive")
    expect(w.tmux("has-session", "-t", "kept").status).toBe(0)
  })

  it("refuses the server the caller runs in, which stays alive", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "home")
    const { pid } = serverIdentity(w)
    const layer = w.layer({ env: callerEnv(w, "%0"), flags: { safety: "destructive" } })
    const error = errorMeta(await runTool(layer, "kill_server"))
    expect(error.code).toBe("denied")
    expect(error.text).toContain("runs inside it")
    expect(error.effects).toBe("none")
    expect(serverIdentity(w).pid).toBe(pid)
    expect(processAlive(pid)).toBe(true)
    expect(w.tmux("has-session", "-t", "home").status).toBe(0)
  })

  it("errs on the side of refusing when the caller's identity only partly matches", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "home")
    const { pid } = serverIdentity(w)
    const partial = [
      // Same socket, another pid (e.g. $TMUX from before a restart): maybe the caller's server.
      callerEnv(w, "%0", pid + 100_000),
      // $TMUX_PANE without a readable $TMUX: identity unknown.
      { TMUX_PANE: "%0" }
    ]
    for (const env of partial) {
      const error = errorMeta(await runTool(w.layer({ env, flags: { safety: "destructive" } }), "kill_server"))
      expect({ env, code: error.code }).toEqual({ env, code: "denied" })
    }
    expect(serverIdentity(w).pid).toBe(pid)
  })
})

describe("list_servers", () => {
  it("finds the live server with its identity and skips a stale socket file", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "one")
    w.tmuxOk("new-session", "-d", "-s", "two")
    // A second server in the same directory, killed: tmux leaves its socket file behind.
    const staleName = `${w.socketName}-stale`
    const staleTmux = (...args: Array<string>) =>
      spawnSync("tmux", ["-f", "/dev/null", "-L", staleName, ...args], { env: w.env, encoding: "utf8" })
    defer(() => staleTmux("kill-server"))
    expect(staleTmux("new-session", "-d").status).toBe(0)
    const stalePid = Number(staleTmux("display-message", "-p", "#{pid}").stdout.trim())
    expect(staleTmux("kill-server").status).toBe(0)
    await waitFor("the second server to exit", () => !processAlive(stalePid))
    const stalePath = join(w.tmpdir, `tmux-${process.getuid!()}`, staleName)
    expect(isSocket(stalePath)).toBe(true)

    const { pid } = serverIdentity(w)
    const servers = okResult(await runTool(w.layer(), "list_servers"))
    expect(servers.items).toEqual([
      {
        socket_name: w.socketName,
        socket_path: w.socketPath,
        pid,
        version: w.tmuxOk("display-message", "-p", "#{version}").trim(),
        generation: `${pid}.${serverIdentity(w).startTime}`,
        session_count: 2
      }
    ])
    expect(servers).toMatchObject({ total: 1, truncated: false })
    // Probing the stale socket did not bring a server back to life.
    expect(staleTmux("list-sessions").status).not.toBe(0)
  })

  it("probes extra socket paths outside the socket directory", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "standard")
    const outside = join(w.tmpdir, "elsewhere.sock")
    const outsideTmux = (...args: Array<string>) =>
      spawnSync("tmux", ["-f", "/dev/null", "-S", outside, ...args], { env: w.env, encoding: "utf8" })
    defer(() => outsideTmux("kill-server"))
    expect(outsideTmux("new-session", "-d", "-s", "a").status).toBe(0)
    expect(outsideTmux("new-session", "-d", "-s", "b").status).toBe(0)
    expect(outsideTmux("new-session", "-d", "-s", "c").status).toBe(0)
    const outsidePid = Number(outsideTmux("display-message", "-p", "#{pid}").stdout.trim())

    const layer = w.layer()
    const without = okResult(await runTool(layer, "list_servers"))
    expect(without.items.map((s: any) => s.socket_path)).toEqual([w.socketPath])

    const extra_socket_paths = [outside, join(w.tmpdir, "missing.sock")]
    const withExtra = okResult(await runTool(layer, "list_servers", { extra_socket_paths }))
    expect(withExtra.total).toBe(2)
    expect(withExtra.items.find((s: any) => s.socket_path === outside)).toMatchObject({
      socket_name: null,
      pid: outsidePid,
      session_count: 3
    })
  })

  it("pages servers", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d")
    const page = okResult(await runTool(w.layer(), "list_servers", { offset: 1 }))
    expect(page).toMatchObject({ items: [], total: 1, offset: 1, truncated: false })
  })
})

describe("get_server_info", () => {
  it("reports the real socket, pid, version and generation, and counts a linked window once", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "a", "-x", "80", "-y", "24")
    w.tmuxOk("split-window", "-t", "a")
    w.tmuxOk("new-window", "-t", "a")
    w.tmuxOk("new-session", "-d", "-s", "b")
    // The second window of "a" (@1, one pane) now also lives in "b".
    w.tmuxOk("link-window", "-s", "a:1", "-t", "b:5")
    expect(w.tmuxOk("list-panes", "-a", "-F", "#{pane_id}").trim().split("\n")).toHaveLength(5)

    const { pid, startTime, socketPath } = serverIdentity(w)
    const info = okResult(await runTool(w.layer(), "get_server_info"))
    expect(info).toEqual({
      is_alive: true,
      socket_name: w.socketName,
      socket_path: socketPath,
      socket_rule: expect.stringMatching(/socket.name|LIBTMUX_SOCKET/i),
      pid,
      version: w.tmuxOk("display-message", "-p", "#{version}").trim(),
      start_time: startTime,
      generation: `${pid}.${startTime}`,
      session_count: 2,
      window_count: 3,
      pane_count: 4,
      is_caller_server: null
    })
  })

  it("a new server on the same socket has a new generation", async () => {
    const w = world()
    const layer = w.layer()
    w.tmuxOk("new-session", "-d", "-s", "first")
    const before = okResult(await runTool(layer, "get_server_info"))
    w.tmuxOk("kill-server")
    await waitFor("the first server to exit", () => !processAlive(before.pid))
    w.tmuxOk("new-session", "-d", "-s", "second")
    const after = okResult(await runTool(layer, "get_server_info"))
    expect(after.is_alive).toBe(true)
    expect(after.socket_path).toBe(before.socket_path)
    expect(after.generation).not.toBe(before.generation)
    expect(after.pid).toBe(serverIdentity(w).pid)
  })

  it("knows whether the caller runs in the server", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d")
    const inside = okResult(await runTool(w.layer({ env: callerEnv(w, "%0") }), "get_server_info"))
    expect(inside.is_caller_server).toBe(true)
    const other = okResult(await runTool(w.layer({ env: callerEnv(w, "%0", 1) }), "get_server_info"))
    expect(other.is_caller_server).toBe(false)
  })
})
