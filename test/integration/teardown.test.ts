/**
 * kill_session, kill_window and kill_pane on real tmux: each kills exactly its object and reports
 * what went with it, refuses the caller's own context, honours generation and the safety tier.
 */
import { describe, expect, it } from "vitest"
import { describeTool } from "../../src/mcp/ToolList.js"
import { allTools } from "../../src/tools/registry.js"
import { visibleTools } from "../../src/tools/Tool.js"
import { attachControlClient, callerEnv, processAlive, serverIdentity, socketFilesBelow, useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool, toolNamed } from "../support/runTool.js"

const { world, defer } = useWorlds()

const destructive = { flags: { safety: "destructive" as const } }

const lines = (text: string) => text.split("\n").filter((line) => line !== "")
/** Distinct ids in numeric order ($2 before $10), as tmux's own listings are ordered by name or index. */
const ids = (text: string) => [...new Set(lines(text))].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))
const sessionIds = (w: PrivateTmux) => ids(w.tmuxOk("list-sessions", "-F", "#{session_id}"))
const windowIds = (w: PrivateTmux) => ids(w.tmuxOk("list-windows", "-a", "-F", "#{window_id}"))
const paneIds = (w: PrivateTmux) => ids(w.tmuxOk("list-panes", "-a", "-F", "#{pane_id}"))
/** "session_id window_index window_id" for every link of every window. */
const links = (w: PrivateTmux) => lines(w.tmuxOk("list-windows", "-a", "-F", "#{session_id} #{window_index} #{window_id}"))
const paneIdsOf = (w: PrivateTmux, target: string) => lines(w.tmuxOk("list-panes", "-s", "-t", target, "-F", "#{pane_id}"))

/**
 * Session "a" ($0): window @0 "editor" with panes %0 %1, window @1 "logs" with pane %2.
 * Session "b" ($1): window @2 with pane %3.
 */
const twoSessions = (w: PrivateTmux) => {
  w.tmuxOk("new-session", "-d", "-s", "a", "-n", "editor", "-x", "80", "-y", "24")
  w.tmuxOk("split-window", "-t", "a:editor")
  w.tmuxOk("new-window", "-d", "-t", "a", "-n", "logs")
  w.tmuxOk("new-session", "-d", "-s", "b", "-n", "shell")
  expect(paneIds(w)).toEqual(["%0", "%1", "%2", "%3"])
  expect(windowIds(w)).toEqual(["@0", "@1", "@2"])
}

const TOOLS = ["kill_session", "kill_window", "kill_pane"] as const

describe("teardown tools are described as destructive", () => {
  it("destructive tier, destructiveHint true, not idempotent, not read-only; an explicit id is required", () => {
    for (const name of TOOLS) {
      const tool = toolNamed(name)
      expect(tool.tier).toBe("destructive")
      const listed = describeTool(tool)
      expect(listed.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false })
      const idArgument = name.replace("kill_", "") + "_id"
      expect(listed.inputSchema.required).toEqual([idArgument])
      expect(Object.keys(listed.inputSchema.properties ?? {}).sort()).toEqual(
        [idArgument, "generation", "socket_name", "socket_path"].sort()
      )
    }
  })

  it("rejects a missing id, a name and a prefix as invalid_input, and kills nothing", async () => {
    const w = world()
    twoSessions(w)
    const layer = w.layer(destructive)
    const calls: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
      ["kill_session", {}],
      ["kill_session", { session_id: "a" }],
      ["kill_session", { session_id: "$" }],
      ["kill_window", {}],
      ["kill_window", { window_id: "logs" }],
      ["kill_window", { window_id: "a:1" }],
      ["kill_pane", {}],
      ["kill_pane", { pane_id: "a:0.1" }],
      ["kill_pane", { pane_id: "%1", session_id: "$0" }]
    ]
    for (const [name, args] of calls) {
      const error = errorMeta(await runTool(layer, name, args))
      expect({ name, args, code: error.code, effects: error.effects }).toEqual({ name, args, code: "invalid_input", effects: "none" })
    }
    expect(paneIds(w)).toEqual(["%0", "%1", "%2", "%3"])
  })
})

