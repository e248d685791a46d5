/**
 * Issue 14 item 7 on real tmux: the list tools' `where` (by command, cwd, a hostile title taken
 * literally) and list_panes' neighbour keys over a 2×2 grid, an uneven split and a zoomed window.
 */
import { existsSync, realpathSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"

const { world } = useWorlds()

const ids = (page: any): Array<string> => page.items.map((pane: any) => pane.pane_id)

/** A 2×2 grid in one window of an 81×25 session: returns the panes as [top-left, top-right, bottom-left, bottom-right]. */
const grid = (w: PrivateTmux) => {
  const topLeft = w.tmuxOk("new-session", "-d", "-s", "grid", "-x", "81", "-y", "25", "-P", "-F", "#{pane_id}", "sleep 600").trim()
  const topRight = w.tmuxOk("split-window", "-h", "-t", topLeft, "-P", "-F", "#{pane_id}", "sleep 600").trim()
  const bottomLeft = w.tmuxOk("split-window", "-v", "-t", topLeft, "-P", "-F", "#{pane_id}", "sleep 600").trim()
  const bottomRight = w.tmuxOk("split-window", "-v", "-t", topRight, "-P", "-F", "#{pane_id}", "sleep 600").trim()
  return [topLeft, topRight, bottomLeft, bottomRight] as const
}

describe("where on the list tools, on real tmux", () => {
  it("finds panes by command (sleep vs a shell) and by cwd; total counts the matches", async () => {
    const w = world()
    const directory = realpathSync(w.tmpdir)
    const shell = w.tmuxOk("new-session", "-d", "-s", "work", "-x", "80", "-y", "24", "-P", "-F", "#{pane_id}", "sh").trim()
    const sleeper = w.tmuxOk("split-window", "-t", shell, "-c", directory, "-P", "-F", "#{pane_id}", "sleep 600").trim()
    await waitFor(
      "the commands to show",
      () =>
        w.tmuxOk("display-message", "-p", "-t", sleeper, "#{pane_current_command}").trim() === "sleep" &&
        w.tmuxOk("display-message", "-p", "-t", shell, "#{pane_current_command}").trim() === "sh"
    )
    const layer = w.layer()
    expect(ids(okResult(await runTool(layer, "list_panes", { where: { command: "sleep" } })))).toEqual([sleeper])
    expect(ids(okResult(await runTool(layer, "list_panes", { where: { command: "^sh$", regex: true } })))).toEqual([shell])
    const inDirectory = okResult(await runTool(layer, "list_panes", { where: { cwd: directory }, fields: ["command"] }))
    expect(inDirectory).toMatchObject({ total: 1, items: [{ pane_id: sleeper, command: "sleep" }] })
    expect(ids(okResult(await runTool(layer, "list_panes", { where: { command: "sleep", active: true } })))).toEqual([sleeper])
    const windows = okResult(await runTool(layer, "list_windows", { where: { session_name: "work" } }))
    expect(windows.total).toBe(1)
    expect(okResult(await runTool(layer, "list_sessions", { where: { session_name: "nothing" } }))).toMatchObject({ items: [], total: 0 })
  })

  it("a hostile title is a literal filter value: nothing runs, and it matches only the pane titled so", async () => {
    const w = world()
    const marker = join(w.tmpdir, "ran")
    const hostile = `#(touch ${marker})`
    const titled = w.tmuxOk("new-session", "-d", "-s", "t", "-P", "-F", "#{pane_id}", "sleep 600").trim()
    const other = w.tmuxOk("split-window", "-t", titled, "-P", "-F", "#{pane_id}", "sleep 600").trim()
    // `select-pane -T` expands formats: `##` stores one `#`.
    w.tmuxOk("select-pane", "-t", titled, "-T", hostile.replaceAll("#", "##"))
    w.tmuxOk("select-pane", "-t", other, "-T", "plain")
    expect(w.tmuxOk("display-message", "-p", "-t", titled, "#{pane_title}").trim()).toBe(hostile)
    const layer = w.layer()
    expect(ids(okResult(await runTool(layer, "list_panes", { where: { title: hostile } })))).toEqual([titled])
    expect(ids(okResult(await runTool(layer, "list_panes", { where: { title: "#{pane_title}" } })))).toEqual([])
    expect(ids(okResult(await runTool(layer, "list_panes", { where: { title: "#(touch", session_name: "t" } })))).toEqual([titled])
    expect(existsSync(marker)).toBe(false)
  })
})

describe("list_panes beside a pane, on real tmux", () => {
  it("in a 2×2 grid, each pane's neighbours on every side", async () => {
    const w = world()
    const [tl, tr, bl, br] = grid(w)
    const layer = w.layer()
    const beside = async (key: string, pane: string) => ids(okResult(await runTool(layer, "list_panes", { where: { [key]: pane } })))
    const expected: Array<[string, string, Array<string>]> = [
      [tl, "right_of", [tr]],
      [tl, "below", [bl]],
      [tl, "left_of", []],
      [tl, "above", []],
      [tr, "left_of", [tl]],
      [tr, "below", [br]],
      [tr, "right_of", []],
      [bl, "above", [tl]],
      [bl, "right_of", [br]],
      [bl, "below", []],
      [br, "above", [tr]],
      [br, "left_of", [bl]],
      [br, "right_of", []]
    ]
    for (const [pane, key, neighbours] of expected) {
      expect({ pane, key, got: await beside(key, pane) }).toEqual({ pane, key, got: neighbours })
    }
  })

  it("an uneven split lists every pane along the side, most shared border first; a zoomed window answers as unzoomed", async () => {
    const w = world()
    const left = w.tmuxOk("new-session", "-d", "-s", "u", "-x", "81", "-y", "30", "-P", "-F", "#{pane_id}", "sleep 600").trim()
    const top = w.tmuxOk("split-window", "-h", "-t", left, "-P", "-F", "#{pane_id}", "sleep 600").trim()
    const middle = w.tmuxOk("split-window", "-v", "-l", "20", "-t", top, "-P", "-F", "#{pane_id}", "sleep 600").trim()
    const bottom = w.tmuxOk("split-window", "-v", "-l", "5", "-t", middle, "-P", "-F", "#{pane_id}", "sleep 600").trim()
    // The last check filters by command: a pane made a moment ago may not run sleep yet.
    await waitFor(
      "every pane to run sleep",
      () =>
        [left, top, middle, bottom].every((pane) =>
          w.tmuxOk("display-message", "-p", "-t", pane, "#{pane_current_command}").trim() === "sleep"
        )
    )
    const layer = w.layer()
    const rightOfLeft = okResult(await runTool(layer, "list_panes", { where: { right_of: left }, fields: ["height"] }))
    // 30 rows: the right column is 9, 14 and 5 rows high.
    expect(rightOfLeft.items).toEqual([{ pane_id: middle, height: 14 }, { pane_id: top, height: 9 }, { pane_id: bottom, height: 5 }])
    expect(rightOfLeft.total).toBe(3)
    // Zoomed, tmux reports the zoomed pane as the whole window; its neighbours are still those of the layout.
    w.tmuxOk("resize-pane", "-Z", "-t", middle)
    expect(w.tmuxOk("display-message", "-p", "-t", middle, "#{window_zoomed_flag}").trim()).toBe("1")
    expect(ids(okResult(await runTool(layer, "list_panes", { where: { left_of: middle } })))).toEqual([left])
    expect(ids(okResult(await runTool(layer, "list_panes", { where: { below: middle } })))).toEqual([bottom])
    expect(ids(okResult(await runTool(layer, "list_panes", { where: { right_of: left, command: "sleep" } })))).toHaveLength(3)
  })

  it("a pane alone in its window has no neighbour (an empty page); a missing pane is not_found", async () => {
    const w = world()
    const only = w.tmuxOk("new-session", "-d", "-s", "one", "-P", "-F", "#{pane_id}", "sleep 600").trim()
    w.tmuxOk("new-window", "-t", "one", "sleep 600")
    const layer = w.layer()
    expect(okResult(await runTool(layer, "list_panes", { where: { right_of: only } }))).toMatchObject({ items: [], total: 0 })
    expect(errorMeta(await runTool(layer, "list_panes", { where: { below: "%99" } })).code).toBe("not_found")
  })
})
