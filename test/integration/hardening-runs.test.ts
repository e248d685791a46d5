/**
 * run_command against the gaps of issue 21 items 11 and 12: a line that never ends (the recorder
 * and this process keep a bounded part of it), a command made of shell builtins only (its claim
 * stays live for another MCP server), and a shell that traces (the framing never shows).
 */
import { readdirSync, readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { WATCHER_MEMORY_KIB } from "../../src/operations/commands/internal/RunLogs.js"
import { serverIdentity, useWorlds } from "../support/liveTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"
import { BASH, handleFields, idOf, paneValue, shellWorld } from "../support/shellWorld.js"

const { world } = useWorlds()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Each process's parent, from /proc. */
const parents = (): Map<number, number> => {
  const map = new Map<number, number>()
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8")
      map.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]))
    } catch {
      // Gone meanwhile.
    }
  }
  return map
}

const isBelow = (tree: Map<number, number>, pid: number, ancestor: number): boolean => {
  for (let at = tree.get(pid); at !== undefined && at > 1; at = tree.get(at)) if (at === ancestor) return true
  return false
}

/** Peak resident memory (KiB) of each process the tmux server runs outside the pane: the recorder's. */
const recorderPeaks = (serverPid: number, panePid: number): Map<number, number> => {
  const tree = parents()
  const peaks = new Map<number, number>()
  for (const pid of tree.keys()) {
    if (!isBelow(tree, pid, serverPid) || pid === panePid || isBelow(tree, pid, panePid)) continue
    try {
      const peak = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
      if (peak !== null) peaks.set(pid, Number(peak[1]))
    } catch {
      // Gone meanwhile.
    }
  }
  return peaks
}

describe("a line that never ends (issue 21 item 11)", () => {
  const MEGABYTES = 24
  const BYTES = MEGABYTES * 1024 * 1024

  it("a command printing megabytes without a newline: the recorder stays small, the result keeps head and tail", async () => {
    const { w, layer } = await shellWorld(world())
    const serverPid = serverIdentity(w).pid
    const panePid = Number(paneValue(w, "%0", "pane_pid"))
    // The line is left open while the command sleeps, so the recorder holds it as long as it can.
    const call = runTool(layer, "run_command", {
      pane_id: "%0",
      command: `head -c ${BYTES} /dev/zero | tr '\\0' x; printf 'TAIL'; sleep 2; printf 'END'`,
      timeout: 60
    })
    let settled = false
    void call.finally(() => {
      settled = true
    })
    const peaks = new Map<number, number>()
    while (!settled) {
      for (const [pid, peak] of recorderPeaks(serverPid, panePid)) peaks.set(pid, Math.max(peak, peaks.get(pid) ?? 0))
      await sleep(50)
    }
    const result = okResult(await call)
    expect(result).toMatchObject({ outcome: "completed", exit_status: 0, lines_total: 1, truncated: true, cut_lines: 1 })
    // The recorder ran and was watched; none of its processes held the line.
    expect(peaks.size).toBeGreaterThan(0)
    expect([...peaks.values()].every((peak) => peak < WATCHER_MEMORY_KIB), `peaks (KiB): ${[...peaks.values()].join(" ")}`).toBe(true)
    // What was cut is said in the line: its head, the count of bytes left out, its tail.
    const match = /^(x+)\[… (\d+) bytes elided …\](x*TAILEND)$/.exec(result.output)
    expect(match).not.toBeNull()
    const [, head, elided, tail] = match!
    expect(head!.length + Number(elided) + tail!.length).toBe(BYTES + "TAILEND".length)
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(4096)
  }, 90_000)
})

