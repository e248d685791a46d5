/**
 * create_session, create_window, split_window and respawn_pane through the built server over
 * stdio, as an MCP client drives them: the "Done when" lines, both create_session
 * contracts, owned sessions at shutdown, generations, the caller guard and input refusals. The SDK
 * client checks every structuredContent against the listed outputSchema.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { killHoldingExiting } from "../support/ExitingServer.js"
import { errorOf, makeWorld, ok, serve, type Served, within, type World } from "./harness.js"

const EXIT_BOUND_MS = 8_000

const worlds: Array<World> = []
const servers: Array<Served> = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close().catch(() => undefined)
  for (const world of worlds.splice(0)) world.dispose()
})

const freshWorld = () => {
  const world = makeWorld()
  worlds.push(world)
  return world
}

const start = async (world: World, env: Record<string, string> = {}) => {
  const server = await serve(world, { env })
  servers.push(server)
  return server
}

const lines = (text: string) => text.split("\n").filter((line) => line !== "")

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls until the check yields a value; a bound for waiting, not a timing assertion. */
const eventually = async <A>(what: string, check: () => Promise<A | undefined> | A | undefined, boundMs = 10_000): Promise<A> => {
  for (let waited = 0;; waited += 50) {
    const value = await check()
    if (value !== undefined) return value
    if (waited > boundMs) throw new Error(`timed out waiting for ${what}`)
    await pause(50)
  }
}

const waitForText = (server: Served, paneId: string, text: string) =>
  eventually(`${JSON.stringify(text)} in ${paneId}`, async () => {
    const content: string = ok(await server.call("capture_pane", { pane_id: paneId })).content
    return content.includes(text) ? content : undefined
  })

const sessionNames = (world: World) => {
  const listed = world.tmux(["list-sessions", "-F", "#{session_name}"])
  return listed.status === 0 ? lines(listed.stdout).sort() : []
}

