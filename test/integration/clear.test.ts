/**
 * clear_pane on real tmux (issue 14 item 3): the scrollback goes, the screen too with `screen`
 * (a terminal reset: the program receives no byte), and the caller's pane and a pane a person
 * watches are refused unless `force`.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { attachTerminalClient, callerEnv, useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"

const { defer, world } = useWorlds()

const historyOf = (w: PrivateTmux, paneId: string) => Number(w.tmuxOk("display-message", "-p", "-t", paneId, "#{history_size}").trim())

/** A pane %0 that printed 1..200 (so history holds the oldest) and waits. */
const printed = async (w: PrivateTmux) => {
  w.tmuxOk("new-session", "-d", "-s", "s", "-x", "80", "-y", "24", "seq 1 200; exec sleep 600")
  await waitFor("the numbers", () => w.tmuxOk("capture-pane", "-p", "-t", "%0").includes("200"))
  return w.layer()
}

describe("clear_pane", () => {
  it("clears the scrollback and says how many lines it held; the screen stays", async () => {
    const w = world()
    const layer = await printed(w)
    const before = historyOf(w, "%0")
    expect(before).toBeGreaterThan(100)
    const cleared = okResult(await runTool(layer, "clear_pane", { pane_id: "%0" }))
    expect(cleared).toEqual({ pane_id: "%0", history_lines_cleared: before, screen_cleared: false, history_size: 0 })
    expect(historyOf(w, "%0")).toBe(0)
    expect(w.tmuxOk("capture-pane", "-p", "-t", "%0")).toContain("200")
  })

  it("with screen, blanks the screen too, and the program receives nothing", async () => {
    const w = world()
    const file = join(w.tmpdir, "received")
    w.tmuxOk("new-session", "-d", "-s", "s", "-x", "80", "-y", "24", `seq 1 100; stty raw -echo && exec cat > ${file}`)
    const read = () => (existsSync(file) ? readFileSync(file, "utf8") : "")
    const screenText = () => w.tmuxOk("capture-pane", "-p", "-t", "%0", "-S", "-").trim()
    await waitFor("the numbers and raw mode", () => screenText().endsWith("100") && existsSync(file))
    expect(historyOf(w, "%0")).toBeGreaterThan(0)
    const layer = w.layer()
    const cleared = okResult(await runTool(layer, "clear_pane", { pane_id: "%0", screen: true }))
    expect(cleared).toMatchObject({ screen_cleared: true, history_size: 0 })
    expect(screenText()).toBe("")
    expect(historyOf(w, "%0")).toBe(0)
    // Still alive and reading, and it received nothing from the clearing.
    w.tmuxOk("send-keys", "-t", "%0", "-l", "after")
    await waitFor("the bytes", () => read().length >= 5)
    expect(read()).toBe("after")
  })

  it("refuses the caller's pane and a watched pane unless force, before anything is cleared", async () => {
    const w = world()
    await printed(w)
    const inside = w.layer({ env: callerEnv(w, "%0") })
    const self = errorMeta(await runTool(inside, "clear_pane", { pane_id: "%0" }))
    expect(self).toMatchObject({ code: "denied", effects: "none" })
    expect(self.text).toContain("force: true")
    expect(historyOf(w, "%0")).toBeGreaterThan(0)

    const client = await attachTerminalClient(w, "s")
    defer(client.close)
    const layer = w.layer()
    const watched = errorMeta(await runTool(layer, "clear_pane", { pane_id: "%0", screen: true }))
    expect(watched).toMatchObject({ code: "denied", effects: "none" })
    expect(historyOf(w, "%0")).toBeGreaterThan(0)
    expect(okResult(await runTool(layer, "clear_pane", { pane_id: "%0", force: true })).history_size).toBe(0)

    expect(errorMeta(await runTool(layer, "clear_pane", { pane_id: "%9" })).code).toBe("not_found")
  })
})