describe("a command made of shell builtins only (issue 21 item 11)", () => {
  it("keeps its claim against a second MCP server after it timed out: run_pending, nothing typed into its read", async () => {
    const { w, run } = await shellWorld(world())
    const first = await run("read x; echo got=$x", { timeout: 1 })
    expect(first).toMatchObject({ outcome: "timed_out", started: true })
    expect(paneValue(w, "%0", "@etm-run")).toBe(idOf(first.handle))
    // Another server on the same tmux server (its own layer: nothing shared but tmux and the files).
    const second = w.layer()
    const refused = errorMeta(await runTool(second, "run_command", { pane_id: "%0", command: "echo second", timeout: 3 }))
    expect(refused).toMatchObject({ code: "conflict", effects: "none" })
    expect(refused.text).toContain("another run_command")
    expect(paneValue(w, "%0", "@etm-run")).toBe(idOf(first.handle))
    // The read got nothing of ours: what is typed now is its answer.
    w.tmuxOk("send-keys", "-t", "%0", "-l", "typed")
    w.tmuxOk("send-keys", "-t", "%0", "Enter")
    const rest = okResult(await runTool(second, "wait_for_command", { handle: first.handle, timeout: 10 }))
    // The terminal echoes what was typed, then the command prints.
    expect(rest).toMatchObject({ outcome: "completed", exit_status: 0, output: "typed\ngot=typed" })
  })

  it("in dash too, and it is taken over once a C-c stopped it", async () => {
    const { w, run } = await shellWorld(world(), "sh")
    const first = await run("read x; echo got=$x", { timeout: 1 })
    expect(first).toMatchObject({ outcome: "timed_out", started: true })
    const second = w.layer()
    const refused = errorMeta(await runTool(second, "run_command", { pane_id: "%0", command: "echo second", timeout: 3 }))
    expect(refused).toMatchObject({ code: "conflict", effects: "none" })
    expect(handleFields(first.handle).id).toBe(paneValue(w, "%0", "@etm-run"))
    // Stopped by a person, the read gives its lease up with the rest of the framing: the pane is taken over.
    w.tmuxOk("send-keys", "-t", "%0", "C-c")
    await sleep(300)
    expect(okResult(await runTool(second, "run_command", { pane_id: "%0", command: "echo second", timeout: 5 }))).toMatchObject({
      outcome: "completed",
      output: "second"
    })
  })
})

/** The shells installed here that trace with `set -x`, as shellWorld starts them. */
const tracingShells = [BASH, "sh", ...(readdirSync("/usr/bin").includes("zsh") ? ["zsh -f"] : [])]

describe("a shell that traces (issue 21 item 12)", () => {
  for (const shell of tracingShells) {
    it(`after set -x in ${shell.split(" ").find((word) => !word.includes("="))}: only the command's own trace and output, never the framing`, async () => {
      const { w, run } = await shellWorld(world(), shell)
      w.tmuxOk("send-keys", "-t", "%0", "-l", "set -x")
      w.tmuxOk("send-keys", "-t", "%0", "Enter")
      await sleep(200)
      const result = await run("echo after-set-x")
      expect(result).toMatchObject({ outcome: "completed", exit_status: 0 })
      // The command's own trace line is its output (zsh's PS4 names the eval it runs in).
      const [trace, printed, ...rest] = result.output.split("\n")
      expect(trace).toMatch(/^\++(?: |\S*> ?)echo after-set-x$/)
      expect([printed, ...rest]).toEqual(["after-set-x"])
      // Nothing of the framing was traced, on the screen either: no typed line, no marker, no secret.
      const screen = w.tmuxOk("capture-pane", "-p", "-J", "-t", "%0", "-S", "-")
      expect(screen.split("\n").filter((line) => line.startsWith("+"))).toEqual([trace])
      expect(screen.split("\n").filter((line) => /[0-9a-f]{16}|ETM_/.test(line))).toEqual([])
      // The shell still traces afterwards.
      expect((await run("echo $-")).output).toMatch(/x/)
      // With verbose on as well, what is echoed is the command's text, not the framing's.
      w.tmuxOk("send-keys", "-t", "%0", "-l", "set -v")
      w.tmuxOk("send-keys", "-t", "%0", "Enter")
      await sleep(200)
      const verbose = await run("echo after-set-v")
      expect(verbose.output.split("\n")).toContain("after-set-v")
      expect(verbose.output).not.toMatch(/ETM_|_etm_|command eval|printf|set -/)
      expect((await run("echo $-")).output).toMatch(/(?=.*x)(?=.*v)/)
    })
  }
})