describe("kill_session", () => {
  it("kills exactly its session, with its windows and panes, and says so", async () => {
    const w = world()
    twoSessions(w)
    const { pid, startTime } = serverIdentity(w)
    const result = okResult(await runTool(w.layer(destructive), "kill_session", { session_id: "$0" }))
    expect(result).toEqual({
      killed: "session",
      id: "$0",
      name: "a",
      sessions_closed: [{ session_id: "$0", session_name: "a" }],
      windows_closed: [
        { window_id: "@0", window_name: "editor" },
        { window_id: "@1", window_name: "logs" }
      ],
      pane_ids_closed: ["%0", "%1", "%2"],
      session_count: 1,
      window_count: 2,
      pane_count: 3,
      windows_kept: [],
      truncated: false,
      sessions_remaining: 1,
      server_exited: false,
      generation: `${pid}.${startTime}`
    })
    expect(sessionIds(w)).toEqual(["$1"])
    expect(windowIds(w)).toEqual(["@2"])
    expect(paneIds(w)).toEqual(["%3"])
    expect(serverIdentity(w).pid).toBe(pid)
  })

  it("a window also linked into another session lives on there and is reported as kept", async () => {
    const w = world()
    twoSessions(w)
    // @1 "logs" of session a is linked into b as index 5.
    w.tmuxOk("link-window", "-s", "@1", "-t", "b:5")
    const result = okResult(await runTool(w.layer(destructive), "kill_session", { session_id: "$0" }))
    expect(result).toMatchObject({
      sessions_closed: [{ session_id: "$0", session_name: "a" }],
      windows_closed: [{ window_id: "@0", window_name: "editor" }],
      windows_kept: [{ window_id: "@1", window_name: "logs" }],
      pane_ids_closed: ["%0", "%1"],
      pane_count: 2,
      sessions_remaining: 1
    })
    expect(links(w)).toEqual(["$1 0 @2", "$1 5 @1"])
    expect(paneIds(w)).toEqual(["%2", "%3"])
  })

  it("killing the last session ends a server with exit-empty on, and says so", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "only")
    w.tmuxOk("split-window", "-t", "only")
    const { pid } = serverIdentity(w)
    const layer = w.layer(destructive)
    const result = okResult(await runTool(layer, "kill_session", { session_id: "$0" }))
    expect(result).toMatchObject({
      name: "only",
      pane_ids_closed: ["%0", "%1"],
      sessions_remaining: 0,
      server_exited: true
    })
    await waitFor("the server to exit", () => !processAlive(pid))
    expect(okResult(await runTool(layer, "get_server_info")).is_alive).toBe(false)
  })

  it("with exit-empty off the server stays up with no sessions, and says so", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "only")
    w.tmuxOk("set-option", "-g", "exit-empty", "off")
    const { pid } = serverIdentity(w)
    const result = okResult(await runTool(w.layer(destructive), "kill_session", { session_id: "$0" }))
    expect(result).toMatchObject({ sessions_remaining: 0, server_exited: false, pane_ids_closed: ["%0"] })
    expect(w.tmuxOk("list-sessions")).toBe("")
    expect(serverIdentity(w).pid).toBe(pid)
  })
  it("with exit-unattached on, the server exits once no client is attached, even with sessions left", async () => {
    const w = world()
    twoSessions(w)
    const client = await attachControlClient(w, "b")
    defer(client.close)
    w.tmuxOk("set-option", "-g", "exit-unattached", "on")
    const { pid } = serverIdentity(w)
    const layer = w.layer(destructive)
    // The client watches b: killing a leaves the server running.
    expect(okResult(await runTool(layer, "kill_session", { session_id: "$0" }))).toMatchObject({
      sessions_remaining: 1,
      server_exited: false
    })
    expect(processAlive(pid)).toBe(true)
    // Killing b detaches its client (detach-on-destroy): c is left, but nobody is attached.
    w.tmuxOk("new-session", "-d", "-s", "c")
    expect(okResult(await runTool(layer, "kill_session", { session_id: "$1" }))).toMatchObject({
      sessions_remaining: 1,
      server_exited: true
    })
    await waitFor("the server to exit", () => !processAlive(pid))
  })
})

