/**
 * run_command on a remote host over the built server, against a private sshd on loopback (issue 30
 * items 1 and 3): a command longer than the start verdict's few seconds, a pane whose shell is still
 * reading a slow rc file, and the ssh link dying (master SIGKILLed) or stalling (the host's sshd
 * session stopped) while a command runs. The run is never lost: it completes, or it times out
 * with a handle that wait_for_command carries on once the link is back.
 */
import { spawnSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type PrivateSshd, startPrivateSshd } from "../support/PrivateSshd.js"
import { descendantsOf } from "../support/ProcessTree.js"
import { childPids, makeWorld, ok, serve, type Served, type World } from "./harness.js"

let world: World
let sshd: PrivateSshd
let server: Served
const remoteName = () => `${world.socketName}-r`
const SHELL = "HISTFILE=/dev/null bash --norc --noprofile"

/** Runs tmux in the remote world (the test's own view of the host). */
const remoteTmux = (...args: Array<string>) => {
  const result = spawnSync("tmux", ["-f", "/dev/null", "-L", remoteName(), ...args], {
    env: sshd.remoteEnv,
    encoding: "utf8",
    timeout: 10_000
  })
  if (result.status !== 0) throw new Error(`remote tmux ${args.join(" ")}: ${result.stderr}`)
  return result.stdout
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A new window on the host running `command`; its pane id. */
const remotePane = (command: string) => remoteTmux("new-window", "-d", "-P", "-F", "#{pane_id}", command).trim()

/** Waits until the host's pane shows its prompt (anything on its screen). */
const prompted = async (pane: string) => {
  for (let waited = 0; remoteTmux("capture-pane", "-p", "-t", pane).trim() === ""; waited += 20) {
    if (waited > 10_000) throw new Error(`no prompt in ${pane}`)
    await sleep(20)
  }
}

const masterPid = (): number | undefined =>
  childPids(server.pid).find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("ControlMaster=yes")
    } catch {
      return false
    }
  })

/** Waits out the link's back-off after a test that broke it: until a call over it answers. */
const linkUp = async () => {
  for (let waited = 0; (await server.call("list_panes", { host: "ci" })).isError === true; waited += 100) {
    if (waited > 10_000) throw new Error("the link to host ci did not come back")
    await sleep(100)
  }
}

/** A new pane on the host at its shell's prompt, with the link up: a run's starting point. */
const readyPane = async () => {
  const pane = remotePane(SHELL)
  await prompted(pane)
  await linkUp()
  return pane
}

/** Calls wait_for_command until the command is no longer running (at most `calls` times), gathering its output. */
const waitToEnd = async (first: Record<string, any>, calls = 4) => {
  const outputs = first.output === "" ? [] : [first.output]
  let last = first
  for (let call = 0; call < calls && last.outcome === "timed_out"; call++) {
    last = ok(await server.call("wait_for_command", { handle: last.handle, timeout: 20 }))
    if (last.output !== "") outputs.push(last.output)
  }
  return { last, output: outputs.join("\n") }
}

beforeAll(async () => {
  world = makeWorld()
  sshd = startPrivateSshd({ alias: "etm-run-link" })
  remoteTmux("new-session", "-d", "-s", "far", "-x", "100", "-y", "30", SHELL)
  const hostsPath = join(world.dir, "hosts.json")
  writeFileSync(hostsPath, JSON.stringify(sshd.hostsFile("ci")))
  server = await serve(world, { env: { LIBTMUX_MCP_HOSTS: hostsPath, LIBTMUX_SOCKET: remoteName() } })
})

afterAll(async () => {
  await server?.close()
  spawnSync("tmux", ["-f", "/dev/null", "-L", remoteName(), "kill-server"], { env: sshd.remoteEnv })
  sshd?.stop()
  world?.dispose()
})

describe("run_command on a remote host", () => {
  it("a 6 s command completes with its output and exit status", async () => {
    const pane = await readyPane()
    const result = ok(
      await server.call("run_command", { host: "ci", pane_id: pane, command: "echo begun; sleep 6; echo FINISHED; (exit 3)", timeout: 10 })
    )
    expect(result).toMatchObject({ outcome: "completed", exit_status: 3, output: "begun\nFINISHED", started: true, handle: null })
  }, 30_000)

  it("a fresh pane whose shell's rc file sleeps 5 s: the command completes once the shell is ready", async () => {
    const rc = join(sshd.remote.home, "slow-rc")
    writeFileSync(rc, "sleep 5\n")
    const pane = remotePane(`HISTFILE=/dev/null bash --noprofile --rcfile ${rc} -i`)
    const result = ok(await server.call("run_command", { host: "ci", pane_id: pane, command: "echo ready-$((6*7))", timeout: 20 }))
    expect(result).toMatchObject({ outcome: "completed", exit_status: 0, output: "ready-42" })
    expect(remoteTmux("capture-pane", "-p", "-J", "-t", pane, "-S", "-")).not.toContain("no buffer")
  }, 40_000)

  it("the ssh master SIGKILLed 1.2 s into a run: the run is not lost, and its output and status come back", async () => {
    const pane = await readyPane()
    const master = masterPid()
    expect(master).toBeDefined()
    const running = server.call("run_command", {
      host: "ci",
      pane_id: pane,
      command: "echo begun; sleep 4; echo FINISHED; (exit 6)",
      timeout: 10
    })
    await sleep(1_200)
    process.kill(master!, "SIGKILL")
    const first = ok(await running)
    // The link comes back within the wait (a call after the 1 s back-off reconnects): the run completes.
    expect(first).toMatchObject({ outcome: "completed", exit_status: 6, output: "begun\nFINISHED" })
    expect(masterPid()).not.toBe(master)
  }, 40_000)

  it(
    "a stalled link (the host's sshd session stopped): timed_out with a handle at the timeout, then wait_for_command returns the rest",
    async () => {
      const pane = await readyPane()
      const sessions = descendantsOf(sshd.pid)
      expect(sessions.length).toBeGreaterThan(0)
      const started = performance.now()
      const running = server.call("run_command", {
        host: "ci",
        pane_id: pane,
        command: "echo begun; sleep 3; echo FINISHED; (exit 2)",
        timeout: 4
      })
      await sleep(1_000)
      for (const pid of sessions) process.kill(pid, "SIGSTOP")
      let first: Record<string, any>
      try {
        first = ok(await running)
      } finally {
        for (const pid of sessions) process.kill(pid, "SIGCONT")
      }
      // Bounded by the timeout (and one look's grace), not by the tmux call's own 10 s deadline.
      expect(performance.now() - started).toBeLessThan(7_000)
      expect(first).toMatchObject({ outcome: "timed_out", exit_status: null })
      expect(first.handle).toEqual(expect.any(String))
      const { last, output } = await waitToEnd(first)
      expect(last).toMatchObject({ outcome: "completed", exit_status: 2, handle: null })
      expect(output).toBe("begun\nFINISHED")
    },
    90_000
  )
})
