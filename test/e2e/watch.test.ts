/**
 * wait_for_text, capture_since and snapshot_pane through the built server over stdio, as an MCP
 * client sees them: text already on screen is ignored and text printed later is found, a timeout
 * over the ceiling is clamped and reported, progress arrives for a client that asked, and a
 * cancelled wait stops at once, leaving no tmux child behind.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { childrenOf, isRunning, makeWorld, ok, serve, type World } from "./harness.js"

const worlds: Array<World> = []
afterEach(() => {
  for (const world of worlds.splice(0)) world.dispose()
})

const newWorld = () => {
  const world = makeWorld()
  worlds.push(world)
  return world
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls until `check` holds; fails after `boundMs` (a bound for waiting, not a timing assertion). */
const until = async (what: string, check: () => boolean, boundMs = 10_000) => {
  for (const deadline = Date.now() + boundMs; !check(); await pause(25)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
  }
}

/** A pane that runs each typed line with eval, without echo or prompt (see the integration tests). */
const printer = async (world: World) => {
  world.startTmux()
  const command = `stty -echo; printf 'ready\\n'; while IFS= read -r line; do eval "$line"; done`
  const paneId = world.tmux(["new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main", command]).stdout.trim()
  const screen = () => world.tmux(["capture-pane", "-p", "-t", paneId]).stdout.trimEnd()
  await until("the printer", () => screen() === "ready")
  const print = (line: string) => {
    expect(world.tmux(["send-keys", "-t", paneId, "-l", line]).status).toBe(0)
    expect(world.tmux(["send-keys", "-t", paneId, "Enter"]).status).toBe(0)
  }
  return { paneId, screen, print }
}

describe("watching panes over stdio", () => {
  it("wait_for_text ignores matching text already on screen, and a timeout over the ceiling is clamped and reported", async () => {
    const world = newWorld()
    const pane = await printer(world)
    pane.print("printf 'DONE already\\n'")
    await until("the early text", () => pane.screen().endsWith("DONE already"))
    const server = await serve(world, { env: { LIBTMUX_MCP_WAIT_MAX_SECONDS: "2" } })
    try {
      const result = ok(await server.call("wait_for_text", { pane_id: pane.paneId, patterns: ["DONE"], timeout: 100 }))
      expect(result).toMatchObject({
        outcome: "timeout",
        matched_lines: [],
        tail: "",
        effective_timeout: 2,
        timeout_clamped: true
      })
      expect(result.elapsed_ms).toBeGreaterThanOrEqual(2000)
    } finally {
      await server.close()
    }
  })

  it("wait_for_text finds text printed after it started, reporting progress to a client that asked", async () => {
    const world = newWorld()
    const pane = await printer(world)
    pane.print("printf 'DONE already\\n'")
    await until("the early text", () => pane.screen().endsWith("DONE already"))
    const server = await serve(world)
    try {
      const progress: Array<{ readonly progress: number; readonly total?: number | undefined }> = []
      const waiting = server.client.callTool(
        { name: "wait_for_text", arguments: { pane_id: pane.paneId, patterns: ["DONE"], timeout: 20 } },
        undefined,
        { onprogress: (report) => progress.push(report) }
      ) as Promise<CallToolResult>
      // A progress report comes after at least one look, so the wait's start is behind us.
      await until("a progress notification", () => progress.length > 0)
      pane.print("printf 'DONE later'")
      const result = ok(await waiting)
      expect(result).toMatchObject({ outcome: "matched", matched_lines: [{ text: "DONE later", pattern_index: 0 }], effective_timeout: 20 })
      expect(progress[0]).toMatchObject({ progress: 1, total: 20 })
      expect(progress.map((report) => report.progress)).toEqual([...progress.map((report) => report.progress)].sort((a, b) => a - b))

      // capture_since reads on from the wait's cursor; snapshot_pane sees where the cursor is.
      pane.print("printf ' and after\\n'")
      await until("more text", () => pane.screen().endsWith("DONE later and after"))
      expect(ok(await server.call("capture_since", { pane_id: pane.paneId, cursor: result.cursor }))).toMatchObject({
        content: " and after",
        continues_line: true,
        missed: false
      })
      expect(ok(await server.call("snapshot_pane", { pane_id: pane.paneId }))).toMatchObject({
        content: "ready\nDONE already\nDONE later and after",
        cursor_x: 0,
        cursor_y: 3,
        alternate_on: false
      })
    } finally {
      await server.close()
    }
  })

  it("a cancelled wait_for_text stops within 500 ms, kills its tmux child and leaves the server answering", async () => {
    const world = newWorld()
    const pane = await printer(world)
    // A tmux that takes 3 s to start (perl sleeps, then becomes tmux: one process throughout), so
    // the cancel lands while a look is in flight and only a kill ends that process early; each
    // start is logged.
    const log = join(world.dir, "tmux-starts")
    const slowTmux = join(world.dir, "slow-tmux")
    writeFileSync(slowTmux, `#!/bin/sh\necho x >> '${log}'\nexec perl -e 'select(undef, undef, undef, 3); exec @ARGV or die' tmux "$@"\n`)
    chmodSync(slowTmux, 0o755)
    const starts = () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").length - 1 : 0)
    // exec: the transport whose looks are tmux children (the socket transport runs none).
    const server = await serve(world, { env: { LIBTMUX_TMUX_BIN: slowTmux, LIBTMUX_MCP_TRANSPORT: "exec" } })
    try {
      const controller = new AbortController()
      const started = Date.now()
      const waiting = server.client
        .callTool({ name: "wait_for_text", arguments: { pane_id: pane.paneId, patterns: ["never"], timeout: 20 } }, undefined, {
          signal: controller.signal
        })
        .then(
          () => "answered",
          (error: unknown) => (error instanceof Error ? error.name : "rejected")
        )
      await until("a look in flight after a second", () => Date.now() - started > 1000 && childrenOf(server.pid).length > 0)
      const inFlight = childrenOf(server.pid).map((child) => child.pid)
      controller.abort()
      await pause(500)
      expect(inFlight.filter(isRunning)).toEqual([])
      expect(childrenOf(server.pid)).toEqual([])
      const startsAfterCancel = starts()
      expect(await waiting).not.toBe("answered")

      // Nothing more runs for the cancelled wait, and the server answers the next call.
      await pause(1000)
      expect(starts()).toBe(startsAfterCancel)
      expect(ok(await server.call("snapshot_pane", { pane_id: pane.paneId }))).toMatchObject({ pane_id: pane.paneId, content: "ready" })
    } finally {
      await server.close()
    }
  })
})