describe("Done when (issue 3), over stdio", () => {
  it("on a fresh private socket: no_server and no socket file without allow_server_start; then server_started true, then false", async () => {
    const world = freshWorld()
    const server = await start(world)
    const refused = errorOf(await server.call("create_session", { session_name: "first" }))
    expect(refused.code).toBe("no_server")
    expect(refused.hint).toContain("allow_server_start")
    expect(world.socketFiles()).toEqual([])

    const started = ok(await server.call("create_session", { session_name: "first", allow_server_start: true }))
    expect(started).toMatchObject({ session_name: "first", server_started: true, owned: false, socket_path: world.socketPath })
    const again = ok(await server.call("create_session", { session_name: "second", allow_server_start: true }))
    expect(again.server_started).toBe(false)
    expect(again.generation).toBe(started.generation)
    expect(sessionNames(world)).toEqual(["first", "second"])
  })

  it("create_session(command=[\"sh\",\"-c\",\"echo \\\"$1\\\"; exec sleep 600\",\"sh\",\"$HOME\"]) shows the literal $HOME", async () => {
    const world = freshWorld()
    const server = await start(world, { LIBTMUX_ALLOW_SERVER_START: "1" })
    const created = ok(await server.call("create_session", { command: ["sh", "-c", "echo \"$1\"; exec sleep 600", "sh", "$HOME"] }))
    expect(created.server_started).toBe(true)
    const screen = await waitForText(server, created.active_pane_id, "$HOME")
    expect(lines(screen)[0]).toBe("$HOME")
    expect(screen).not.toContain(world.dir)
  })

  it("split_window in each direction returns the new pane with every field asked for, placed there, in the split pane's directory", async () => {
    const world = freshWorld()
    world.startTmux()
    const server = await start(world)
    const project = join(world.dir, "project dir")
    mkdirSync(project)
    // Not the session's current window, and not where this server (or tmux's default) would start a pane.
    const { pane: original } = ok(
      await server.call("create_window", {
        session_id: "$0",
        start_directory: project,
        window_name: "w",
        fields: ["window_id", "window_index", "cwd"]
      })
    )
    expect(original.cwd).toBe(project)
    const relations = {
      below: (n: any, o: any) => n.top > o.top,
      above: (n: any, o: any) => n.top < o.top,
      right: (n: any, o: any) => n.left > o.left,
      left: (n: any, o: any) => n.left < o.left
    } as const
    for (const [direction, placed] of Object.entries(relations)) {
      const { pane } = ok(await server.call("split_window", { pane_id: original.pane_id, direction, fields: "all" }))
      const now = ok(await server.call("get_pane_info", { pane_id: original.pane_id }))
      expect({ direction, placed: placed(pane, now) }).toEqual({ direction, placed: true })
      expect(pane).toMatchObject({
        window_id: original.window_id,
        window_index: original.window_index,
        window_name: "w",
        session_id: "$0",
        session_name: "main",
        active: false,
        dead: false,
        cwd: project,
        title: expect.any(String),
        command: expect.any(String),
        is_caller: null,
        is_attended: false,
        // Seed 004's pane view: where the pane is reachable (issue 31).
        placements: [{ session_id: "$0", session_name: "main", window_index: original.window_index }],
        placements_complete: true
      })
      expect(pane.pane_id).toMatch(/^%\d+$/)
      expect(pane.pane_index).toBeTypeOf("number")
      expect(pane.width).toBeGreaterThan(0)
      expect(pane.height).toBeGreaterThan(0)
    }
    expect(lines(world.tmux(["list-panes", "-t", original.window_id, "-F", "#{pane_id}"]).stdout)).toHaveLength(5)
    // Linked into a second session, the window's new pane is placed in both.
    expect(world.tmux(["new-session", "-d", "-s", "other", "sh", ";", "link-window", "-s", original.window_id, "-t", "other:4"]).status)
      .toBe(0)
    const { pane: linked } = ok(await server.call("split_window", { pane_id: original.pane_id, fields: "all" }))
    expect(linked.placements).toEqual([
      { session_id: "$0", session_name: "main", window_index: original.window_index },
      { session_id: "$1", session_name: "other", window_index: 4 }
    ])
    expect(linked).toMatchObject({ placements_complete: true, is_caller: null, is_attended: false })
  })

  it("no string argument makes tmux run a command: names and directories read back exactly", async () => {
    const world = freshWorld()
    world.startTmux()
    const server = await start(world)
    const names = { session: "#(cd;touch m1) #{pane_pid}", window: "#{session_id} #(cd;touch m2)" }
    const directory = join(world.dir, "#(cd;touch m3) #{pane_id}")
    mkdirSync(directory)
    const created = ok(
      await server.call("create_session", { session_name: names.session, window_name: names.window, start_directory: directory })
    )
    expect(created.session_name).toBe(names.session)
    const split = ok(
      await server.call("split_window", { pane_id: created.active_pane_id, fields: ["window_name", "session_name", "cwd"] })
    )
    expect(split.pane).toMatchObject({ window_name: names.window, session_name: names.session, cwd: directory })
    const listed = ok(await server.call("list_sessions")).items.map((s: any) => s.session_name)
    expect(listed).toEqual(["main", names.session])
    for (const marker of ["m1", "m2", "m3"]) expect({ marker, ran: existsSync(join(world.dir, marker)) }).toEqual({ marker, ran: false })
  })
})

