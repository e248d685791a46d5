/**
 * The spawn-per-call transport (TmuxExec) against real processes: deadlines, interruption, a
 * missing binary, and argv that tmux would otherwise split.
 */
import { it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect } from "vitest"
import { SocketResolver } from "../../src/context/SocketResolver.js"
import { errorCode, isRetryable } from "../../src/domain/Errors.js"
import { callTool } from "../../src/mcp/CallTool.js"
import { type RunOptions, Tmux } from "../../src/tmux/Tmux.js"
import { processAlive, readPid, useWorlds, waitFor } from "../support/liveTmux.js"
import { type PrivateTmux, servicesLayer, testTransport } from "../support/PrivateTmux.js"
import { errorMeta, runTool, toolNamed } from "../support/runTool.js"

const { world } = useWorlds()

/**
 * A "tmux" that never answers: it starts a grandchild (to check the whole process group goes) and
 * waits. It writes both pids next to itself.
 */
const hangingTmux = (w: PrivateTmux) => {
  const bin = join(w.tmpdir, "hanging-tmux")
  writeFileSync(bin, `#!/bin/sh\nsleep 300 &\necho $! > "$0.child"\necho $$ > "$0.pid"\nwait\n`)
  chmodSync(bin, 0o755)
  const pids = () => {
    const shell = readPid(`${bin}.pid`)
    const child = readPid(`${bin}.child`)
    return shell !== undefined && child !== undefined ? { shell, child } : undefined
  }
  return { bin, pids }
}

const run = (commands: ReadonlyArray<ReadonlyArray<string>>, options?: RunOptions) =>
  Effect.gen(function*() {
    const socket = yield* (yield* SocketResolver).resolve()
    return yield* (yield* Tmux).run(socket, commands, options)
  })

const gone = (pid: number) => waitFor(`process ${pid} to exit`, () => !processAlive(pid), 5_000)

/**
 * The tests of a tmux binary (one that hangs, is missing, cannot run) need a transport that runs
 * it: the socket transport runs no binary for these calls (test/integration/socket.test.ts holds
 * its own deadline and interruption tests).
 */
const runsTheBinary = testTransport !== "socket"

describe.runIf(runsTheBinary)("TmuxExec deadlines and cancellation", () => {
  it.live("a tmux that does not answer fails with timeout within the deadline, and is killed", () => {
    const w = world()
    const hanging = hangingTmux(w)
    return Effect.gen(function*() {
      const error = yield* Effect.flip(run([["list-sessions"]], { timeout: "1 second" }))
      expect(error._tag).toBe("Failed")
      expect(error).toMatchObject({ reason: "timeout", command: "list-sessions" })
      expect(errorCode(error)).toBe("timeout")
      expect(isRetryable(error)).toBe(true)
      const pids = hanging.pids()
      expect(pids).toBeDefined()
      yield* Effect.promise(() => gone(pids!.shell))
      yield* Effect.promise(() => gone(pids!.child))
    }).pipe(Effect.provide(w.layer({ flags: { tmuxBin: hanging.bin } })))
  })

  it("the configured per-call deadline reaches the tools as a retryable timeout", async () => {
    const w = world()
    const hanging = hangingTmux(w)
    const layer = servicesLayer({ ...w.config({ flags: { tmuxBin: hanging.bin } }), commandTimeoutMs: 1_000 })
    const error = errorMeta(await runTool(layer, "list_sessions"))
    expect(error).toMatchObject({ code: "timeout", retryable: true, effects: "none" })
    expect(error.text).toContain("did not answer in time")
    expect(error.hint).toContain("get_server_info")
    const pids = await waitFor("the hanging tmux's pids", hanging.pids)
    await gone(pids.shell)
    await gone(pids.child)
  })

  it.live("interrupting a run kills the tmux child and its process group", () => {
    const w = world()
    const hanging = hangingTmux(w)
    return Effect.gen(function*() {
      const fiber = yield* Effect.forkChild(run([["list-sessions"]], { timeout: "60 seconds" }))
      const pids = yield* Effect.promise(() => waitFor("the hanging tmux to start", hanging.pids))
      expect(processAlive(pids.shell)).toBe(true)
      yield* Fiber.interrupt(fiber)
      // The finalizer waits for the child it killed.
      expect(processAlive(pids.shell)).toBe(false)
      yield* Effect.promise(() => gone(pids.child))
    }).pipe(Effect.provide(w.layer({ flags: { tmuxBin: hanging.bin } })))
  })

  it("cancelling a tool call (as an MCP client's cancellation does) kills the tmux child", async () => {
    const w = world()
    const hanging = hangingTmux(w)
    const layer = w.layer({ flags: { tmuxBin: hanging.bin } })
    const fiber = Effect.runFork(callTool(toolNamed("list_panes"), {}).pipe(Effect.provide(layer)))
    const pids = await waitFor("the hanging tmux to start", hanging.pids)
    await Effect.runPromise(Fiber.interrupt(fiber))
    await gone(pids.shell)
    await gone(pids.child)
  })
})

describe.runIf(runsTheBinary)("TmuxExec spawn failures", () => {
  it("a missing tmux binary is failed, with a hint naming LIBTMUX_TMUX_BIN", async () => {
    const w = world()
    const missing = join(w.tmpdir, "no-such-tmux")
    const error = errorMeta(await runTool(w.layer({ flags: { tmuxBin: missing } }), "list_sessions"))
    expect(error).toMatchObject({ code: "failed", retryable: false, effects: "none" })
    expect(error.text).toContain(missing)
    expect(error.hint).toContain("LIBTMUX_TMUX_BIN")
  })

  it.live("a binary that cannot be executed is a spawn failure, not a defect", () => {
    const w = world()
    const notExecutable = join(w.tmpdir, "not-executable")
    writeFileSync(notExecutable, "not a program\n")
    return Effect.gen(function*() {
      const error = yield* Effect.flip(run([["list-sessions"]]))
      expect(error).toMatchObject({ _tag: "Failed", reason: "spawn" })
      expect(errorCode(error)).toBe("failed")
    }).pipe(Effect.provide(w.layer({ flags: { tmuxBin: notExecutable } })))
  })
})

describe("TmuxExec argv", () => {
  it.live("arguments ending in ';' reach tmux intact and do not split the command list", () => {
    const w = world()
    return Effect.gen(function*() {
      const output = yield* run(
        [
          ["new-session", "-d", "-s", "a;"],
          ["new-session", "-d", "-s", "b;c;"],
          ["display-message", "-p", ";"],
          ["display-message", "-p", "x;"],
          ["display-message", "-p", "back\\;"]
        ],
        { startServer: true }
      )
      expect(output).toBe(";\nx;\nback\\;\n")
      expect(w.tmuxOk("list-sessions", "-F", "#{session_name}").split("\n").filter(Boolean).sort()).toEqual(["a;", "b;c;"])
    }).pipe(Effect.provide(w.layer()))
  })

  it.live("only startServer may start a server; every other run uses -N", () => {
    const w = world()
    return Effect.gen(function*() {
      const error = yield* Effect.flip(run([["new-session", "-d", "-s", "x"]]))
      expect(error._tag).toBe("NoServer")
      expect(w.tmux("has-session").status).not.toBe(0)
      yield* run([["new-session", "-d", "-s", "x"]], { startServer: true })
      expect(w.tmux("has-session", "-t", "x").status).toBe(0)
    }).pipe(Effect.provide(w.layer()))
  })
})
