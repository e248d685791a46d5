/**
 * capture_pane on real tmux: what a pane printed, ranges into history, bounds, wrapped lines.
 */
import { describe, expect, it } from "vitest"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"

const { world } = useWorlds()

/**
 * Runs `script` in a new window of session "base" and waits until tmux has taken in everything it
 * printed: the shell has given way to `sleep`, and the screen ends with `lastLine`.
 */
const paneRunning = async (
  w: PrivateTmux,
  script: string,
  lastLine: string,
  size = { x: 80, y: 24 }
): Promise<string> => {
  if (w.tmux("has-session", "-t", "base").status !== 0) {
    w.tmuxOk("new-session", "-d", "-s", "base", "-x", String(size.x), "-y", String(size.y))
    w.tmuxOk("set-option", "-g", "history-limit", "5000")
  }
  const paneId = w
    .tmuxOk("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "base", `sh -c '${script}; exec sleep 600'`)
    .trim()
  await waitFor(`${paneId} to finish printing`, () => {
    if (w.tmuxOk("display-message", "-p", "-t", paneId, "#{pane_current_command}").trim() !== "sleep") return false
    // tmux 3.8's capture-pane prints a tab the program printed as a tab; before, as the spaces it moved over.
    const screen = w.tmuxOk("capture-pane", "-p", "-t", paneId).trimEnd().split("\n")
    return screen[screen.length - 1]?.trimEnd().replace(/^\t/, " ".repeat(8)) === lastLine
  })
  return paneId
}

const numbers = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i)).join("\n")

describe("capture_pane", () => {
  it("returns what the pane printed, exactly", async () => {
    const w = world()
    const paneId = await paneRunning(
      w,
      `printf "alpha\\n  indented  \\nünï€ 😀 日本\\n\\ttab #{pane_id} #(id)\\n"`,
      "        tab #{pane_id} #(id)"
    )
    // tmux 3.8 keeps the tab (as its own capture-pane shows); older versions give the spaces it moved over.
    const tab = w.tmuxOk("capture-pane", "-p", "-t", paneId).includes("\t") ? "\t" : " ".repeat(8)
    const capture = okResult(await runTool(w.layer(), "capture_pane", { pane_id: paneId }))
    expect(capture).toEqual({
      pane_id: paneId,
      // Trailing spaces and the blank rows below the output are screen, not content.
      content: `alpha\n  indented\nünï€ 😀 日本\n${tab}tab #{pane_id} #(id)`,
      lines_total: 4,
      lines_returned: 4,
      truncated: false,
      truncated_lines: 0
    })
  })

  it("reaches into history with start/end and keeps the newest max_lines lines", async () => {
    const w = world()
    const paneId = await paneRunning(w, "seq 1 3000", "3000")
    const height = Number(w.tmuxOk("display-message", "-p", "-t", paneId, "#{pane_height}").trim())
    const layer = w.layer()
    const capture = async (args: Record<string, unknown>) => okResult(await runTool(layer, "capture_pane", { pane_id: paneId, ...args }))

    // The visible screen: the last lines, the cursor's empty row dropped.
    const firstVisible = 3000 - height + 2
    expect(await capture({})).toMatchObject({ content: numbers(firstVisible, 3000), lines_total: height - 1, truncated: false })

    // Everything, bounded by the default of 500 newest lines.
    expect(await capture({ start: "-", end: "-" })).toEqual({
      pane_id: paneId,
      content: numbers(2501, 3000),
      lines_total: 3000,
      lines_returned: 500,
      truncated: true,
      truncated_lines: 2500
    })
    expect(await capture({ start: "-", max_lines: 10 })).toMatchObject({
      content: numbers(2991, 3000),
      lines_total: 3000,
      lines_returned: 10,
      truncated_lines: 2990
    })
    const all = await capture({ start: "-", max_lines: 5000 })
    expect(all).toMatchObject({ lines_total: 3000, lines_returned: 3000, truncated: false, truncated_lines: 0 })
    expect(all.content).toBe(numbers(1, 3000))

    // Negative lines are history just above the screen; 0 is the top visible line.
    expect((await capture({ start: -5, end: -1 })).content).toBe(numbers(firstVisible - 5, firstVisible - 1))
    expect((await capture({ start: 0, end: 2 })).content).toBe(numbers(firstVisible, firstVisible + 2))
    // "-" as start is the oldest history line: line k of the output sits at -(firstVisible - k).
    expect((await capture({ start: "-", end: -(firstVisible - 3) })).content).toBe(numbers(1, 3))
    expect(await capture({ start: "-", end: -1, max_lines: 100_000 })).toMatchObject({
      content: numbers(1, firstVisible - 1),
      truncated: false
    })
  })

  it("joins a line tmux wrapped at the pane width only when asked", async () => {
    const w = world()
    const long = "0123456789".repeat(10)
    const paneId = await paneRunning(w, `printf "%s\\nshort\\n" ${long}`, "short", { x: 40, y: 10 })
    expect(w.tmuxOk("display-message", "-p", "-t", paneId, "#{pane_width}").trim()).toBe("40")
    const layer = w.layer()
    const wrapped = okResult(await runTool(layer, "capture_pane", { pane_id: paneId }))
    expect(wrapped.content.split("\n")).toEqual([long.slice(0, 40), long.slice(40, 80), long.slice(80), "short"])
    const joined = okResult(await runTool(layer, "capture_pane", { pane_id: paneId, join_wrapped: true }))
    expect(joined.content.split("\n")).toEqual([long, "short"])
    expect(joined).toMatchObject({ lines_total: 2, lines_returned: 2 })
  })

  it("a missing pane is not_found; bad arguments are invalid_input", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d")
    const layer = w.layer()
    const missing = errorMeta(await runTool(layer, "capture_pane", { pane_id: "%42" }))
    expect(missing.code).toBe("not_found")
    expect(missing.text).toContain("%42")
    expect(missing.hint).toContain("list_panes")
    const invalid = [
      {},
      { pane_id: "0" },
      { pane_id: "%0", max_lines: 0 },
      { pane_id: "%0", start: "top" },
      { pane_id: "%0", extra: 1 }
    ]
    for (const args of invalid) {
      expect({ args, code: errorMeta(await runTool(layer, "capture_pane", args)).code }).toEqual({ args, code: "invalid_input" })
    }
  })
})
