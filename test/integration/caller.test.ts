/**
 * Who is asking and who is watching, on real tmux: is_caller from a faked $TMUX / $TMUX_PANE, the
 * caller-default lookups, where_am_i inside tmux, and is_attended from real attached clients.
 */
import { describe, expect, it } from "vitest"
import { attachControlClient, attachTerminalClient, callerEnv, serverIdentity, useWorlds } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"

const { world, defer } = useWorlds()

/** Session "a": @0 with %0 %1; @1 with %2. Session "b": @2 with %3. */
const twoSessions = (w: PrivateTmux) => {
  w.tmuxOk("new-session", "-d", "-s", "a", "-x", "80", "-y", "24")
  w.tmuxOk("split-window", "-t", "@0")
  w.tmuxOk("new-window", "-t", "a")
  w.tmuxOk("new-session", "-d", "-s", "b", "-x", "80", "-y", "24")
}

const flagsById = (page: any, key: "is_caller" | "is_attended") =>
  Object.fromEntries(page.items.map((pane: any) => [pane.pane_id, pane[key]]))

describe("is_caller", () => {
  it("is true only for the caller's pane on the caller's server", async () => {
    const w = world()
    twoSessions(w)
    const layer = w.layer({ env: callerEnv(w, "%2") })
    const panes = okResult(await runTool(layer, "list_panes"))
    expect(flagsById(panes, "is_caller")).toEqual({ "%0": false, "%1": false, "%2": true, "%3": false })
    expect(okResult(await runTool(layer, "get_pane_info", { pane_id: "%2" })).is_caller).toBe(true)
    expect(okResult(await runTool(layer, "get_pane_info", { pane_id: "%3" })).is_caller).toBe(false)
    expect(okResult(await runTool(layer, "get_server_info")).is_caller_server).toBe(true)
  })

  it("is null on every pane outside tmux", async () => {
    const w = world()
    twoSessions(w)
    const panes = okResult(await runTool(w.layer(), "list_panes"))
    expect(flagsById(panes, "is_caller")).toEqual({ "%0": null, "%1": null, "%2": null, "%3": null })
  })

  it("is false everywhere when $TMUX names another server instance on the same socket", async () => {
    const w = world()
    twoSessions(w)
    const realPid = serverIdentity(w).pid
    const layer = w.layer({ env: callerEnv(w, "%2", realPid + 100_000) })
    const panes = okResult(await runTool(layer, "list_panes"))
    expect(flagsById(panes, "is_caller")).toEqual({ "%0": false, "%1": false, "%2": false, "%3": false })
    expect(okResult(await runTool(layer, "get_server_info")).is_caller_server).toBe(false)
    const where = okResult(await runTool(layer, "where_am_i"))
    expect(where).toMatchObject({ inside_tmux: true, caller_status: "server_gone", pane_id: null })
  })

  it("is false everywhere on a server the caller does not run in", async () => {
    const home = world()
    twoSessions(home)
    const other = world()
    twoSessions(other)
    const layer = other.layer({ env: callerEnv(home, "%2") })
    const panes = okResult(await runTool(layer, "list_panes"))
    expect(flagsById(panes, "is_caller")).toEqual({ "%0": false, "%1": false, "%2": false, "%3": false })
    expect(okResult(await runTool(layer, "where_am_i"))).toMatchObject({
      inside_tmux: true,
      caller_status: "live",
      pane_id: "%2",
      caller_socket_path: serverIdentity(home).socketPath,
      effective_socket_path: other.socketPath,
      targets_caller_server: false
    })
    // The tools query another server, so there is no "own" pane there to default to.
    const error = errorMeta(await runTool(layer, "get_pane_info"))
    expect(error.code).toBe("invalid_input")
    expect(error.text).toContain("not the caller's server")
  })
})