describe("create_session contracts over stdio", () => {
  it("session_name, window_name, x/y, `~` start directory and environment as an object", async () => {
    const world = freshWorld()
    world.startTmux()
    mkdirSync(join(world.dir, "home project"))
    const server = await start(world)
    const created = ok(
      await server.call("create_session", {
        session_name: "py",
        window_name: "editor",
        x: 120,
        y: 40,
        start_directory: "~/home project",
        environment: { ETM_OBJ: "object value" },
        suppress_persistent_history: true
      })
    )
    expect(created).toMatchObject({ session_name: "py", window_count: 1, session_attached: 0, server_started: false })
    const window = ok(await server.call("get_window_info", { window_id: created.active_window_id }))
    expect(window).toMatchObject({ window_name: "editor", width: 120, height: 40 })
    const pane = ok(await server.call("get_pane_info", { pane_id: created.active_pane_id }))
    expect(pane.cwd).toBe(join(world.dir, "home project"))
    const environment = lines(world.tmux(["show-environment", "-t", "py"]).stdout)
    expect(environment).toEqual(expect.arrayContaining(["ETM_OBJ=object value", "HISTFILE="]))
  })

  it("an argv command with environment as a JSON string, and a one-element argv that is not run by a shell", async () => {
    const world = freshWorld()
    world.startTmux()
    const server = await start(world)
    const created = ok(
      await server.call("create_session", {
        session_name: "julia",
        command: ["sh", "-c", `printf '[%s]\\n' "$ETM_JSON"; exec sleep 600`],
        environment: JSON.stringify({ ETM_JSON: "json value" })
      })
    )
    await waitForText(server, created.active_pane_id, "[json value]")

    const program = join(world.dir, "my prog $HOME;x")
    const record = join(world.dir, "argv0")
    writeFileSync(program, `#!/bin/sh\nprintf '%s' "$0" > '${record}'\nexec sleep 600\n`)
    chmodSync(program, 0o755)
    ok(await server.call("create_session", { session_name: "single", command: [program] }))
    expect(await eventually("the program to run", () => (existsSync(record) ? readFileSync(record, "utf8") : undefined))).toBe(program)
  })
})

/**
 * create_session(allow_server_start) racing a real kill-server over stdio (issue 30 item 11): the
 * old server held exiting by a client (ExitingServer.ts) when the call comes, and kill-server
 * fired by the tmux CLI while calls are in flight.
 */
describe("create_session(allow_server_start) racing a kill-server, over stdio", () => {
  it("just before the call, the old server still exiting: the call waits it out and starts a new server", async () => {
    const world = freshWorld()
    const old = world.startTmux()
    const server = await start(world)
    const exiting = await killHoldingExiting(world.socketPath, (args) => world.tmux(args))
    const timer = setTimeout(exiting.release, 500)
    try {
      const created = ok(await server.call("create_session", { session_name: "new", allow_server_start: true }))
      expect(created).toMatchObject({ session_name: "new", server_started: true })
      expect(sessionNames(world)).toEqual(["new"])
      expect(Number(world.tmux(["display-message", "-p", "#{pid}"]).stdout.trim())).not.toBe(old.pid)
    } finally {
      clearTimeout(timer)
      exiting.release()
    }
  })

  it("kill-server fired while calls are in flight: every call makes its session (on the old server or a new one)", async () => {
    const world = freshWorld()
    const server = await start(world)
    for (let round = 0; round < 12; round++) {
      ok(await server.call("create_session", { session_name: `base${round}`, allow_server_start: true }))
      const call = server.call("create_session", { session_name: `raced${round}`, allow_server_start: true })
      // From before the call's probe to after its new-session, over the rounds.
      await pause(round % 4)
      // (The server may be gone already when the call started one late in the round before.)
      world.tmux(["kill-server"])
      const created = ok(await call)
      expect(created.session_name).toBe(`raced${round}`)
    }
  })
})

describe("owned sessions over stdio", () => {
  for (const stop of ["stdin EOF", "SIGTERM"] as const) {
    it(`are killed when the server exits on ${stop}; unowned ones stay`, async () => {
      const world = freshWorld()
      const server = await start(world, { LIBTMUX_ALLOW_SERVER_START: "1" })
      expect(ok(await server.call("create_session", { session_name: "owned", owned: true })).owned).toBe(true)
      ok(await server.call("create_session", { session_name: "kept" }))
      ok(await server.call("create_session", { session_name: "owned2", owned: true }))
      expect(sessionNames(world)).toEqual(["kept", "owned", "owned2"])
      if (stop === "stdin EOF") server.child.stdin?.end()
      else server.child.kill("SIGTERM")
      expect(await within(server.exited, EXIT_BOUND_MS, `exit after ${stop}`)).toEqual({ code: 0, signal: null })
      expect(sessionNames(world)).toEqual(["kept"])
    })
  }
})

