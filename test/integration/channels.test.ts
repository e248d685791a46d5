/**
 * wait_for_channel and signal_channel on real tmux: a script in a pane wakes a waiting call, a signal
 * sent before the wait is consumed by it, a timeout (or an interruption) leaves no `tmux wait-for`
 * client behind (a process, or over the socket transport a connection), and a server that exits
 * during the wait is reported as server_died, not signalled.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { describe, expect, it } from "vitest"
import { callTool } from "../../src/mcp/CallTool.js"
import { Progress, type ProgressReport } from "../../src/services/Progress.js"
import { processesMentioning } from "../e2e/harness.js"
import { connectionsTo, serverIdentity, useWorlds, waitFor } from "../support/liveTmux.js"
import { type PrivateTmux, testTransport } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool, toolNamed } from "../support/runTool.js"
import { tappedTmux } from "../support/TappedTmux.js"
import { tmuxAtLeast } from "../support/tmuxVersion.js"

const { world } = useWorlds()

/**
 * tmux clients of this world blocked in `wait-for` on `channel`: processes, or over the socket
 * transport the connections to the server (which do not name their command: in these tests only
 * waits stay connected).
 */
const waiters = (w: PrivateTmux, channel: string): Array<string> =>
  testTransport === "socket"
    ? Array.from({ length: connectionsTo(w.socketPath) }, () => `a connection (wait-for -- ${channel})`)
    : processesMentioning(w.socketName).filter((line) => line.includes(`wait-for -- ${channel}`))

/** No waiter left: a closed connection leaves the server's list when tmux has read its end, soon after. */
const noWaiters = (w: PrivateTmux, channel: string) =>
  waitFor(`no waiter on ${channel}`, () => waiters(w, channel).length === 0, 10_000).then(() => waiters(w, channel))

/**
 * `count` waits in progress on `channel`, seen for a second on end: the call's probe of the
 * server closed just before its wait connected, and the server lists a closed connection until it
 * has read its end (late, on a loaded machine), so a moment's count can be that probe instead.
 */
const waitsStarted = async (w: PrivateTmux, channel: string, count: number) => {
  let since: number | undefined
  await waitFor(`${count} wait(s) on ${channel} to start`, () => {
    if (waiters(w, channel).length !== count) since = undefined
    else since ??= Date.now()
    return since !== undefined && Date.now() - since >= 1_000
  }, 20_000)
}

const withSession = (w: PrivateTmux) => {
  w.tmuxOk("new-session", "-d", "-s", "s", "-x", "80", "-y", "24", "cat")
  return w.layer()
}

