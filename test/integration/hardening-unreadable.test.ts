/**
 * Issue 10 item 18: a "tmux" that exits 0 but prints nothing, garbage, or garbage holding record
 * marks is never read as an answer. Every tool of the registry, called with valid arguments, fails
 * with `failed` (tmux's output could not be read): no success (an empty capture, an empty list, a
 * "done"), no `not_found`, no defect ("Internal error").
 *
 * The binary is a switch: it runs the real tmux until a mode file says otherwise, so the same layer
 * first sets things up for real (a pending run_command, whose handle wait_for_command gets) and
 * then meets the broken binary. The socket transport
 * spawns no binary for these calls: its sweep (a server whose answers cannot be read) is in
 * socket.test.ts.
 */
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { allTools } from "../../src/tools/registry.js"
import { validCallsOfEveryTool } from "../support/everyTool.js"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import { type PrivateTmux, testTransport } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"

const { world } = useWorlds()

/** What the broken binary prints (to stdout, exit status 0). `real` runs tmux. */
const MODES = {
  empty: "",
  garbage: "garbage\\nnot tmux at all\\n",
  marks: "\\036srv\\0371\\0372\\0373.3a\\037/tmp/x\\n\\036ses\\037$0\\037main\\0371\\0370\\0371\\037@0\\037%0\\n\\036pan\\037%0\\n"
} as const
type Mode = keyof typeof MODES | "real"

const switchableTmux = (w: PrivateTmux) => {
  const bin = join(w.tmpdir, "switchable-tmux")
  const modeFile = `${bin}.mode`
  const cases = Object.entries(MODES)
    .map(([mode, output]) => `  ${mode}) printf '${output}'; exit 0 ;;`)
    .join("\n")
  writeFileSync(bin, `#!/bin/sh\ncase "$(cat '${modeFile}' 2>/dev/null)" in\n${cases}\nesac\nexec tmux "$@"\n`)
  chmodSync(bin, 0o755)
  return { bin, set: (mode: Mode) => writeFileSync(modeFile, mode === "real" ? "" : mode) }
}

describe.runIf(testTransport !== "socket")("a tmux binary whose output cannot be read (item 18)", () => {
  for (const mode of Object.keys(MODES) as Array<keyof typeof MODES>) {
    it(
      `every tool fails with failed, none succeeds or reports a defect (${
        mode === "empty" ? "exit 0, no output" : mode === "garbage" ? "exit 0, garbage" : "exit 0, garbage with record marks"
      })`,
      async () => {
        const w = world()
        w.tmuxOk("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", "HISTFILE=/dev/null bash --norc --noprofile")
        w.tmuxOk("split-window", "-d", "-t", "%0")
        await waitFor("the shell's prompt", () => w.tmuxOk("capture-pane", "-p", "-t", "%0").trim() !== "")
        w.tmuxOk("set-buffer", "-b", "b", "x")
        const tmux = switchableTmux(w)
        tmux.set("real")
        const layer = w.layer({ flags: { tmuxBin: tmux.bin, safety: "destructive", allowServerStart: "1" } })
        // A run left pending, for wait_for_command's handle.
        const pending = okResult(await runTool(layer, "run_command", { pane_id: "%1", command: "sleep 60", timeout: 0.3 }))
        expect(pending.outcome).toBe("timed_out")

        tmux.set(mode)
        const calls = validCallsOfEveryTool(pending.handle)
        // Every tool is swept: a new tool must be added to CALLS.
        expect(Object.keys(calls).sort()).toEqual(allTools.map((tool) => tool.name).sort())
        const wrong: Array<string> = []
        for (const [name, variants] of Object.entries(calls)) {
          for (const args of variants) {
            const result = await runTool(layer, name, args)
            const label = `${name} ${JSON.stringify(args)}`
            if (name === "run_batch" && result.isError !== true) {
              // A batch answers with each operation's own error (issue 14 item 4): those must be the same.
              for (const operation of okResult(result).results) {
                if (operation.skipped === true) continue
                if (operation.error?.code !== "failed" || !operation.error.message.includes("could not read")) {
                  wrong.push(`${label}: operation ${operation.tool}: ${JSON.stringify(operation).slice(0, 300)}`)
                }
              }
              continue
            }
            if (result.isError !== true) {
              wrong.push(`${label}: succeeded with ${JSON.stringify(result.structuredContent).slice(0, 200)}`)
              continue
            }
            const error = errorMeta(result)
            if (error.code !== "failed" || /Internal error/.test(error.text) || !error.text.includes("could not read")) {
              wrong.push(`${label}: ${error.code}: ${error.text.slice(0, 300)}`)
            }
          }
        }
        expect(wrong).toEqual([])
        // The real server is untouched by the sweep.
        tmux.set("real")
        expect(w.tmuxOk("list-sessions", "-F", "#{session_name}").trim()).toBe("main")
      },
      120_000
    )
  }
})