describe("kill_window", () => {
  it("kills exactly its window, in every session it is linked into", async () => {
    const w = world()
    twoSessions(w)
    w.tmuxOk("link-window", "-s", "@1", "-t", "b:5")
    const result = okResult(await runTool(w.layer(destructive), "kill_window", { window_id: "@1" }))
    expect(result).toMatchObject({
      killed: "window",
      id: "@1",
      name: "logs",
      sessions_closed: [],
      windows_closed: [{ window_id: "@1", window_name: "logs" }],
      pane_ids_closed: ["%2"],
      window_count: 1,
      pane_count: 1,
      windows_kept: [],
      sessions_remaining: 2,
      server_exited: false
    })
    expect(links(w)).toEqual(["$0 0 @0", "$1 0 @2"])
    expect(paneIds(w)).toEqual(["%0", "%1", "%3"])
  })

  it("a session whose only window it was closes with it", async () => {
    const w = world()
    twoSessions(w)
    const result = okResult(await runTool(w.layer(destructive), "kill_window", { window_id: "@2" }))
    expect(result).toMatchObject({
      name: "shell",
      sessions_closed: [{ session_id: "$1", session_name: "b" }],
      windows_closed: [{ window_id: "@2", window_name: "shell" }],
      pane_ids_closed: ["%3"],
      sessions_remaining: 1,
      server_exited: false
    })
    expect(sessionIds(w)).toEqual(["$0"])
    expect(paneIds(w)).toEqual(["%0", "%1", "%2"])
  })
})

describe("kill_pane", () => {
  it("kills exactly its pane; the window stays while it has others", async () => {
    const w = world()
    twoSessions(w)
    const result = okResult(await runTool(w.layer(destructive), "kill_pane", { pane_id: "%1" }))
    expect(result).toMatchObject({
      killed: "pane",
      id: "%1",
      name: null,
      sessions_closed: [],
      windows_closed: [],
      pane_ids_closed: ["%1"],
      pane_count: 1,
      sessions_remaining: 2,
      server_exited: false
    })
    expect(paneIds(w)).toEqual(["%0", "%2", "%3"])
    expect(windowIds(w)).toEqual(["@0", "@1", "@2"])
  })

  it("the last pane of a window takes the window with it, and the last window its session", async () => {
    const w = world()
    twoSessions(w)
    const layer = w.layer(destructive)
    expect(okResult(await runTool(layer, "kill_pane", { pane_id: "%2" }))).toMatchObject({
      windows_closed: [{ window_id: "@1", window_name: "logs" }],
      sessions_closed: [],
      pane_ids_closed: ["%2"]
    })
    expect(windowIds(w)).toEqual(["@0", "@2"])
    expect(okResult(await runTool(layer, "kill_pane", { pane_id: "%3" }))).toMatchObject({
      windows_closed: [{ window_id: "@2", window_name: "shell" }],
      sessions_closed: [{ session_id: "$1", session_name: "b" }],
      sessions_remaining: 1,
      server_exited: false
    })
    expect(sessionIds(w)).toEqual(["$0"])
    expect(paneIds(w)).toEqual(["%0", "%1"])
  })

  it("the server's very last pane ends the server", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "only")
    const { pid } = serverIdentity(w)
    const result = okResult(await runTool(w.layer(destructive), "kill_pane", { pane_id: "%0" }))
    expect(result).toMatchObject({
      sessions_closed: [{ session_id: "$0", session_name: "only" }],
      windows_closed: [{ window_id: "@0" }],
      pane_ids_closed: ["%0"],
      sessions_remaining: 0,
      server_exited: true
    })
    await waitFor("the server to exit", () => !processAlive(pid))
  })
})

describe("missing objects and dead servers", () => {
  it("a missing id is not_found naming the id, with the list tool to call in the hint; nothing is killed", async () => {
    const w = world()
    twoSessions(w)
    const layer = w.layer(destructive)
    const cases = [
      ["kill_session", { session_id: "$9" }, "list_sessions"],
      ["kill_window", { window_id: "@9" }, "list_windows"],
      ["kill_pane", { pane_id: "%9" }, "list_panes"]
    ] as const
    for (const [name, args, listTool] of cases) {
      const error = errorMeta(await runTool(layer, name, args))
      expect({ name, code: error.code }).toEqual({ name, code: "not_found" })
      expect(error.hint).toContain(listTool)
      expect(error.text).toContain(Object.values(args)[0])
    }
    expect(paneIds(w)).toEqual(["%0", "%1", "%2", "%3"])
  })

  it("on a live server without sessions a kill is not_found too", async () => {
    const w = world()
    const layer = w.layer(destructive)
    expect(okResult(await runTool(layer, "start_server")).started).toBe(true)
    for (
      const [name, args, listTool] of [
        ["kill_session", { session_id: "$0" }, "list_sessions"],
        ["kill_window", { window_id: "@0" }, "list_windows"],
        ["kill_pane", { pane_id: "%0" }, "list_panes"]
      ] as const
    ) {
      const error = errorMeta(await runTool(layer, name, args))
      expect({ name, code: error.code }).toEqual({ name, code: "not_found" })
      expect(error.hint).toContain(listTool)
    }
    expect(okResult(await runTool(layer, "get_server_info")).is_alive).toBe(true)
  })

  it("a dead socket is no_server, and no server is started", async () => {
    const w = world()
    const layer = w.layer(destructive)
    for (
      const [name, args] of [
        ["kill_session", { session_id: "$0" }],
        ["kill_window", { window_id: "@0" }],
        ["kill_pane", { pane_id: "%0" }],
        ["kill_pane", { pane_id: "%0", generation: "1.1" }]
      ] as const
    ) {
      const error = errorMeta(await runTool(layer, name, args))
      expect({ name, code: error.code }).toEqual({ name, code: "no_server" })
      expect(error.hint).toContain("list_servers")
    }
    expect(socketFilesBelow(w.tmpdir)).toEqual([])
  })
})