describe("wait_for_channel", () => {
  it("returns signalled when a script in a pane signals the channel", async () => {
    const w = world()
    const layer = withSession(w)
    const waiting = runTool(layer, "wait_for_channel", { channel: "build-done", timeout: 20 })
    await waitsStarted(w, "build-done", 1)
    // The pane's own tmux finds the server through $TMUX, as a user's script would.
    w.tmuxOk("new-window", "-d", "-t", "s:", "sh -c 'tmux wait-for -S build-done'")
    const result = okResult(await waiting)
    expect(result).toMatchObject({ channel: "build-done", outcome: "signalled", effective_timeout: 20, timeout_clamped: false })
    expect(result.elapsed_ms).toBeLessThan(20_000)
    expect(await noWaiters(w, "build-done")).toEqual([])
  })

  it("consumes a signal sent while nobody waited: the first wait returns signalled, the next one times out", async () => {
    const w = world()
    const layer = withSession(w)
    expect(okResult(await runTool(layer, "signal_channel", { channel: "early" }))).toEqual({ channel: "early", signalled: true })
    expect(okResult(await runTool(layer, "wait_for_channel", { channel: "early", timeout: 20 })).outcome).toBe("signalled")
    expect(okResult(await runTool(layer, "wait_for_channel", { channel: "early", timeout: 0.5 })).outcome).toBe("timeout")
  })

  it("times out, clamps the timeout to the ceiling, and leaves no wait-for process behind", async () => {
    const w = world()
    withSession(w)
    const layer = w.layer({ flags: { waitMaxSeconds: "1" } })
    const result = okResult(await runTool(layer, "wait_for_channel", { channel: "never", timeout: 600 }))
    expect(result).toMatchObject({ outcome: "timeout", effective_timeout: 1, timeout_clamped: true })
    expect(result.elapsed_ms).toBeGreaterThanOrEqual(1000)
    expect(await noWaiters(w, "never")).toEqual([])
  })

  it("an interrupted wait (a cancelled call) kills its wait-for process", async () => {
    const w = world()
    const layer = withSession(w)
    const fiber = Effect.runFork(callTool(toolNamed("wait_for_channel"), { channel: "cancelled", timeout: 20 }).pipe(Effect.provide(layer)))
    await waitsStarted(w, "cancelled", 1)
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(await noWaiters(w, "cancelled")).toEqual([])
  })

  // tmux 3.7c frees a waiting client that went away ("Free wait-for clients when they disconnect").
  it.skipIf(tmuxAtLeast("3.7c"))(
    "pins a tmux limitation: a timed-out wait stays registered until the channel's next signal, which it absorbs",
    async () => {
      // tmux 3.3a to 3.7b never removes a waiting client that went away from the channel; a signal
      // with only that stale waiter left wakes it instead of being kept for the next wait.
      const w = world()
      const layer = withSession(w)
      expect(okResult(await runTool(layer, "wait_for_channel", { channel: "stale", timeout: 0.5 })).outcome).toBe("timeout")
      okResult(await runTool(layer, "signal_channel", { channel: "stale" }))
      expect(okResult(await runTool(layer, "wait_for_channel", { channel: "stale", timeout: 0.5 })).outcome).toBe("timeout")
      // That wait left a stale waiter too: one signal absorbs it, the next is kept.
      okResult(await runTool(layer, "signal_channel", { channel: "stale" }))
      okResult(await runTool(layer, "signal_channel", { channel: "stale" }))
      expect(okResult(await runTool(layer, "wait_for_channel", { channel: "stale", timeout: 5 })).outcome).toBe("signalled")
    }
  )

  it.runIf(tmuxAtLeast("3.7c"))("keeps a signal sent after a timed-out wait for the next wait (tmux 3.7c and later)", async () => {
    const w = world()
    const layer = withSession(w)
    expect(okResult(await runTool(layer, "wait_for_channel", { channel: "fresh", timeout: 0.5 })).outcome).toBe("timeout")
    okResult(await runTool(layer, "signal_channel", { channel: "fresh" }))
    expect(okResult(await runTool(layer, "wait_for_channel", { channel: "fresh", timeout: 5 })).outcome).toBe("signalled")
  })

  it("reports server_died when the server is killed, or crashes, during the wait", async () => {
    for (const end of ["kill-server", "SIGKILL"] as const) {
      const w = world()
      const layer = withSession(w)
      const waiting = runTool(layer, "wait_for_channel", { channel: "doomed", timeout: 20 })
      await waitsStarted(w, "doomed", 1)
      if (end === "kill-server") w.tmuxOk("kill-server")
      else process.kill(serverIdentity(w).pid, "SIGKILL")
      expect({ end, outcome: okResult(await waiting).outcome }).toEqual({ end, outcome: "server_died" })
    }
  })

  it("reports server_died when the server restarted during the wait, though a server answers", async () => {
    const w = world()
    withSession(w)
    // The new server is up before the call looks again, whatever the timing.
    const layer = w.layer(
      {},
      tappedTmux((run) =>
        run.commands[0]?.[0] === "wait-for" && run.commands[0][1] === "--"
          ? run.proceed().pipe(Effect.tap(() => Effect.sync(() => w.tmuxOk("new-session", "-d", "-s", "again"))))
          : run.proceed()
      )
    )
    const waiting = runTool(layer, "wait_for_channel", { channel: "restart", timeout: 20 })
    await waitsStarted(w, "restart", 1)
    w.tmuxOk("kill-server")
    expect(okResult(await waiting).outcome).toBe("server_died")
    expect(w.tmuxOk("list-sessions", "-F", "#{session_name}").trim()).toBe("again")
  })

  it("sends progress about once a second to a client that asked", async () => {
    const w = world()
    const layer = withSession(w)
    const reports: Array<ProgressReport> = []
    const progress = Progress.of({ report: (report) => Effect.sync(() => void reports.push(report)) })
    const result: CallToolResult = await Effect.runPromise(
      callTool(toolNamed("wait_for_channel"), { channel: "slow", timeout: 2.5 }).pipe(
        Effect.provideService(Progress, progress),
        Effect.provide(layer)
      )
    )
    expect(okResult(result).outcome).toBe("timeout")
    expect(reports.map((report) => report.progress)).toEqual([1, 2])
    expect(reports[0]).toMatchObject({ total: 2.5, message: "waiting for channel slow" })
  })

  it("no server is no_server (nothing waited); bad channel names are invalid_input", async () => {
    const w = world()
    const layer = w.layer()
    expect(errorMeta(await runTool(layer, "wait_for_channel", { channel: "x", timeout: 5 })).code).toBe("no_server")
    expect(errorMeta(await runTool(layer, "signal_channel", { channel: "x" })).code).toBe("no_server")
    for (const channel of ["", "a b", "x;", "#{pid}", "c".repeat(65)]) {
      expect(errorMeta(await runTool(layer, "signal_channel", { channel })).code, channel).toBe("invalid_input")
    }
  })
})

describe("signal_channel", () => {
  it("wakes every waiter, and a name that looks like a flag is still a channel", async () => {
    const w = world()
    const layer = withSession(w)
    const first = runTool(layer, "wait_for_channel", { channel: "-S", timeout: 20 })
    const second = runTool(layer, "wait_for_channel", { channel: "-S", timeout: 20 })
    await waitsStarted(w, "-S", 2)
    okResult(await runTool(layer, "signal_channel", { channel: "-S" }))
    expect([okResult(await first).outcome, okResult(await second).outcome]).toEqual(["signalled", "signalled"])
  })
})
