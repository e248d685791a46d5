/**
 * What a person watching a pane sees after run_command, over the built server (issue 31 items 2 and
 * 3): on a fresh pane, in bash, dash and zsh (where installed) and on a remote host behind a private
 * sshd, two commands leave the commands as given, their output and the prompt, and none of the
 * framing (capture-pane -J with the whole history). A command that ends its shell reports the
 * shell's status.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type PrivateSshd, startPrivateSshd } from "../support/PrivateSshd.js"
import { makeWorld, ok, serve, type Served, type World } from "./harness.js"

const installed = (program: string) => spawnSync("sh", ["-c", `command -v ${program}`]).status === 0

const SHELLS: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["bash", ["env", "HISTFILE=/dev/null", "bash", "--norc", "--noprofile"]],
  ["dash", ["dash"]],
  ...(installed("zsh") ? [["zsh", ["zsh", "-f"]] as const] : [])
]

/** What must never be on the screen: the framing's words, its buffer names, a handle's prefix. */
const TRACES = ["ETM_", "eval", "show-buffer", "delete-buffer", "etm.run", "etm.key", "_etm_", "cmd1.", "2>/dev/null"]

const rowsOf = (screen: string) => screen.split("\n").map((row) => row.trimEnd()).filter((row) => row !== "")

/** Checks a screen after `echo one-$((1+1))` and `printf 'x\ny\n'`, given the results' handle-free secrets. */
const expectClean = (screen: string, secrets: ReadonlyArray<string>) => {
  for (const trace of [...TRACES, ...secrets]) expect(screen, `${JSON.stringify(trace)} on the screen:\n${screen}`).not.toContain(trace)
  const rows = rowsOf(screen)
  expect(rows.length, screen).toBeLessThanOrEqual(8)
  expect(rows.filter((row) => row.endsWith("echo one-$((1+1))"))).toHaveLength(1)
  expect(rows.filter((row) => row.endsWith("printf 'x\\ny\\n'"))).toHaveLength(1)
  expect(rows).toEqual(expect.arrayContaining(["one-2", "x", "y"]))
}

describe("run_command on this machine's panes", () => {
  let world: World
  let server: Served
  let firstPane: string
  beforeAll(async () => {
    world = makeWorld()
    firstPane = world.startTmux().paneId
    server = await serve(world)
  })
  afterAll(async () => {
    await server?.close()
    world?.dispose()
  })

  for (const [name, command] of SHELLS) {
    it(`a fresh ${name} pane shows the two commands, their output and the prompt, nothing of the framing`, async () => {
      // Driven the moment it exists, as an agent does: its shell has not drawn a prompt yet.
      const { pane } = ok(await server.call("split_window", { pane_id: firstPane, command }))
      const first = ok(await server.call("run_command", { pane_id: pane.pane_id, command: "echo one-$((1+1))", timeout: 10 }))
      const second = ok(await server.call("run_command", { pane_id: pane.pane_id, command: "printf 'x\\ny\\n'", timeout: 10 }))
      expect([first.outcome, first.output, second.output]).toEqual(["completed", "one-2", "x\ny"])
      expectClean(world.tmux(["capture-pane", "-p", "-J", "-t", pane.pane_id, "-S", "-", "-E", "-"]).stdout, [])
    }, 30_000)
  }

  it("`echo hello; exit 3` in one pane of two: shell_exited, exit status 3, output hello", async () => {
    const { pane } = ok(await server.call("split_window", { pane_id: firstPane, command: SHELLS[0]![1] }))
    const result = ok(await server.call("run_command", { pane_id: pane.pane_id, command: "echo hello; exit 3", timeout: 10 }))
    expect(result).toMatchObject({ outcome: "shell_exited", exit_status: 3, output: "hello", handle: null })
    // The pane closed with its shell; the window's other pane is still there.
    expect(world.tmux(["list-panes", "-a", "-F", "#{pane_id}"]).stdout).not.toContain(`${pane.pane_id}\n`)
    expect(ok(await server.call("list_panes", {})).items).toContainEqual(expect.objectContaining({ pane_id: firstPane }))
  }, 30_000)
})

describe("run_command on a remote host's fresh pane", () => {
  let world: World
  let sshd: PrivateSshd
  let server: Served
  const remoteName = () => `${world.socketName}-r`
  const remoteTmux = (...args: Array<string>) =>
    execFileSync("tmux", ["-f", "/dev/null", "-L", remoteName(), ...args], { env: sshd.remoteEnv, encoding: "utf8", timeout: 10_000 })

  beforeAll(async () => {
    world = makeWorld()
    sshd = startPrivateSshd({ alias: "etm-clean-pane" })
    remoteTmux("new-session", "-d", "-s", "far", "-x", "100", "-y", "30", "HISTFILE=/dev/null bash --norc --noprofile")
    const hostsPath = join(world.dir, "hosts.json")
    writeFileSync(hostsPath, JSON.stringify(sshd.hostsFile("ci")))
    server = await serve(world, { env: { LIBTMUX_MCP_HOSTS: hostsPath, LIBTMUX_SOCKET: remoteName() } })
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    if (sshd !== undefined) spawnSync("tmux", ["-f", "/dev/null", "-L", remoteName(), "kill-server"], { env: sshd.remoteEnv })
    sshd?.stop()
    world?.dispose()
  })

  it("shows the two commands, their output and the prompt, nothing of the framing", async () => {
    const panes = ok(await server.call("list_panes", { host: "ci" })).items
    const { pane } = ok(
      await server.call("split_window", { host: "ci", pane_id: panes[0].pane_id, command: ["bash", "--norc", "--noprofile"] })
    )
    const first = ok(await server.call("run_command", { host: "ci", pane_id: pane.pane_id, command: "echo one-$((1+1))", timeout: 10 }))
    const second = ok(await server.call("run_command", { host: "ci", pane_id: pane.pane_id, command: "printf 'x\\ny\\n'", timeout: 10 }))
    expect([first.outcome, first.output_source, first.output, second.output]).toEqual(["completed", "pipe", "one-2", "x\ny"])
    expectClean(remoteTmux("capture-pane", "-p", "-J", "-t", pane.pane_id, "-S", "-", "-E", "-"), [])
  }, 60_000)
})
