/**
 * run_command against the gaps of issue 21 items 11 and 12: a line that never ends (the recorder
 * and this process keep a bounded part of it), a command made of shell builtins only (its claim
 * stays live for another MCP server), and a shell that traces (the framing never shows).
 */
import { readdirSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { useWorlds } from "../support/liveTmux.js"
import { BASH, shellWorld } from "../support/shellWorld.js"

const { world } = useWorlds()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

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