describe("the caller's own context", () => {
  /** The world of twoSessions with this MCP server running in %1 (session a, window @0). */
  const callerIn = (w: PrivateTmux, paneId = "%1") => w.layer({ env: callerEnv(w, paneId), ...destructive })

  it("each tool refuses the object that holds the caller's pane, which still exists afterwards", async () => {
    const w = world()
    twoSessions(w)
    const layer = callerIn(w)
    const cases = [
      ["kill_pane", { pane_id: "%1" }, /Refusing to kill pane %1: it is .*the pane this MCP server runs in/],
      ["kill_window", { window_id: "@0" }, /Refusing to kill window @0: it contains the pane this MCP server runs in \(%1\)/],
      ["kill_session", { session_id: "$0" }, /Refusing to kill session \$0: it contains the pane this MCP server runs in \(%1\)/]
    ] as const
    for (const [name, args, message] of cases) {
      const error = errorMeta(await runTool(layer, name, args))
      expect({ name, code: error.code, effects: error.effects }).toEqual({ name, code: "denied", effects: "none" })
      expect(error.text).toMatch(message)
      expect(error.hint).toContain("explicit id")
    }
    expect(paneIds(w)).toEqual(["%0", "%1", "%2", "%3"])
    expect(windowIds(w)).toEqual(["@0", "@1", "@2"])
    expect(sessionIds(w)).toEqual(["$0", "$1"])
  })

  it("refuses a session that reaches the caller's pane only through a linked window (conservative)", async () => {
    const w = world()
    twoSessions(w)
    // The caller's window @0 is linked into b as well: killing b would only unlink it, but b
    // still shows the caller's pane, so it is refused.
    w.tmuxOk("link-window", "-s", "@0", "-t", "b:5")
    const layer = callerIn(w)
    const error = errorMeta(await runTool(layer, "kill_session", { session_id: "$1" }))
    expect(error.code).toBe("denied")
    expect(error.text).toContain("contains the pane this MCP server runs in (%1)")
    expect(sessionIds(w)).toEqual(["$0", "$1"])
    expect(paneIdsOf(w, "$1")).toEqual(["%3", "%0", "%1"])
  })

  it("objects that do not hold the caller's pane are killed normally from inside tmux", async () => {
    const w = world()
    twoSessions(w)
    const layer = callerIn(w)
    // Another pane of the caller's own window, another window of its session, another session.
    expect(okResult(await runTool(layer, "kill_pane", { pane_id: "%0" })).pane_ids_closed).toEqual(["%0"])
    expect(okResult(await runTool(layer, "kill_window", { window_id: "@1" })).windows_closed).toEqual([
      { window_id: "@1", window_name: "logs" }
    ])
    expect(okResult(await runTool(layer, "kill_session", { session_id: "$1" })).sessions_closed).toEqual([
      { session_id: "$1", session_name: "b" }
    ])
    expect(paneIds(w)).toEqual(["%1"])
    expect(sessionIds(w)).toEqual(["$0"])
  })

  it("refuses everything on the socket when $TMUX_PANE is set but $TMUX is missing (identity uncertain)", async () => {
    const w = world()
    twoSessions(w)
    const layer = w.layer({ env: { TMUX_PANE: "%1" }, ...destructive })
    for (
      const [name, args] of [
        ["kill_pane", { pane_id: "%3" }],
        ["kill_pane", { pane_id: "%1" }],
        ["kill_window", { window_id: "@2" }],
        ["kill_session", { session_id: "$1" }]
      ] as const
    ) {
      const error = errorMeta(await runTool(layer, name, args))
      expect({ name, args, code: error.code }).toEqual({ name, args, code: "denied" })
      expect(error.text).toMatch(/Refusing to kill .*(or may)/)
    }
    expect(paneIds(w)).toEqual(["%0", "%1", "%2", "%3"])
  })

  it("refuses when $TMUX names the server but $TMUX_PANE is missing (the caller's pane is unknown)", async () => {
    const w = world()
    twoSessions(w)
    const { TMUX } = callerEnv(w, "%1")
    const layer = w.layer({ env: { TMUX }, ...destructive })
    for (
      const [name, args] of [
        ["kill_pane", { pane_id: "%3" }],
        ["kill_window", { window_id: "@2" }],
        ["kill_session", { session_id: "$1" }]
      ] as const
    ) {
      const error = errorMeta(await runTool(layer, name, args))
      expect({ name, code: error.code }).toEqual({ name, code: "denied" })
    }
    expect(paneIds(w)).toEqual(["%0", "%1", "%2", "%3"])
  })

  it("a caller on another server does not protect same-numbered objects here", async () => {
    const w = world()
    const other = world()
    twoSessions(w)
    other.tmuxOk("new-session", "-d", "-s", "elsewhere")
    // The caller runs in %1 of the other server; %1 here is somebody else's.
    other.tmuxOk("split-window", "-t", "elsewhere")
    const layer = w.layer({ env: callerEnv(other, "%1"), ...destructive })
    expect(okResult(await runTool(layer, "kill_pane", { pane_id: "%1" })).pane_ids_closed).toEqual(["%1"])
    expect(paneIds(w)).toEqual(["%0", "%2", "%3"])
    expect(paneIds(other)).toEqual(["%0", "%1"])
  })
})

