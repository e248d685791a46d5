/**
 * Issue 10, item 1: a cursor taken at the top of a fresh pane (row 0, column 2, no rows above to
 * identify it) must not lose output silently once tmux drops history. After more output than the
 * history-limit holds, capture_since and wait_for_text (with that cursor as `since`) say `missed`
 * and return what the pane still holds, where DONE-2 is.
 */
import { describe, expect, it } from "vitest"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { okResult, runTool } from "../support/runTool.js"

const { world } = useWorlds()

const screenOf = (w: PrivateTmux, paneId: string) => w.tmuxOk("capture-pane", "-p", "-t", paneId).trimEnd()

/** A fresh pane running sh with the prompt `$ `, in a pane made with the given history-limit. */
const freshShell = async (w: PrivateTmux, historyLimit?: number): Promise<string> => {
  const shell = "env PS1='$ ' sh"
  let paneId: string
  if (historyLimit === undefined) {
    paneId = w.tmuxOk("new-session", "-d", "-s", "repro", "-x", "80", "-y", "24", "-P", "-F", "#{pane_id}", shell).trim()
  } else {
    w.tmuxOk("new-session", "-d", "-s", "base", "-x", "80", "-y", "24")
    w.tmuxOk("set-option", "-g", "history-limit", String(historyLimit))
    paneId = w.tmuxOk("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "base", shell).trim()
  }
  await waitFor(
    "the prompt",
    () => w.tmuxOk("display-message", "-p", "-t", paneId, "#{cursor_x},#{cursor_y}").trim() === "2,0" && screenOf(w, paneId) === "$"
  )
  return paneId
}

describe.each([
  { limit: undefined, lines: 3000, what: "the default history-limit 2000" },
  { limit: 100, lines: 300, what: "history-limit 100" }
])("a fresh pane's cursor after seq 1 $lines overflows $what", ({ limit, lines }) => {
  it("capture_since says missed and returns what the pane holds, DONE-2 included", async () => {
    const w = world()
    const layer = w.layer()
    const paneId = await freshShell(w, limit)
    const { cursor } = okResult(await runTool(layer, "capture_since", { pane_id: paneId }))
    w.tmuxOk("send-keys", "-t", paneId, "-l", `seq 1 ${lines}; echo DONE-$((1+1))`)
    w.tmuxOk("send-keys", "-t", paneId, "Enter")
    await waitFor("DONE-2 and the next prompt", () => screenOf(w, paneId).endsWith("\nDONE-2\n$"))

    const since = okResult(await runTool(layer, "capture_since", { pane_id: paneId, cursor }))
    expect(since.missed).toBe(true)
    expect(since.content).toContain(`\n${lines}\nDONE-2\n$`)
  })

  it("wait_for_text with that cursor as since matches DONE-2 at once and says missed", async () => {
    const w = world()
    const layer = w.layer()
    const paneId = await freshShell(w, limit)
    const { cursor } = okResult(await runTool(layer, "capture_since", { pane_id: paneId }))
    w.tmuxOk("send-keys", "-t", paneId, "-l", `seq 1 ${lines}; echo DONE-$((1+1))`)
    w.tmuxOk("send-keys", "-t", paneId, "Enter")
    await waitFor("DONE-2 and the next prompt", () => screenOf(w, paneId).endsWith("\nDONE-2\n$"))

    const waited = okResult(await runTool(layer, "wait_for_text", { pane_id: paneId, patterns: ["DONE-2"], since: cursor, timeout: 5 }))
    expect(waited).toMatchObject({ outcome: "matched", matched_lines: [{ text: "DONE-2", pattern_index: 0 }], missed: true })
  })
})