describe("lookups that default to the caller", () => {
  it("resolve the caller's own pane, window and session, live", async () => {
    const w = world()
    twoSessions(w)
    const layer = w.layer({ env: callerEnv(w, "%1") })
    expect(okResult(await runTool(layer, "get_pane_info"))).toMatchObject({
      pane_id: "%1",
      window_id: "@0",
      session_id: "$0",
      is_caller: true
    })
    expect(okResult(await runTool(layer, "get_window_info"))).toMatchObject({ window_id: "@0", session_id: "$0", pane_count: 2 })
    expect(okResult(await runTool(layer, "get_session_info"))).toMatchObject({ session_id: "$0", session_name: "a" })
    expect(okResult(await runTool(layer, "where_am_i"))).toMatchObject({
      inside_tmux: true,
      caller_status: "live",
      pane_id: "%1",
      window_id: "@0",
      session_id: "$0",
      targets_caller_server: true,
      server_running: true
    })

    // The caller's pane moves to session "b": $TMUX still says session 0, the answers follow the pane.
    w.tmuxOk("move-pane", "-s", "%1", "-t", "%3")
    expect(okResult(await runTool(layer, "get_window_info"))).toMatchObject({ window_id: "@2", session_id: "$1", pane_count: 2 })
    expect(okResult(await runTool(layer, "get_session_info"))).toMatchObject({ session_id: "$1", session_name: "b" })
    expect(okResult(await runTool(layer, "where_am_i"))).toMatchObject({ window_id: "@2", session_id: "$1" })
  })

  it("say the caller's pane is gone instead of picking another", async () => {
    const w = world()
    twoSessions(w)
    const layer = w.layer({ env: callerEnv(w, "%2") })
    w.tmuxOk("kill-pane", "-t", "%2")
    const error = errorMeta(await runTool(layer, "get_pane_info"))
    expect(error.code).toBe("not_found")
    expect(error.text).toContain("%2")
    expect(errorMeta(await runTool(layer, "get_window_info")).code).toBe("not_found")
    expect(errorMeta(await runTool(layer, "get_session_info")).code).toBe("not_found")
    expect(okResult(await runTool(layer, "where_am_i"))).toMatchObject({ caller_status: "pane_gone", pane_id: null })
  })
})

describe("is_attended", () => {
  it("marks the panes a person's client shows: the current window, or only the active pane when zoomed", async () => {
    const w = world()
    twoSessions(w)
    const client = await attachTerminalClient(w, "a")
    defer(client.close)
    const layer = w.layer()

    // "a" shows its newest window, @1.
    expect(flagsById(okResult(await runTool(layer, "list_panes")), "is_attended")).toEqual({
      "%0": false,
      "%1": false,
      "%2": true,
      "%3": false
    })
    expect(okResult(await runTool(layer, "get_pane_info", { pane_id: "%2" })).is_attended).toBe(true)

    w.tmuxOk("select-window", "-t", "@0")
    expect(flagsById(okResult(await runTool(layer, "list_panes")), "is_attended")).toEqual({
      "%0": true,
      "%1": true,
      "%2": false,
      "%3": false
    })

    w.tmuxOk("select-pane", "-t", "%0")
    w.tmuxOk("resize-pane", "-Z", "-t", "%0")
    expect(w.tmuxOk("display-message", "-p", "-t", "@0", "#{window_zoomed_flag}").trim()).toBe("1")
    expect(flagsById(okResult(await runTool(layer, "list_panes")), "is_attended")).toEqual({
      "%0": true,
      "%1": false,
      "%2": false,
      "%3": false
    })
    const windows = okResult(await runTool(layer, "list_windows", { session_id: "$0", fields: ["zoomed", "active"] }))
    expect(windows.items.map((x: any) => [x.window_id, x.zoomed, x.active])).toEqual([
      ["@0", true, true],
      ["@1", false, false]
    ])
  })

  it("a control-mode client is a program, not a person: nothing is attended", async () => {
    const w = world()
    twoSessions(w)
    const client = await attachControlClient(w, "a")
    defer(client.close)
    const layer = w.layer()
    expect(flagsById(okResult(await runTool(layer, "list_panes")), "is_attended")).toEqual({
      "%0": false,
      "%1": false,
      "%2": false,
      "%3": false
    })
    // tmux itself still counts the control client as attached.
    expect(okResult(await runTool(layer, "get_session_info", { session_id: "$0" })).session_attached).toBe(1)
  })
})
