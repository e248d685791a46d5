/**
 * What the server tells a client about where it runs: the instructions (seed 003 test 7, the
 * 2048-byte cap), and the tmux://self resource. "Inside tmux" is a real pane of a private server,
 * given to the spawned server as TMUX / TMUX_PANE.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorld, ok, serve, type Served, type World } from "./harness.js"

const MAX_INSTRUCTIONS_BYTES = 2048
const bytes = (text: string) => Buffer.byteLength(text, "utf8")

const instructionsOf = (server: Served): string => {
  const text = server.client.getInstructions()
  if (text === undefined) throw new Error("the server sent no instructions")
  return text
}

describe("outside tmux", () => {
  let world: World
  let server: Served

  beforeAll(async () => {
    world = makeWorld()
    server = await serve(world)
  })
  afterAll(async () => {
    await server?.close()
    world?.dispose()
  })

  it("seed 003 test 7: with TMUX_PANE unset the instructions say there is no 'self' and point at where_am_i / list_servers, within 2048 bytes", () => {
    const text = instructionsOf(server)
    expect(bytes(text)).toBeLessThanOrEqual(MAX_INSTRUCTIONS_BYTES)
    expect(text).toContain("NOT running inside tmux")
    expect(text).toContain("there is no 'self'")
    expect(text).toContain("where_am_i")
    expect(text).toContain("list_servers")
    // It names the socket the tools will query and why.
    expect(text).toContain(world.socketName)
    expect(text).toContain("LIBTMUX_SOCKET")
  })

  it("tmux://self is listed by resources/list", async () => {
    const { resources } = await server.client.listResources()
    const self = resources.find((resource) => resource.uri === "tmux://self")
    expect(self).toBeDefined()
    expect(self?.mimeType).toBe("application/json")
  })

  it("tmux://self reads as the where_am_i payload", async () => {
    const read = await server.client.readResource({ uri: "tmux://self" })
    expect(read.contents).toHaveLength(1)
    const content = read.contents[0]!
    expect(content.uri).toBe("tmux://self")
    const payload = JSON.parse((content as { text: string }).text)
    expect(payload).toMatchObject({
      inside_tmux: false,
      caller_status: "outside_tmux",
      pane_id: null,
      server_running: false,
      live_server_count: 0,
      effective_socket_name: world.socketName,
      effective_socket_path: world.socketPath,
      safety_level: "mutating",
      suppress_history: true
    })
    expect(payload).toEqual(ok(await server.call("where_am_i")))
  })

  it("an unknown resource is a JSON-RPC error", async () => {
    await expect(server.client.readResource({ uri: "tmux://nothing" })).rejects.toThrow(/Unknown resource/)
  })
})

describe("inside tmux (TMUX and TMUX_PANE of a real pane)", () => {
  let world: World
  let caller: ReturnType<World["startTmux"]>
  let tmuxVariable: string

  beforeAll(() => {
    world = makeWorld()
    caller = world.startTmux()
    tmuxVariable = `${caller.socketPath},${caller.pid},0`
  })
  afterAll(() => world?.dispose())

  it("the instructions name the caller pane and say the tools query that same socket, within 2048 bytes; where_am_i and tmux://self agree", async () => {
    // No LIBTMUX_SOCKET: the caller's socket is the effective one.
    const server = await serve(world, { env: { LIBTMUX_SOCKET: undefined, TMUX: tmuxVariable, TMUX_PANE: caller.paneId } })
    try {
      const text = instructionsOf(server)
      expect(bytes(text)).toBeLessThanOrEqual(MAX_INSTRUCTIONS_BYTES)
      expect(text).toContain(`inside tmux pane ${caller.paneId}`)
      expect(text).toContain(caller.socketPath)
      expect(text).toContain("same server")
      expect(text).not.toContain("NOT running inside tmux")
      expect(text).not.toContain("DIFFERENT")

      const where = ok(await server.call("where_am_i"))
      expect(where).toMatchObject({
        inside_tmux: true,
        caller_status: "live",
        caller_source: "environment",
        pane_id: caller.paneId,
        effective_socket_path: caller.socketPath,
        socket_rule: "caller ($TMUX)",
        targets_caller_server: true,
        server_running: true,
        server_pid: caller.pid
      })
      // The caller's socket is the effective one: said once.
      expect(where).not.toHaveProperty("caller_socket_path")
      expect(where.window_id).toMatch(/^@\d+$/)
      expect(where.session_id).toMatch(/^\$\d+$/)

      const self = await server.client.readResource({ uri: "tmux://self" })
      expect(JSON.parse((self.contents[0] as { text: string }).text)).toMatchObject({ inside_tmux: true, pane_id: caller.paneId })

      const panes = ok(await server.call("list_panes"))
      expect(panes.items.filter((pane: { is_caller: boolean }) => pane.is_caller === true).map((p: { pane_id: string }) => p.pane_id))
        .toEqual([
          caller.paneId
        ])
      // The caller's own pane is the default target of get_pane_info.
      expect(ok(await server.call("get_pane_info")).pane_id).toBe(caller.paneId)
    } finally {
      await server.close()
    }
  })

  it("kill_server refuses the server the caller runs in", async () => {
    const server = await serve(world, {
      env: { LIBTMUX_SOCKET: undefined, LIBTMUX_SAFETY: "destructive", TMUX: tmuxVariable, TMUX_PANE: caller.paneId }
    })
    try {
      const result = await server.call("kill_server")
      expect(result.isError).toBe(true)
      expect((result._meta as Record<string, { code: string }>)["effect-tmux-mcp/error"]?.code).toBe("denied")
      expect(world.tmux(["has-session", "-t", "main"]).status).toBe(0)
    } finally {
      await server.close()
    }
  })

  it("when LIBTMUX_SOCKET points elsewhere, the instructions say the tools query a different server and name it", async () => {
    const other = `${world.socketName}-other`
    const server = await serve(world, { env: { LIBTMUX_SOCKET: other, TMUX: tmuxVariable, TMUX_PANE: caller.paneId } })
    try {
      const text = instructionsOf(server)
      expect(bytes(text)).toBeLessThanOrEqual(MAX_INSTRUCTIONS_BYTES)
      expect(text).toContain(`inside tmux pane ${caller.paneId}`)
      expect(text).toContain("DIFFERENT server")
      expect(text).toContain(world.socketPathOf(other))
      const where = ok(await server.call("where_am_i"))
      expect(where).toMatchObject({ inside_tmux: true, targets_caller_server: false, effective_socket_name: other, server_running: false })
    } finally {
      await server.close()
    }
  })

  it("instructions stay within 2048 bytes with very long socket names, inside tmux and out", async () => {
    const long = `etm-${"x".repeat(900)}`
    for (
      const env of [
        { LIBTMUX_SOCKET: long, TMUX: tmuxVariable, TMUX_PANE: caller.paneId },
        { LIBTMUX_SOCKET: long, TMUX: undefined, TMUX_PANE: undefined }
      ]
    ) {
      const server = await serve(world, { env })
      try {
        const text = instructionsOf(server)
        expect(bytes(text)).toBeLessThanOrEqual(MAX_INSTRUCTIONS_BYTES)
        expect(text).toMatch(/^Context: /)
        expect(text).toContain("Safety level: mutating")
      } finally {
        await server.close()
      }
    }
  })
})
