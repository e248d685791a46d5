/**
 * A host's link over a private sshd (test/support/PrivateSshd.ts), the layer made directly
 * (makeConnections), as ConnectionsLive makes it. Forwards, with the idle time shortened to a
 * quarter second: a forward a call holds is never released however long the call lasts, and one no
 * call holds is released once idle (`ssh -O cancel`: the master stops listening, and its file is
 * removed). A master's end: a call that meets it before the layer has seen it gets the host's error.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadConfig, TmuxMcpConfig } from "../../src/context/TmuxMcpConfig.js"
import { makeConnections } from "../../src/tmux/Connections.js"
import { TmuxProcesses } from "../../src/tmux/TmuxProcess.js"
import { type PrivateSshd, startPrivateSshd } from "../support/PrivateSshd.js"
import { descendantsOf, isRunning, listenersOf, pollSync } from "../support/ProcessTree.js"
import { testHost } from "../support/testHost.js"

const uid = process.getuid?.() ?? 0
const IDLE_MS = 250

/** This process's ssh master (its argv says ControlMaster=yes). */
const masterPid = (): number | undefined =>
  descendantsOf(process.pid).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes("ControlMaster=yes")
    } catch {
      return false
    }
  })

describe.skipIf(testHost !== undefined)("a host's link", () => {
  let sshd: PrivateSshd
  let dir: string
  const name = `etm-fr-${process.pid}`
  beforeAll(() => {
    sshd = startPrivateSshd({ alias: "etm-forwards" })
    dir = realpathSync(mkdtempSync(join(tmpdir(), "etm-fr-")))
    const started = spawnSync("tmux", ["-f", "/dev/null", "-L", name, "new-session", "-d", "-s", "far"], {
      env: sshd.remoteEnv,
      encoding: "utf8"
    })
    expect(started.status, started.stderr).toBe(0)
  })
  afterAll(() => {
    spawnSync("tmux", ["-L", name, "kill-server"], { env: sshd?.remoteEnv })
    sshd?.stop()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  const config = () =>
    Result.getOrThrow(loadConfig({
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, TMUX_TMPDIR: dir, LIBTMUX_MCP_HOSTS: sshd.writeHostsFile("ci") },
      flags: {},
      uid
    }))

  it("a held forward outlives the idle time; once no call holds it, it is cancelled in the master and its file removed", async () => {
    const remotePath = sshd.remoteSocketPath(name)
    const sleep = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))
    await Effect.runPromise(
      Effect.scoped(Effect.gen(function*() {
        const connections = yield* makeConnections(config().hosts!, { forwardIdleMs: IDLE_MS })
        const local = yield* Effect.scoped(Effect.gen(function*() {
          const path = yield* connections.forward("ci", remotePath)
          // Held for four idle times and more.
          yield* sleep(IDLE_MS * 5)
          expect(existsSync(path)).toBe(true)
          expect(listenersOf(masterPid()!)).toContain(path)
          expect(connections.link("ci").forwards).toBe(1)
          return path
        }))
        const master = masterPid()!
        const deadline = Date.now() + 10_000
        while ((existsSync(local) || listenersOf(master).includes(local)) && Date.now() < deadline) yield* sleep(20)
        expect(existsSync(local)).toBe(false)
        expect(listenersOf(master)).not.toContain(local)
        expect(connections.link("ci").forwards).toBe(0)
        // The same socket again: a new forward, with a file of its own.
        const again = yield* Effect.scoped(connections.forward("ci", remotePath))
        expect(again).not.toBe(local)
        expect(join(dir, `effect-tmux-mcp-${uid}`, "ssh")).toBe(again.slice(0, again.lastIndexOf("/")))
      })).pipe(Effect.provide(TmuxProcesses.layer), Effect.provideService(TmuxMcpConfig, config()))
    )
  }, 30_000)

  it("a call that meets a master already dead, before this layer has seen it end, gets the host's link error", async () => {
    await Effect.runPromise(
      Effect.scoped(Effect.gen(function*() {
        const connections = yield* makeConnections(config().hosts!)
        yield* Effect.scoped(connections.forward("ci", sshd.remoteSocketPath(name)))
        expect(yield* connections.linkError("ci", "list-sessions")).toBeUndefined()
        const master = masterPid()!
        process.kill(master, "SIGKILL")
        // Blocking: the event loop does not run, so the layer cannot have seen the exit yet.
        expect(pollSync(() => !isRunning(master), 5_000)).toBe(true)
        expect(connections.link("ci").state).toBe("up")
        const error = yield* connections.linkError("ci", "list-sessions")
        expect(error?.reason).toBe("host")
        expect(error?.stderr).toContain("the ssh link is down (ssh ended by SIGKILL)")
        expect(connections.link("ci").state).toBe("down")
      })).pipe(Effect.provide(TmuxProcesses.layer), Effect.provideService(TmuxMcpConfig, config()))
    )
  }, 30_000)
})
