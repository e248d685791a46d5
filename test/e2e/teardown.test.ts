/**
 * kill_session, kill_window and kill_pane through the built server over stdio (the SDK client
 * checks every structuredContent against the tool's outputSchema), plus the refusal of the
 * caller's own pane.
 */
import { afterEach, describe, expect, it } from "vitest"
import { errorOf, makeWorld, ok, serve, type World } from "./harness.js"

const worlds: Array<World> = []
afterEach(() => {
  for (const world of worlds.splice(0)) world.dispose()
})

const newWorld = () => {
  const world = makeWorld()
  worlds.push(world)
  return world
}

const ids = (world: World, args: ReadonlyArray<string>) => [
  ...new Set(
    world
      .tmux(args)
      .stdout.split("\n")
      .filter((line) => line !== "")
  )
]

describe("teardown over stdio", () => {
  it("kills one pane, one window and one session, each reported with what went with it", async () => {
    const world = newWorld()
    const main = world.startTmux()
    // main: @0 with %0 + %1, @1 "logs" with %2; other: @2 with %3.
    expect(world.tmux(["split-window", "-t", "main"]).status).toBe(0)
    expect(world.tmux(["new-window", "-d", "-t", "main", "-n", "logs"]).status).toBe(0)
    expect(world.tmux(["new-session", "-d", "-s", "other"]).status).toBe(0)
    const server = await serve(world, { env: { LIBTMUX_SAFETY: "destructive" } })
    try {
      const names = server.tools.map((tool) => tool.name)
      expect(names).toEqual(expect.arrayContaining(["kill_session", "kill_window", "kill_pane"]))
      for (const name of ["kill_session", "kill_window", "kill_pane"]) {
        expect(server.tools.find((tool) => tool.name === name)?.annotations).toMatchObject({
          readOnlyHint: false,
          destructiveHint: true,
          idempotentHint: false
        })
      }

      const pane = ok(await server.call("kill_pane", { pane_id: "%1" }))
      expect(pane).toMatchObject({ killed: "pane", id: "%1", pane_ids_closed: ["%1"], windows_closed: [], server_exited: false })
      expect(ids(world, ["list-panes", "-a", "-F", "#{pane_id}"])).toEqual([main.paneId, "%2", "%3"])

      const window = ok(await server.call("kill_window", { window_id: "@1" }))
      expect(window).toMatchObject({
        killed: "window",
        name: "logs",
        windows_closed: [{ window_id: "@1", window_name: "logs" }],
        pane_ids_closed: ["%2"],
        sessions_remaining: 2
      })
      expect(ids(world, ["list-windows", "-a", "-F", "#{window_id}"])).toEqual(["@0", "@2"])

      const session = ok(await server.call("kill_session", { session_id: "$1" }))
      expect(session).toMatchObject({
        killed: "session",
        name: "other",
        sessions_closed: [{ session_id: "$1", session_name: "other" }],
        pane_ids_closed: ["%3"],
        sessions_remaining: 1,
        server_exited: false,
        generation: `${main.pid}.${world.tmux(["display-message", "-p", "#{start_time}"]).stdout.trim()}`
      })
      expect(ids(world, ["list-sessions", "-F", "#{session_name}"])).toEqual(["main"])
      expect(server.protocolErrors).toEqual([])
    } finally {
      await server.close()
    }
  })

  it("refuses to kill the caller's own pane, window and session; they still exist", async () => {
    const world = newWorld()
    const caller = world.startTmux()
    const server = await serve(world, {
      env: { LIBTMUX_SAFETY: "destructive", TMUX: `${caller.socketPath},${caller.pid},0`, TMUX_PANE: caller.paneId }
    })
    try {
      const pane = errorOf(await server.call("kill_pane", { pane_id: caller.paneId }))
      expect(pane.code).toBe("denied")
      expect(pane.text).toContain(`Refusing to kill pane ${caller.paneId}`)
      expect(pane.text).toContain("the pane this MCP server runs in")
      expect(pane.effects).toBe("none")
      for (
        const [name, args] of [
          ["kill_window", { window_id: "@0" }],
          ["kill_session", { session_id: "$0" }]
        ] as const
      ) {
        const error = errorOf(await server.call(name, args))
        expect({ name, code: error.code }).toEqual({ name, code: "denied" })
        expect(error.text).toContain(`contains the pane this MCP server runs in (${caller.paneId})`)
      }
      expect(world.tmux(["has-session", "-t", "main"]).status).toBe(0)
      expect(ids(world, ["list-panes", "-a", "-F", "#{pane_id}"])).toEqual([caller.paneId])
    } finally {
      await server.close()
    }
  })

  it("at the default safety level the teardown tools are not listed and are denied", async () => {
    const world = newWorld()
    world.startTmux()
    const server = await serve(world)
    try {
      const names = server.tools.map((tool) => tool.name)
      for (const name of ["kill_session", "kill_window", "kill_pane"]) expect(names).not.toContain(name)
      const error = errorOf(await server.call("kill_session", { session_id: "$0" }))
      expect(error.code).toBe("denied")
      expect(error.hint).toContain("LIBTMUX_SAFETY=destructive")
      expect(world.tmux(["has-session", "-t", "main"]).status).toBe(0)
    } finally {
      await server.close()
    }
  })
})
