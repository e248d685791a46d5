import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { makePrivateTmux, type PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"

let world: PrivateTmux
beforeEach(() => {
  world = makePrivateTmux()
})
afterEach(() => world.dispose())

describe("list tools on real tmux", () => {
  it("lists sessions, windows and panes of a live server in numeric id order", async () => {
    world.tmuxOk("new-session", "-d", "-s", "alpha", "-x", "80", "-y", "24")
    world.tmuxOk("split-window", "-t", "alpha")
    world.tmuxOk("new-session", "-d", "-s", "beta")
    const layer = world.layer()
    const sessions = okResult(await runTool(layer, "list_sessions"))
    expect(sessions.items.map((s: any) => s.session_name)).toEqual(["alpha", "beta"])
    expect(sessions.total).toBe(2)
    const panes = okResult(await runTool(layer, "list_panes"))
    expect(panes.items.map((p: any) => p.pane_id)).toEqual(["%0", "%1", "%2"])
    expect(panes.items.every((p: any) => p.is_caller === null && p.is_attended === false)).toBe(true)
  })

  it("returns empty pages on a live server without sessions, and no_server on a dead socket", async () => {
    const layer = world.layer()
    expect(errorMeta(await runTool(layer, "list_panes")).code).toBe("no_server")
    expect(okResult(await runTool(layer, "start_server")).started).toBe(true)
    expect(okResult(await runTool(layer, "list_panes")).items).toEqual([])
    expect(okResult(await runTool(layer, "list_windows")).items).toEqual([])
    expect(okResult(await runTool(layer, "get_server_info"))).toMatchObject({ is_alive: true, session_count: 0 })
  })
})
