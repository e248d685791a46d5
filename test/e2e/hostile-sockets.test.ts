/**
 * Hostile listeners against the built server over stdio (issue 21, items 1 and 2): a listener
 * named by a call's socket_path that closes, or answers garbage, and asks for files on every
 * connection after that; one in a directory other users can write; one that floods a gigabyte.
 * No file is read or written for any of them (checked: the secret never reaches the listener, the
 * target is never created), no tmux process runs for them (a counting LIBTMUX_TMUX_BIN), memory
 * stays bounded, and the server answers the next call.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type FakeConnection, type FakeTmuxServer, fakeTmuxServer } from "../support/FakeTmuxServer.js"
import { countingTmux, directoryWithMode, fileCanaries } from "../support/FileCanaries.js"
import { errorOf, makeWorld, ok, poll, serve, type Served, textOf, type World } from "./harness.js"

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const world = (): World => {
  const w = makeWorld()
  cleanups.push(() => w.dispose())
  return w
}

const served = async (w: World, env: Record<string, string> = {}): Promise<Served> => {
  const server = await serve(w, { env })
  cleanups.push(() => server.close())
  return server
}

const listen = async (path: string, script: (c: FakeConnection) => void | Promise<void>): Promise<FakeTmuxServer> => {
  const fake = await fakeTmuxServer(path, script)
  cleanups.push(() => fake.close())
  return fake
}

/** The server's peak resident memory so far (VmHWM), in MiB. */
const peakRssMiB = (pid: number): number => {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith("VmHWM:"))!
  return Number(line.replace(/\D+/g, "")) / 1024
}

describe("hostile listeners over stdio", () => {
  for (
    const [what, first, code] of [
      ["closes its first connection", (c: FakeConnection) => c.close(), "no_server"],
      ["answers garbage first", (c: FakeConnection) => c.sendRaw(Buffer.from("\x1b]52;c;cGF5bG9hZA==\x07 not tmux\n")), "failed"]
    ] as const
  ) {
    it(`a listener that ${what} and then asks for files never gets one, and no tmux process runs for it`, async () => {
      const w = world()
      w.startTmux()
      const files = fileCanaries(w.dir)
      const counting = countingTmux(w.dir)
      let seen = 0
      const fake = await listen(join(directoryWithMode(w.dir, "listener", 0o700), "tmux"), (c) => (seen++ === 0 ? first(c) : files.ask(c)))
      const server = await served(w, { LIBTMUX_TMUX_BIN: counting.bin })
      expect(errorOf(await server.call("list_sessions", { socket_path: fake.path })).code).toBe(code)
      for (const name of ["list_sessions", "get_server_info", "list_panes", "capture_pane"]) {
        const args = name === "capture_pane" ? { socket_path: fake.path, pane_id: "%0" } : { socket_path: fake.path }
        expect(errorOf(await server.call(name, args)).code).toBe("failed")
      }
      expect(files.answers.length).toBeGreaterThanOrEqual(4)
      files.untouched()
      // The start-up check of the binary (-V) is the one run: none for the listener.
      expect(counting.toolRuns()).toBe(0)
      expect(counting.runs()).toBe(1)
      // The world's own server still answers on the same MCP server.
      expect(ok(await server.call("list_sessions")).items.length).toBe(1)
    })
  }

  it("a wedged listener whose name holds ESC and BEL is listed unresponsive with both escaped, in structuredContent as in the text", async () => {
    const w = world()
    w.startTmux()
    const name = "wedged\x1b]0;owned\x07"
    // Accepts, reads the command, never answers.
    const fake = await listen(w.socketPathOf(name), () => undefined)
    const server = await served(w)
    const result = await server.call("list_servers")
    const page = ok(result)
    expect(fake.connections.length).toBeGreaterThanOrEqual(1)
    const escaped = "wedged\\x1b]0;owned\\x07"
    expect(page.unresponsive).toEqual([{ socket_name: escaped, socket_path: w.socketPathOf(escaped) }])
    // Nowhere raw (JSON writes a raw ESC or BEL as \u001b, \u0007).
    expect(JSON.stringify(result)).not.toMatch(/\\u00(1b|07)/)
    expect(textOf(result)).toContain(escaped)
  })

  it("a listener in a directory other users can write is denied before anything connects", async () => {
    const w = world()
    const files = fileCanaries(w.dir)
    const fake = await listen(join(directoryWithMode(w.dir, "shared", 0o777), "tmux"), files.ask)
    const server = await served(w)
    const refused = errorOf(await server.call("list_sessions", { socket_path: fake.path }))
    expect(refused).toMatchObject({ code: "denied", effects: "none" })
    expect(fake.accepted()).toBe(0)
    files.untouched()
  })

  it(
    "a listener that floods a gigabyte gets `failed` (over 32 MiB), the server's peak RSS stays under 300 MiB, and the next call answers",
    async () => {
      const w = world()
      w.startTmux()
      const sent: Array<number> = []
      const fake = await listen(
        join(directoryWithMode(w.dir, "flood", 0o700), "tmux"),
        async (c) => void sent.push(await c.flood(1024 * 1024 * 1024))
      )
      const server = await served(w)
      const flooded = errorOf(await server.call("list_sessions", { socket_path: fake.path }))
      expect(flooded.code).toBe("failed")
      expect(flooded.text).toContain("output over 32 MiB")
      // Then twelve floods at once: each is cut, by its own size or by what all of them hold together.
      const more = await Promise.all(Array.from({ length: 12 }, () => server.call("list_sessions", { socket_path: fake.path })))
      expect(new Set(more.map((result) => errorOf(result).code))).toEqual(new Set(["failed"]))
      expect(more.map(textOf).join("\n")).toMatch(/output over 96 MiB across the calls in flight/)
      expect(peakRssMiB(server.pid)).toBeLessThan(300)
      expect(ok(await server.call("list_sessions")).items.length).toBe(1)
      // The listener was cut off early: nowhere near the gigabyte it meant to send.
      await poll("every flood to end", () => (sent.length === 13 ? true : undefined))
      expect(Math.max(...sent)).toBeLessThan(64 * 1024 * 1024)
    },
    60_000
  )
})
