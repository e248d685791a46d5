/**
 * The server process as an operator sees it: it exits with code 0 on stdin EOF, SIGTERM and SIGINT,
 * even with a tmux call in flight, and leaves no child behind; every tool call leaves one audit line
 * on stderr and nothing but protocol on stdout.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, isRunning, makeWorld, ok, processesMentioning, serve, type Served, within, type World } from "./harness.js"

const EXIT_BOUND_MS = 8_000

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls until `check` holds or the bound passes; returns whether it held. */
const eventually = async (check: () => boolean, boundMs = 5_000): Promise<boolean> => {
  for (let waited = 0; waited < boundMs; waited += 50) {
    if (check()) return true
    await pause(50)
  }
  return check()
}

/**
 * A "tmux" that never answers: it records its pid and sleeps, so a tool call stays in flight
 * (with a child process) while the server is told to stop.
 */
const hangingTmux = (world: World): { readonly bin: string; readonly pids: () => Array<number> } => {
  const bin = join(world.dir, "hanging-tmux")
  const pidFile = join(world.dir, "hanging-tmux.pids")
  // It says it is tmux when asked (the start-up check), and hangs on everything else.
  writeFileSync(bin, `#!/bin/sh\n[ "$1" = -V ] && { echo 'tmux 3.3a'; exit 0; }\necho $$ >> '${pidFile}'\nexec sleep 60\n`)
  chmodSync(bin, 0o755)
  return {
    bin,
    pids: () => (existsSync(pidFile) ? readFileSync(pidFile, "utf8").trim().split("\n").filter(Boolean).map(Number) : [])
  }
}

type Stop = "stdin EOF" | "SIGTERM" | "SIGINT"

const stop = (server: Served, how: Stop) => {
  if (how === "stdin EOF") server.child.stdin?.end()
  else server.child.kill(how)
}

describe("lifecycle", () => {
  let world: World
  beforeAll(() => {
    world = makeWorld()
  })
  afterAll(() => world?.dispose())

  for (const how of ["stdin EOF", "SIGTERM", "SIGINT"] as const) {
    it(`exits with code 0 on ${how} while a tmux call is in flight, and kills that tmux child`, async () => {
      const tmux = hangingTmux(world)
      const before = tmux.pids().length
      // exec: the transport whose calls are tmux children (the socket transport runs none for this call).
      const server = await serve(world, { env: { LIBTMUX_TMUX_BIN: tmux.bin, LIBTMUX_MCP_TRANSPORT: "exec" } })
      const inFlight = server.call("list_sessions").then(
        () => "answered",
        () => "rejected"
      )
      expect(await eventually(() => tmux.pids().length > before)).toBe(true)
      const child = tmux.pids()[before]!
      expect(isRunning(child)).toBe(true)

      stop(server, how)
      const exit = await within(server.exited, EXIT_BOUND_MS, `exit after ${how}`)
      expect(exit).toEqual({ code: 0, signal: null })
      expect(await inFlight).toBe("rejected")
      expect(await eventually(() => !isRunning(child))).toBe(true)
      expect(server.stderr()).not.toMatch(/defect|fatal/i)
      await server.close()
    })
  }

  it("exits with code 0 on SIGTERM after real tmux work, leaving only the tmux server start_server started", async () => {
    const server = await serve(world)
    const started = ok(await server.call("start_server"))
    ok(await server.call("list_panes"))
    ok(await server.call("where_am_i"))
    server.child.kill("SIGTERM")
    expect(await within(server.exited, EXIT_BOUND_MS, "exit after SIGTERM")).toEqual({ code: 0, signal: null })
    expect(isRunning(server.pid)).toBe(false)
    // No tmux client of ours is left; the server start_server started keeps running, as it says.
    expect(processesMentioning(world.socketName, [started.pid])).toEqual([])
    expect(isRunning(started.pid)).toBe(true)
    expect(world.tmux(["kill-server"]).status).toBe(0)
    await server.close()
  })

  it("client.close() (stdin EOF first, as the SDK does it) ends the server with code 0", async () => {
    const server = await serve(world)
    await server.close()
    expect(await within(server.exited, EXIT_BOUND_MS, "exit after close")).toEqual({ code: 0, signal: null })
  })
})

describe("audit", () => {
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

  it("writes one JSON audit line per tool call on stderr with tool, outcome, error_code and duration_ms", async () => {
    const before = (await server.audit()).length
    ok(await server.call("where_am_i"))
    errorOf(await server.call("list_sessions"))
    errorOf(await server.call("kill_server"))
    const lines = (await server.audit()).slice(before)
    expect(lines.map((line) => [line.tool, line.outcome, line.error_code])).toEqual([
      ["where_am_i", "ok", null],
      ["list_sessions", "error", "no_server"],
      ["kill_server", "error", "denied"]
    ])
    for (const line of lines) {
      expect(line.duration_ms).toBeTypeOf("number")
      expect(line.duration_ms).toBeGreaterThanOrEqual(0)
      expect(line.arguments).toEqual({})
    }
  })

  it("never writes the audit (or anything but JSON-RPC) on stdout", async () => {
    ok(await server.call("list_servers"))
    await server.audit()
    const stdout = server.stdout()
    expect(stdout.length).toBeGreaterThan(0)
    for (const line of stdout.split("\n").filter((l) => l !== "")) {
      const message = JSON.parse(line)
      expect(message.jsonrpc).toBe("2.0")
      expect(message.audit).toBeUndefined()
    }
    expect(stdout).not.toContain("\"audit\"")
    expect(server.protocolErrors).toEqual([])
  })

  it("redacts payload-like arguments (length + hash) and cuts long strings; the error does not echo them", async () => {
    const secret = "SECRET-e2e-7f3a9c"
    const long = `x${"y".repeat(400)}`
    const before = (await server.audit()).length
    const error = errorOf(await server.call("list_sessions", { text: secret, keys: [secret], socket_name: long }))
    expect(error.code).toBe("invalid_input")
    expect(error.text).not.toContain(secret)
    const [line] = (await server.audit()).slice(before)
    expect(line?.tool).toBe("list_sessions")
    expect(line?.arguments.text).toEqual({ length: secret.length, sha256: expect.stringMatching(/^[0-9a-f]{12}$/) })
    expect(line?.arguments.keys).toMatchObject({ sha256: expect.stringMatching(/^[0-9a-f]{12}$/) })
    expect(line?.arguments.socket_name).toMatch(/\(401 chars\)$/)
    expect(server.stderr()).not.toContain(secret)
    expect(server.stderr()).not.toContain(long)
  })
})
