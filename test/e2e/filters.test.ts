/**
 * Issue 14 item 7 over stdio: the list tools' `where` and list_panes' neighbour keys, as an MCP
 * client sends them (the SDK client checks every structuredContent against the outputSchema).
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, makeWorld, ok, serve, type Served, type World } from "./harness.js"

const ids = (page: any): Array<string> => page.items.map((pane: any) => pane.pane_id)

describe("where over stdio", () => {
  let world: World
  let server: Served
  let panes: ReadonlyArray<string>
  const tmux = (...args: Array<string>) => {
    const result = world.tmux(args)
    if (result.status !== 0) throw new Error(result.stderr)
    return result.stdout.trim()
  }

  beforeAll(async () => {
    world = makeWorld()
    // A 2×2 grid of sleeps: top-left, top-right, bottom-left, bottom-right.
    const topLeft = tmux("new-session", "-d", "-s", "grid", "-x", "81", "-y", "25", "-P", "-F", "#{pane_id}", "sleep 600")
    const topRight = tmux("split-window", "-h", "-t", topLeft, "-P", "-F", "#{pane_id}", "sleep 600")
    const bottomLeft = tmux("split-window", "-v", "-t", topLeft, "-P", "-F", "#{pane_id}", "sleep 600")
    const bottomRight = tmux("split-window", "-v", "-t", topRight, "-P", "-F", "#{pane_id}", "sleep 600")
    panes = [topLeft, topRight, bottomLeft, bottomRight]
    tmux("new-session", "-d", "-s", "other", "sh")
    server = await serve(world)
  })
  afterAll(async () => {
    await server?.close()
    world?.dispose()
  })

  it("filters panes, windows and sessions before paging; a hostile value is matched literally", async () => {
    const [topLeft] = panes
    const marker = join(world.dir, "ran")
    tmux("select-pane", "-t", topLeft!, "-T", `##(touch ${marker})`)
    expect(ids(ok(await server.call("list_panes", { where: { title: `#(touch ${marker})` } })))).toEqual([topLeft])
    expect(existsSync(marker)).toBe(false)
    const grid = ok(await server.call("list_panes", { where: { session_name: "grid" }, limit: 2 }))
    expect(grid).toMatchObject({ total: 4, truncated: true })
    expect(ids(grid)).toEqual(panes.slice(0, 2))
    expect(ok(await server.call("list_windows", { where: { session_name: "^oth", regex: true } })).total).toBe(1)
    expect(ok(await server.call("list_sessions", { where: { window_count: 1, session_name: "grid" } })).items).toEqual([
      expect.objectContaining({ session_name: "grid" })
    ])
  })

  it("right_of / left_of / above / below list the panes beside a pane", async () => {
    const [topLeft, topRight, bottomLeft, bottomRight] = panes
    expect(ids(ok(await server.call("list_panes", { where: { right_of: topLeft } })))).toEqual([topRight])
    expect(ids(ok(await server.call("list_panes", { where: { below: topRight } })))).toEqual([bottomRight])
    expect(ids(ok(await server.call("list_panes", { where: { above: bottomLeft } })))).toEqual([topLeft])
    expect(ok(await server.call("list_panes", { where: { left_of: topLeft } }))).toMatchObject({ items: [], total: 0 })
  })

  it("an unknown key, a bad type or a bad regex is invalid_input that names no value", async () => {
    const unknown = errorOf(await server.call("list_panes", { where: { colour: "secret-value" } }))
    expect(unknown.code).toBe("invalid_input")
    expect(unknown.text).toContain("\"command\"")
    expect(unknown.text).not.toContain("secret-value")
    expect(errorOf(await server.call("list_windows", { where: { active: "yes" } })).code).toBe("invalid_input")
    const regex = errorOf(await server.call("list_sessions", { where: { session_name: "(secret", regex: true } }))
    expect(regex.code).toBe("invalid_input")
    expect(regex.text).not.toContain("secret")
  })
})