describe("generation", () => {
  it("a generation from before a restart is refused with not_found and nothing is killed", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "first")
    const layer = w.layer(destructive)
    const stale = okResult(await runTool(layer, "get_server_info")).generation as string
    const { pid } = serverIdentity(w)
    w.tmuxOk("kill-server")
    await waitFor("the first server to exit", () => !processAlive(pid))
    // The new server reuses every id: $0, @0, %0 now name other objects.
    w.tmuxOk("new-session", "-d", "-s", "second")
    for (
      const [name, args] of [
        ["kill_session", { session_id: "$0", generation: stale }],
        ["kill_window", { window_id: "@0", generation: stale }],
        ["kill_pane", { pane_id: "%0", generation: stale }]
      ] as const
    ) {
      const error = errorMeta(await runTool(layer, name, args))
      expect({ name, code: error.code }).toEqual({ name, code: "not_found" })
      expect(error.text).toContain(stale)
      expect(error.hint).toContain("get_server_info")
    }
    expect(lines(w.tmuxOk("list-sessions", "-F", "#{session_id} #{session_name}"))).toEqual(["$0 second"])

    const current = okResult(await runTool(layer, "get_server_info")).generation as string
    expect(current).not.toBe(stale)
    const killed = okResult(await runTool(layer, "kill_pane", { pane_id: "%0", generation: current }))
    expect(killed).toMatchObject({ pane_ids_closed: ["%0"], generation: current, server_exited: true })
  })
})

describe("safety tier", () => {
  it("at LIBTMUX_SAFETY=mutating the teardown tools are hidden, and denied naming the destructive tier", async () => {
    const w = world()
    twoSessions(w)
    const visible = visibleTools(allTools, "mutating").map((tool) => tool.name)
    for (const name of TOOLS) expect(visible).not.toContain(name)
    expect(visibleTools(allTools, "destructive").map((tool) => tool.name)).toEqual(expect.arrayContaining([...TOOLS]))

    const layer = w.layer({ flags: { safety: "mutating" } })
    for (
      const [name, args] of [
        ["kill_session", { session_id: "$1" }],
        ["kill_window", { window_id: "@2" }],
        ["kill_pane", { pane_id: "%3" }]
      ] as const
    ) {
      const error = errorMeta(await runTool(layer, name, args))
      expect({ name, code: error.code, effects: error.effects }).toEqual({ name, code: "denied", effects: "none" })
      expect(error.text).toContain(`${name} is a destructive tool`)
      expect(error.hint).toContain("LIBTMUX_SAFETY=destructive")
    }
    expect(paneIds(w)).toEqual(["%0", "%1", "%2", "%3"])
  })
})
