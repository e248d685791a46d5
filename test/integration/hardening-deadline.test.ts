/**
 * Issue 10 item 12: the deadline holds against a tmux process that ignores SIGTERM (a wrapper with
 * `trap '' TERM`, a client stuck in the kernel). The call answers `timeout` on time, and the child
 * and everything in its process group are SIGKILLed after a short grace. Runs on the transports
 * that spawn tmux (exec); the socket transport
 * runs none for these calls and has its own deadline tests (socket.test.ts).
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { chmodSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { SocketResolver } from "../../src/context/SocketResolver.js"
import { callTool } from "../../src/mcp/CallTool.js"
import { Tmux } from "../../src/tmux/Tmux.js"
import { processAlive, useWorlds, waitFor } from "../support/liveTmux.js"
import { type PrivateTmux, servicesLayer, testTransport } from "../support/PrivateTmux.js"
import { errorMeta, toolNamed } from "../support/runTool.js"

const { world } = useWorlds()

/** The per-call deadline these tests configure. */
const DEADLINE_MS = 1_000
/** What the call may take beyond its deadline: the kill grace plus a loaded machine's slack. */
const BEYOND_DEADLINE_MS = 4_000

/**
 * A "tmux" that ignores SIGTERM and never answers; its grandchild `sleep` inherits the ignored
 * signal. Every start appends the shell's and the sleep's pids to a file next to it.
 */
const stubbornTmux = (w: PrivateTmux) => {
  const bin = join(w.tmpdir, "stubborn-tmux")
  writeFileSync(bin, `#!/bin/sh\ntrap '' TERM\necho $$ >> "$0.pids"\nsleep 300 &\necho $! >> "$0.pids"\nwait\nwait\n`)
  chmodSync(bin, 0o755)
  const pids = (): Array<number> => {
    try {
      return readFileSync(`${bin}.pids`, "utf8").split("\n").filter(Boolean).map(Number)
    } catch {
      return []
    }
  }
  return { bin, pids }
}

/** Resolves with the promise, or with "no answer" once `ms` passed (a bound, not a timing assertion). */
const orNoAnswer = <A>(promise: Promise<A>, ms: number): Promise<A | "no answer"> =>
  Promise.race([promise, new Promise<"no answer">((resolve) => setTimeout(() => resolve("no answer"), ms).unref())])

const allGone = (pids: ReadonlyArray<number>) =>
  waitFor(`processes ${pids.join(" ")} to be gone`, () => pids.every((pid) => !processAlive(pid)), 5_000).then(
    () => true,
    () => false
  )

describe.runIf(testTransport !== "socket")("the deadline against a tmux that ignores SIGTERM (item 12)", () => {
  it("list_sessions answers timeout within the deadline plus the kill grace, and no process of that tmux survives", async () => {
    const w = world()
    const stubborn = stubbornTmux(w)
    const layer = servicesLayer({ ...w.config({ flags: { tmuxBin: stubborn.bin } }), commandTimeoutMs: DEADLINE_MS })
    const call = Effect.runPromise(callTool(toolNamed("list_sessions"), {}).pipe(Effect.provide(layer)))
    const result = await orNoAnswer(call, DEADLINE_MS + BEYOND_DEADLINE_MS)
    try {
      expect(result).not.toBe("no answer")
      if (result !== "no answer") expect(errorMeta(result).code).toBe("timeout")
      const pids = stubborn.pids()
      expect(pids.length).toBeGreaterThanOrEqual(2)
      expect(await allGone(pids)).toBe(true)
    } finally {
      // On a failure the children would outlive the test: end them here.
      for (const pid of stubborn.pids()) if (processAlive(pid)) process.kill(pid, "SIGKILL")
    }
  })

  it("interrupting a run (a cancelled tool call) ends within the grace and kills the whole process group", async () => {
    const w = world()
    const stubborn = stubbornTmux(w)
    const layer = servicesLayer({ ...w.config({ flags: { tmuxBin: stubborn.bin } }), commandTimeoutMs: 60_000 })
    const fiber = Effect.runFork(
      Effect.gen(function*() {
        const socket = yield* (yield* SocketResolver).resolve()
        return yield* (yield* Tmux).run(socket, [["list-sessions"]])
      }).pipe(Effect.provide(layer))
    )
    try {
      await waitFor("the stubborn tmux to start", () => stubborn.pids().length >= 2)
      expect(await orNoAnswer(Effect.runPromise(Fiber.interrupt(fiber)), BEYOND_DEADLINE_MS)).not.toBe("no answer")
      expect(await allGone(stubborn.pids())).toBe(true)
    } finally {
      for (const pid of stubborn.pids()) if (processAlive(pid)) process.kill(pid, "SIGKILL")
    }
  })
})
