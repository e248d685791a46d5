/**
 * A pane's placements on real tmux (issue 31 item 5): a window linked into several sessions
 * (link-window) gives its panes one placement per session, bounded and said complete or not; the
 * seed's pane view (split_window `fields: "all"`) carries them with is_caller, is_attended and the
 * size; session names are anyone's, so they come back escaped and cut.
 */
import { describe, expect, it } from "vitest"
import { MAX_PLACEMENT_NAME_CHARS, MAX_PLACEMENTS } from "../../src/operations/hierarchy/Placements.js"
import { attachTerminalClient, callerEnv, useWorlds } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { okResult, runTool } from "../support/runTool.js"

const { world, defer } = useWorlds()

/** Session "a": @0 %0 and @1 %1; session "b": @2 %2, with @1 linked in at index 7. */
const linkedWorld = (w: PrivateTmux) => {
  w.tmuxOk("new-session", "-d", "-s", "a", "-x", "80", "-y", "24", "sh")
  w.tmuxOk("new-window", "-t", "a", "sh")
  w.tmuxOk("new-session", "-d", "-s", "b", "-x", "80", "-y", "24", "sh")
  w.tmuxOk("link-window", "-s", "@1", "-t", "b:7")
}

const IN_A_AND_B = [
  { session_id: "$0", session_name: "a", window_index: 1 },
  { session_id: "$1", session_name: "b", window_index: 7 }
]

describe("placements", () => {
  it("a window linked into two sessions gives its panes two placements (list_panes, get_pane_info); others one", async () => {
    const w = world()
    linkedWorld(w)
    const layer = w.layer()
    const page = okResult(await runTool(layer, "list_panes", { fields: ["placements", "placements_complete"] }))
    expect(page.items).toEqual([
      { pane_id: "%0", placements: [{ session_id: "$0", session_name: "a", window_index: 0 }], placements_complete: true },
      { pane_id: "%1", placements: IN_A_AND_B, placements_complete: true },
      { pane_id: "%2", placements: [{ session_id: "$1", session_name: "b", window_index: 0 }], placements_complete: true }
    ])
    // Scoped to session "b", the linked pane is still placed in "a" too.
    const inB = okResult(await runTool(layer, "list_panes", { session_id: "$1", fields: ["placements"] }))
    expect(inB.items.find((pane: any) => pane.pane_id === "%1").placements).toEqual(IN_A_AND_B)
    expect(okResult(await runTool(layer, "get_pane_info", { pane_id: "%1" }))).toMatchObject({
      pane_id: "%1",
      placements: IN_A_AND_B,
      placements_complete: true
    })
    // The default list stays lean.
    expect(okResult(await runTool(layer, "list_panes")).items[1]).not.toHaveProperty("placements")
    // After an unlink the pane has one placement again.
    w.tmuxOk("unlink-window", "-t", "b:7")
    expect(okResult(await runTool(layer, "get_pane_info", { pane_id: "%1" })).placements).toEqual([IN_A_AND_B[0]])
  })

  it("split_window fields \"all\": the seed's pane view, with placements, is_caller, is_attended and the size", async () => {
    const w = world()
    linkedWorld(w)
    const client = await attachTerminalClient(w, "b")
    defer(client.close)
    w.tmuxOk("select-window", "-t", "b:7")
    const layer = w.layer({ env: callerEnv(w, "%0") })
    const split = okResult(await runTool(layer, "split_window", { pane_id: "%1", direction: "right", command: ["sh"], fields: "all" }))
    const [width, height] = w.tmuxOk("display-message", "-p", "-t", split.pane.pane_id, "#{pane_width} #{pane_height}").trim().split(" ")
    expect(split.pane).toMatchObject({
      window_id: "@1",
      is_caller: false,
      // b's client shows the linked window.
      is_attended: true,
      width: Number(width),
      height: Number(height),
      placements: IN_A_AND_B,
      placements_complete: true
    })
    expect(split.pane.width).toBeGreaterThan(0)
    const lean = okResult(await runTool(layer, "split_window", { pane_id: "%0", command: ["sh"] }))
    expect(Object.keys(lean.pane)).not.toContain("placements")
  })

  it(`at most ${MAX_PLACEMENTS}, placements_complete false when there are more`, async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "home", "-x", "80", "-y", "24", "sh")
    // One command list: MAX_PLACEMENTS more sessions, each linking @0 in at index 3.
    const more: Array<string> = []
    for (let i = 1; i <= MAX_PLACEMENTS; i++) {
      more.push("new-session", "-d", "-s", `s${i}`, "sh", ";", "link-window", "-s", "@0", "-t", `s${i}:3`, ";")
    }
    w.tmuxOk(...more.slice(0, -1))
    const layer = w.layer()
    const over = okResult(await runTool(layer, "get_pane_info", { pane_id: "%0" }))
    expect(over.placements).toHaveLength(MAX_PLACEMENTS)
    expect(over.placements_complete).toBe(false)
    // The first ones by session id: home's own, then s1…
    expect(over.placements.slice(0, 2)).toEqual([
      { session_id: "$0", session_name: "home", window_index: 0 },
      { session_id: "$1", session_name: "s1", window_index: 3 }
    ])
    w.tmuxOk("kill-session", "-t", `s${MAX_PLACEMENTS}`)
    const at = okResult(await runTool(layer, "list_panes", { window_id: "@0", fields: ["placements", "placements_complete"] }))
    expect(at.items[0].placements).toHaveLength(MAX_PLACEMENTS)
    expect(at.items[0].placements_complete).toBe(true)
  })

  it("a long session name is cut, saying so; a name that looks like a format stays text", async () => {
    const w = world()
    const long = "n".repeat(MAX_PLACEMENT_NAME_CHARS + 50)
    w.tmuxOk("new-session", "-d", "-s", "home", "-x", "80", "-y", "24", "sh")
    w.tmuxOk("new-session", "-d", "-s", long, "sh")
    // tmux expands a format in -s (## is a #) and stores a control character escaped already.
    w.tmuxOk("new-session", "-d", "-s", "x##{pane_id}", "sh")
    w.tmuxOk("link-window", "-s", "@0", "-t", "$1:1", ";", "link-window", "-s", "@0", "-t", "$2:1")
    const page = okResult(await runTool(w.layer(), "list_panes", { window_id: "@0", fields: ["placements"] }))
    expect(page.items[0].placements).toEqual([
      { session_id: "$0", session_name: "home", window_index: 0 },
      { session_id: "$1", session_name: `${"n".repeat(MAX_PLACEMENT_NAME_CHARS)}…`, window_index: 1 },
      { session_id: "$2", session_name: "x#{pane_id}", window_index: 1 }
    ])
  })
})
