/**
 * The model of tmux's history that the cursor property test runs on (test/support/PaneGrid.ts),
 * checked against real tmux: the same random history (test/support/PaneScript.ts) is played into
 * a real pane and into the model, and after each batch both hold the same rows, history size and
 * cursor. So the model cannot be wrong in the same way as the cursor code without this failing.
 *
 * The pane runs a printer (each typed line is run with eval, terminal echo off, no prompt); text and
 * clears are printf'd in batches, each ended by `tmux wait-for -S` from inside the pane; clear-history
 * and resizes are tmux commands from outside.
 */
import { describe, expect, it } from "vitest"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import { PaneGrid } from "../support/PaneGrid.js"
import { applyOp, type GridOp, makeSteps, random } from "../support/PaneScript.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"

const { world } = useWorlds()

const PRINTER = `stty -echo; printf 'ready\\n'; while IFS= read -r line; do eval "$line"; done`

/** A shell word printf prints as `text` (its \r and \n as such). */
const printfOf = (text: string): string =>
  `printf '${text.replace(/\\/g, "\\\\\\\\").replace(/%/g, "%%").replace(/\r/g, "\\r").replace(/\n/g, "\\n").replace(/'/g, "'\\''")}'`

/** What the pane's program does for an op that goes through the pane, or undefined for a tmux command. */
const shellOf = (op: GridOp): string | undefined => {
  if (op.kind === "write") return printfOf(op.text)
  if (op.kind === "clear") return `printf '\\033[H\\033[J${op.withHistory ? "\\033[3J" : ""}'`
  return undefined
}

/** The real pane as the model shows it: every row, the history size, the size and the cursor. */
const realPane = (w: PrivateTmux, paneId: string) => {
  const [history, width, height, x, y] = w.tmuxOk(
    "display-message",
    "-p",
    "-t",
    paneId,
    "#{history_size} #{pane_width} #{pane_height} #{cursor_x} #{cursor_y}"
  ).trim().split(" ").map(Number)
  const rows = w.tmuxOk("capture-pane", "-p", "-t", paneId, "-S", "-", "-E", "-").replace(/\n$/, "").split("\n").map((row) => row.trimEnd())
  return { history, width, height, cursor: [x, y], rows }
}

const modelPane = (grid: PaneGrid) => ({
  history: grid.historySize,
  width: grid.width,
  height: grid.height,
  cursor: [grid.cursorX, grid.cursorY],
  rows: grid.captured()
})

describe.each([
  { seed: 1, limit: 60, width: 40, height: 10 },
  { seed: 2, limit: 25, width: 30, height: 6 },
  { seed: 3, limit: 200, width: 50, height: 15 },
  { seed: 4, limit: 10, width: 20, height: 3 },
  { seed: 5, limit: 500, width: 75, height: 28 }
])("the pane model (seed $seed, history-limit $limit)", ({ seed, limit, width, height }) => {
  it("holds the rows, history size and cursor a real pane holds after the same history", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "base", "-x", String(width), "-y", String(height))
    w.tmuxOk("set-option", "-g", "history-limit", String(limit))
    const paneId = w.tmuxOk("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "base", PRINTER).trim()
    const windowId = w.tmuxOk("display-message", "-p", "-t", paneId, "#{window_id}").trim()
    await waitFor("the printer", () => w.tmuxOk("capture-pane", "-p", "-t", paneId).trim() === "ready")
    const grid = new PaneGrid({ width, height, historyLimit: limit })
    grid.write("ready\r\n")

    const rng = random(seed)
    const { steps } = makeSteps(rng, Math.max(150, 3 * limit), { width, widths: [20, 70], heights: [4, 25], tokens: { next: 1 } })
    const ops = steps.flatMap((step) => step.ops)
    let batch: Array<string> = []
    let checks = 0
    const check = async (what: string) => {
      checks++
      await waitFor(
        `the pane to match the model after ${what}`,
        () => JSON.stringify(realPane(w, paneId)) === JSON.stringify(modelPane(grid)),
        3_000
      ).catch(
        () => expect(realPane(w, paneId), what).toEqual(modelPane(grid))
      )
    }
    const flush = async () => {
      if (batch.length === 0) return
      const channel = `etm-model-${checks}`
      w.tmuxOk("send-keys", "-t", paneId, "-l", `${batch.join("; ")}; tmux -S "\${TMUX%%,*}" wait-for -S ${channel}`)
      w.tmuxOk("send-keys", "-t", paneId, "Enter")
      w.tmuxOk("wait-for", channel)
      batch = []
      await check(`batch ${checks}`)
    }
    for (const op of ops) {
      const shell = shellOf(op)
      if (shell === undefined) {
        await flush()
        if (op.kind === "clearHistory") w.tmuxOk("clear-history", "-t", paneId)
        else if (op.kind === "height") w.tmuxOk("resize-window", "-t", windowId, "-y", String(op.rows))
        else if (op.kind === "width") w.tmuxOk("resize-window", "-t", windowId, "-x", String(op.columns))
        applyOp(grid, op)
        await check(op.kind)
      } else {
        applyOp(grid, op)
        batch.push(shell)
        if (batch.join("; ").length > 1500) await flush()
      }
    }
    await flush()
    expect(checks).toBeGreaterThan(5)
  })
})
