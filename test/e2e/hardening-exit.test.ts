/**
 * Issue 10 item 12, as an operator sees it: a tmux process that ignores SIGTERM does not outlive
 * the MCP server. The server is stopped with such a call in flight; afterwards no process of that
 * tmux is left.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { isRunning, makeWorld, runCli, serve, within, type World } from "./harness.js"

const EXIT_BOUND_MS = 8_000

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const eventually = async (check: () => boolean, boundMs = 5_000): Promise<boolean> => {
  for (let waited = 0; waited < boundMs; waited += 50) {
    if (check()) return true
    await pause(50)
  }
  return check()
}

/** A "tmux" that ignores SIGTERM and never answers; it and its `sleep` append their pids to a file. */
const stubbornTmux = (world: World, name: string) => {
  const bin = join(world.dir, name)
  const pidFile = `${bin}.pids`
  writeFileSync(bin, `#!/bin/sh\ntrap '' TERM\necho $$ >> '${pidFile}'\nsleep 300 &\necho $! >> '${pidFile}'\nwait\nwait\n`)
  chmodSync(bin, 0o755)
  return {
    bin,
    pids: () => (existsSync(pidFile) ? readFileSync(pidFile, "utf8").split("\n").filter(Boolean).map(Number) : [])
  }
}

describe("a tmux that ignores SIGTERM (item 12)", () => {
  let world: World
  const leftovers: Array<number> = []
  beforeAll(() => {
    world = makeWorld()
  })
  afterAll(() => {
    for (const pid of leftovers) if (isRunning(pid)) process.kill(pid, "SIGKILL")
    world?.dispose()
  })

  // The transport whose calls are tmux children (the socket transport runs none for this call).
  for (const transport of ["exec"] as const) {
    it(`does not outlive the server stopped by stdin EOF with a call in flight (${transport} transport)`, async () => {
      const tmux = stubbornTmux(world, `stubborn-${transport}`)
      const server = await serve(world, { env: { LIBTMUX_TMUX_BIN: tmux.bin, LIBTMUX_MCP_TRANSPORT: transport } })
      const inFlight = server.call("list_sessions").then(
        () => "answered",
        () => "rejected"
      )
      expect(await eventually(() => tmux.pids().length >= 2)).toBe(true)
      leftovers.push(...tmux.pids())
      server.child.stdin?.end()
      expect(await within(server.exited, EXIT_BOUND_MS, "exit after stdin EOF")).toEqual({ code: 0, signal: null })
      await inFlight
      const pids = tmux.pids()
      leftovers.push(...pids)
      expect(await eventually(() => pids.every((pid) => !isRunning(pid)))).toBe(true)
      await server.close()
    })
  }

  it("doctor ends a tmux -V that never answers at its deadline, says tmux is not runnable and leaves no process", async () => {
    const tmux = stubbornTmux(world, "stubborn-doctor")
    const started = Date.now()
    const run = await runCli(world, ["doctor"], { LIBTMUX_TMUX_BIN: tmux.bin })
    // 5 s deadline, 0.5 s + 0.5 s to end the process group; runCli itself gives up at 20 s.
    expect(Date.now() - started).toBeLessThan(12_000)
    expect(run.status).toBe(1)
    expect(run.stdout).toMatch(/NOT FOUND or not runnable/)
    const pids = tmux.pids()
    leftovers.push(...pids)
    expect(pids.length).toBeGreaterThanOrEqual(2)
    expect(await eventually(() => pids.every((pid) => !isRunning(pid)))).toBe(true)
  })
})
