/**
 * run_command against the gaps of issue 21 items 11 and 12: a line that never ends (the recorder
 * and this process keep a bounded part of it), a command made of shell builtins only (its claim
 * stays live for another MCP server), and a shell that traces (the framing never shows).
 */
import { readdirSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { useWorlds } from "../support/liveTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"
import { BASH, handleFields, idOf, paneValue, shellWorld } from "../support/shellWorld.js"

const { world } = useWorlds()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

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
      expect(screen.split("\n").filter((line) => /[0-9a-f]{32}/.test(line))).toEqual([
        expect.stringMatching(/^ETM_E_[0-9a-f]{16}_[0-9a-f]{32} 0$/)
      ])
      // The shell still traces afterwards.
      expect((await run("echo $-")).output).toMatch(/x/)
    })
  }
})