describe("generation, guards and refusals over stdio", () => {
  it("a restart changes the generation; a stale one is refused with not_found and changes nothing", async () => {
    const world = freshWorld()
    world.startTmux()
    const server = await start(world)
    const created = ok(await server.call("create_window", { session_id: "$0" }))
    expect(created.window.session_id).toBe("$0")
    expect(world.tmux(["kill-server"]).status).toBe(0)
    // The old server may still be exiting: retry until a new one answers.
    await eventually("a new server", () => (world.tmux(["new-session", "-d", "-s", "main"]).status === 0 ? true : undefined))
    const now = ok(await server.call("get_server_info")).generation
    expect(now).not.toBe(created.generation)
    const before = world.tmux(["list-panes", "-a", "-F", "#{pane_id}"]).stdout
    for (
      const [tool, args] of [
        ["create_window", { session_id: "$0" }],
        ["split_window", { pane_id: "%0" }]
      ] as const
    ) {
      const error = errorOf(await server.call(tool, { ...args, generation: created.generation }))
      expect({ tool, code: error.code }).toEqual({ tool, code: "not_found" })
    }
    expect(world.tmux(["list-panes", "-a", "-F", "#{pane_id}"]).stdout).toBe(before)
    expect(ok(await server.call("split_window", { pane_id: "%0", generation: now })).generation).toBe(now)
  })

  it("respawn_pane refuses the caller's own pane and respawns another", async () => {
    const world = freshWorld()
    const caller = world.startTmux()
    world.tmux(["split-window", "-t", caller.paneId])
    const server = await start(world, { TMUX: `${caller.socketPath},${caller.pid},0`, TMUX_PANE: caller.paneId })
    const refused = errorOf(await server.call("respawn_pane", { pane_id: caller.paneId }))
    expect(refused.code).toBe("denied")
    expect(refused.text).toContain(caller.paneId)
    const other = lines(world.tmux(["list-panes", "-F", "#{pane_id}"]).stdout).find((id) => id !== caller.paneId)!
    const respawned = ok(await server.call("respawn_pane", { pane_id: other, command: ["sleep", "600"], fields: ["is_caller", "dead"] }))
    expect(respawned.pane).toMatchObject({ pane_id: other, is_caller: false, dead: false })
  })

  it("bad argv, directories and environment names are invalid_input", async () => {
    const world = freshWorld()
    world.startTmux()
    const server = await start(world)
    const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
      ["create_session", { command: [] }, "command"],
      ["create_session", { command: Array.from({ length: 33 }, () => "x") }, "command"],
      ["create_session", { command: ["echo", "x".repeat(1025)] }, "command"],
      ["create_session", { command: ["-rf"] }, "argv[0]"],
      ["create_session", { start_directory: join(world.dir, "missing") }, "does not exist"],
      ["create_session", { environment: { "BAD-NAME": "x" } }, "not a valid variable name"],
      ["create_window", { session_id: "$0", environment: "{not json" }, "environment"],
      ["split_window", { pane_id: "%0", size: "150%" }, "size"],
      ["respawn_pane", { pane_id: "%0", command: [""] }, "argv[0]"]
    ]
    for (const [tool, args, mentioned] of cases) {
      const error = errorOf(await server.call(tool, args))
      expect({ tool, code: error.code }).toEqual({ tool, code: "invalid_input" })
      expect(error.text).toContain(mentioned)
    }
    expect(sessionNames(world)).toEqual(["main"])
  })

  it("lists the four tools with their tiers and honest annotations", async () => {
    const world = freshWorld()
    const server = await start(world)
    const annotations = Object.fromEntries(
      server.tools.filter((tool) => ["create_session", "create_window", "split_window", "respawn_pane"].includes(tool.name)).map((tool) => [
        tool.name,
        {
          readOnly: tool.annotations?.readOnlyHint,
          destructive: tool.annotations?.destructiveHint,
          idempotent: tool.annotations?.idempotentHint,
          openWorld: tool.annotations?.openWorldHint
        }
      ])
    )
    const created = { readOnly: false, destructive: false, idempotent: false, openWorld: true }
    expect(annotations).toEqual({
      create_session: created,
      create_window: created,
      split_window: created,
      respawn_pane: { ...created, destructive: true }
    })
  })
})
