/**
 * The shaping tools on real tmux: each does its job (checked with the tmux CLI), returns the
 * object as it is afterwards, treats names and titles as literal text, and refuses what tmux would
 * store differently or silently ignore.
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { useWorlds } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"
import { tmuxAtLeast } from "../support/tmuxVersion.js"

const { world } = useWorlds()

const lines = (text: string) => text.split("\n").filter((line) => line !== "")

/** tmux's own view of one object, through a plain format. */
const show = (w: PrivateTmux, target: string, format: string) => w.tmuxOk("display-message", "-p", "-t", target, format).trimEnd()

/** Session "a" ($0): @0 with %0 above %1 (80x24). Session "b" ($1): @1 with %2. */
const twoSessions = (w: PrivateTmux) => {
  w.tmuxOk("new-session", "-d", "-s", "a", "-x", "80", "-y", "24")
  w.tmuxOk("split-window", "-v", "-t", "%0")
  w.tmuxOk("new-session", "-d", "-s", "b", "-x", "80", "-y", "24")
  return w.layer()
}

describe("names and titles are literal text", () => {
  it("stores format syntax, ;, quotes and unicode exactly, reads them back, and runs nothing", async () => {
    const w = world()
    const layer = twoSessions(w)
    const marker = join(w.tmpdir, "ran")
    const texts = [
      `#(touch ${marker})`,
      "#{pane_pid}",
      "a;",
      ";",
      "x ; kill-server ;",
      "## #[fg=red] #{?pane_active,yes,no}",
      `"double" 'single' $ $1 $(x) $$`,
      "ünï 日本 🙂",
      `#(touch ${marker}) #{session_name} end;`
    ]
    for (const [i, text] of texts.entries()) {
      const session = okResult(await runTool(layer, "rename_session", { session_id: "$1", name: `${text}${i}` }))
      expect({ text, name: session.session_name }).toEqual({ text, name: `${text}${i}` })
      expect(show(w, "$1", "#{session_name}")).toBe(`${text}${i}`)

      const window = okResult(await runTool(layer, "rename_window", { window_id: "@0", name: text }))
      expect({ text, name: window.window_name }).toEqual({ text, name: text })
      expect(show(w, "@0", "#{window_name}")).toBe(text)

      const pane = okResult(await runTool(layer, "set_pane_title", { pane_id: "%1", title: text }))
      expect({ text, title: pane.title }).toEqual({ text, title: text })
      expect(show(w, "%1", "#{pane_title}")).toBe(text)
    }
    expect(existsSync(marker)).toBe(false)
  })

  it("refuses what tmux would store escaped or ignore, and changes nothing then", async () => {
    const w = world()
    const layer = twoSessions(w)
    const cases: Array<[string, Record<string, unknown>]> = [
      ["rename_session", { session_id: "$1", name: "tab\there" }],
      ["rename_session", { session_id: "$1", name: "new\nline" }],
      ["rename_session", { session_id: "$1", name: "dot.ted" }],
      ["rename_session", { session_id: "$1", name: "co:lon" }],
      ["rename_session", { session_id: "$1", name: "" }],
      ["rename_window", { window_id: "@0", name: "tab\there" }],
      ["rename_window", { window_id: "@0", name: "back\\slash" }],
      ["rename_window", { window_id: "@0", name: "x".repeat(300) }],
      ["set_pane_title", { pane_id: "%1", title: "tab\there" }],
      ["set_pane_title", { pane_id: "%1", title: "esc\x1b[31m" }],
      ["rename_window", { window_id: "@0", name: "$HOME" }],
      ["rename_session", { session_id: "$1", name: "line\u2028sep" }]
    ]
    for (const [tool, args] of cases) {
      const error = errorMeta(await runTool(layer, tool, args))
      expect({ tool, args, code: error.code, effects: error.effects }).toEqual({ tool, args, code: "invalid_input", effects: "none" })
    }
    expect(show(w, "$1", "#{session_name}")).toBe("b")
    expect(show(w, "%1", "#{pane_title}")).not.toContain("tab")
    // A window name may hold ':' and '.'; a pane title may hold a backslash (before tmux 3.7).
    expect(okResult(await runTool(layer, "rename_window", { window_id: "@0", name: "a:b.c" })).window_name).toBe("a:b.c")
    const backslashed = await runTool(layer, "set_pane_title", { pane_id: "%1", title: "C:\\dir" })
    if (tmuxAtLeast("3.7")) {
      // 3.7 and later store it doubled: the call fails and says what tmux stored.
      const error = errorMeta(backslashed)
      expect(error).toMatchObject({ code: "failed", effects: "possible" })
      expect(error.text).toContain(JSON.stringify("C:\\\\dir"))
      expect(show(w, "%1", "#{pane_title}")).toBe("C:\\\\dir")
    } else {
      expect(okResult(backslashed).title).toBe("C:\\dir")
    }
  })

  it("reports a name tmux stored differently (a character its C library does not know) as a failure", async () => {
    const w = world()
    const layer = twoSessions(w)
    // U+1FAE8 (Unicode 15): printable to JavaScript; older C libraries call it unprintable and tmux escapes it.
    const name = "new \u{1FAE8} emoji"
    const result = await runTool(layer, "rename_window", { window_id: "@0", name })
    const stored = show(w, "@0", "#{window_name}")
    if (stored === name) {
      expect(okResult(result).window_name).toBe(name)
    } else {
      const error = errorMeta(result)
      expect(error).toMatchObject({ code: "failed", effects: "possible" })
      expect(error.text).toContain(JSON.stringify(stored))
    }
  })

  it("rename_session returns the session; a name in use is tmux's failure", async () => {
    const w = world()
    const layer = twoSessions(w)
    const renamed = okResult(await runTool(layer, "rename_session", { session_id: "$0", name: "renamed" }))
    expect(renamed).toMatchObject({ session_id: "$0", session_name: "renamed", window_count: 1, active_window_id: "@0" })
    expect(lines(w.tmuxOk("list-sessions", "-F", "#{session_name}")).sort()).toEqual(["b", "renamed"])
    const taken = errorMeta(await runTool(layer, "rename_session", { session_id: "$0", name: "b" }))
    expect(taken.code).toBe("failed")
    expect(taken.text).toContain("duplicate session")
  })

  it("set_pane_title does not change which pane is active", async () => {
    const w = world()
    const layer = twoSessions(w)
    const active = show(w, "@0", "#{pane_id}")
    const other = active === "%0" ? "%1" : "%0"
    const pane = okResult(await runTool(layer, "set_pane_title", { pane_id: other, title: "titled" }))
    expect(pane).toMatchObject({ pane_id: other, title: "titled", active: false })
    expect(show(w, "@0", "#{pane_id}")).toBe(active)
  })
})

describe("select_window / select_pane", () => {
  it("select_window by id and by direction next / previous / last", async () => {
    const w = world()
    const layer = twoSessions(w)
    w.tmuxOk("new-window", "-t", "a") // @2, now current
    w.tmuxOk("new-window", "-t", "a") // @3, now current
    const current = () => show(w, "$0", "#{window_id}")
    const byId = okResult(await runTool(layer, "select_window", { window_id: "@0" }))
    expect(byId).toMatchObject({ window_id: "@0", active: true, session_id: "$0" })
    expect(current()).toBe("@0")
    expect(okResult(await runTool(layer, "select_window", { session_id: "$0", direction: "next" })).window_id).toBe("@2")
    expect(current()).toBe("@2")
    expect(okResult(await runTool(layer, "select_window", { session_id: "$0", direction: "last" })).window_id).toBe("@0")
    // previous wraps around from the first window to the last.
    expect(okResult(await runTool(layer, "select_window", { session_id: "$0", direction: "previous" })).window_id).toBe("@3")
    expect(current()).toBe("@3")
    for (
      const args of [{}, { session_id: "$0" }, { window_id: "@0", direction: "next" }, {
        window_id: "@0",
        session_id: "$0",
        direction: "next"
      }]
    ) {
      expect(errorMeta(await runTool(layer, "select_window", args)).code).toBe("invalid_input")
    }
    expect(errorMeta(await runTool(layer, "select_window", { window_id: "@9" })).code).toBe("not_found")
    expect(errorMeta(await runTool(layer, "select_window", { session_id: "$9", direction: "next" })).code).toBe("not_found")
  })

  it("select_pane by id and by direction up / down / next / previous / last", async () => {
    const w = world()
    const layer = twoSessions(w)
    w.tmuxOk("split-window", "-v", "-t", "%1") // %3 below %1; pane indexes: %0 0, %1 1, %3 2
    const active = () => show(w, "@0", "#{pane_id}")
    const byId = okResult(await runTool(layer, "select_pane", { pane_id: "%0" }))
    expect(byId).toMatchObject({ pane_id: "%0", active: true, window_id: "@0", is_caller: null })
    expect(active()).toBe("%0")
    expect(okResult(await runTool(layer, "select_pane", { window_id: "@0", direction: "down" })).pane_id).toBe("%1")
    expect(active()).toBe("%1")
    expect(okResult(await runTool(layer, "select_pane", { window_id: "@0", direction: "next" })).pane_id).toBe("%3")
    // next wraps from the last pane index to the first.
    expect(okResult(await runTool(layer, "select_pane", { window_id: "@0", direction: "next" })).pane_id).toBe("%0")
    expect(okResult(await runTool(layer, "select_pane", { window_id: "@0", direction: "previous" })).pane_id).toBe("%3")
    expect(okResult(await runTool(layer, "select_pane", { window_id: "@0", direction: "up" })).pane_id).toBe("%1")
    expect(okResult(await runTool(layer, "select_pane", { window_id: "@0", direction: "last" })).pane_id).toBe("%3")
    expect(active()).toBe("%3")
    for (const args of [{}, { window_id: "@0" }, { pane_id: "%0", direction: "up" }]) {
      expect(errorMeta(await runTool(layer, "select_pane", args)).code).toBe("invalid_input")
    }
    expect(errorMeta(await runTool(layer, "select_pane", { pane_id: "%9" })).code).toBe("not_found")
    expect(errorMeta(await runTool(layer, "select_pane", { window_id: "@9", direction: "next" })).code).toBe("not_found")
  })
})

describe("layout and size", () => {
  it("select_layout applies named layouts and restores a layout string", async () => {
    const w = world()
    const layer = twoSessions(w)
    const original = show(w, "@0", "#{window_layout}")
    const horizontal = okResult(await runTool(layer, "select_layout", { window_id: "@0", layout: "even-horizontal" }))
    expect(horizontal.window_id).toBe("@0")
    expect(horizontal.layout).toBe(show(w, "@0", "#{window_layout}"))
    expect(horizontal.layout).not.toBe(original)
    // Side by side: both panes start at the top.
    expect(lines(w.tmuxOk("list-panes", "-t", "@0", "-F", "#{pane_top}"))).toEqual(["0", "0"])
    const restored = okResult(await runTool(layer, "select_layout", { window_id: "@0", layout: original }))
    expect(restored.layout).toBe(original)
    expect(show(w, "@0", "#{window_layout}")).toBe(original)
    for (const layout of ["diagonal", "tiled ; kill-server", "#(touch x)"]) {
      expect(errorMeta(await runTool(layer, "select_layout", { window_id: "@0", layout })).code).toBe("invalid_input")
    }
    // A well-formed string with a wrong checksum, or for another number of panes, is refused by tmux before any change.
    for (const layout of ["0000,80x24,0,0,0", "b25f,80x24,0,0,2"]) {
      const error = errorMeta(await runTool(layer, "select_layout", { window_id: "@0", layout }))
      expect({ layout, code: error.code, effects: error.effects }).toEqual({ layout, code: "invalid_input", effects: "none" })
    }
    expect(show(w, "@0", "#{window_layout}")).toBe(original)
  })

  it("resize_pane sets a pane's size in cells", async () => {
    const w = world()
    const layer = twoSessions(w)
    const resized = okResult(await runTool(layer, "resize_pane", { pane_id: "%0", height: 5 }))
    expect(resized).toMatchObject({ pane_id: "%0", height: 5, width: 80, window_zoomed: false, changed: true })
    expect(show(w, "%0", "#{pane_height}")).toBe("5")
    expect(okResult(await runTool(layer, "resize_pane", { pane_id: "%0", height: 5 })).changed).toBe(false)
    for (const args of [{ pane_id: "%0" }, { pane_id: "%0", width: 10, zoom: true }, { pane_id: "%0", width: 0 }]) {
      expect(errorMeta(await runTool(layer, "resize_pane", args)).code).toBe("invalid_input")
    }
    expect(errorMeta(await runTool(layer, "resize_pane", { pane_id: "%9", width: 10 })).code).toBe("not_found")
  })

  it("resize_pane zoom is idempotent and zooms the pane asked for", async () => {
    const w = world()
    const layer = twoSessions(w)
    const zoomedFlag = () => show(w, "@0", "#{window_zoomed_flag}")
    const zoomed = okResult(await runTool(layer, "resize_pane", { pane_id: "%0", zoom: true }))
    expect(zoomed).toMatchObject({ pane_id: "%0", window_zoomed: true, changed: true, active: true, height: 24 })
    expect(zoomedFlag()).toBe("1")
    // The same call again leaves it zoomed (a raw toggle would unzoom).
    expect(okResult(await runTool(layer, "resize_pane", { pane_id: "%0", zoom: true }))).toMatchObject({
      window_zoomed: true,
      changed: false
    })
    expect(zoomedFlag()).toBe("1")
    // Zooming another pane of the zoomed window zooms that one.
    expect(okResult(await runTool(layer, "resize_pane", { pane_id: "%1", zoom: true }))).toMatchObject({
      pane_id: "%1",
      window_zoomed: true,
      active: true
    })
    expect(show(w, "@0", "#{pane_id}")).toBe("%1")
    expect(zoomedFlag()).toBe("1")
    expect(okResult(await runTool(layer, "resize_pane", { pane_id: "%0", zoom: false }))).toMatchObject({
      window_zoomed: false,
      changed: true
    })
    expect(zoomedFlag()).toBe("0")
    expect(okResult(await runTool(layer, "resize_pane", { pane_id: "%0", zoom: false })).changed).toBe(false)
    expect(zoomedFlag()).toBe("0")
    const alone = errorMeta(await runTool(layer, "resize_pane", { pane_id: "%2", zoom: true }))
    expect(alone.code).toBe("invalid_input")
  })

  it("resize_window sets the size and leaves the window-size option manual", async () => {
    const w = world()
    const layer = twoSessions(w)
    const window = okResult(await runTool(layer, "resize_window", { window_id: "@1", width: 100, height: 30 }))
    expect(window).toMatchObject({ window_id: "@1", width: 100, height: 30 })
    expect(show(w, "@1", "#{window_width}x#{window_height}")).toBe("100x30")
    expect(w.tmuxOk("show-options", "-w", "-t", "@1", "window-size").trim()).toBe("window-size manual")
    expect(okResult(await runTool(layer, "resize_window", { window_id: "@1", width: 90 }))).toMatchObject({ width: 90, height: 30 })
    expect(errorMeta(await runTool(layer, "resize_window", { window_id: "@1" })).code).toBe("invalid_input")
    expect(errorMeta(await runTool(layer, "resize_window", { window_id: "@9", width: 10 })).code).toBe("not_found")
  })
})

describe("swap_pane / move_window", () => {
  it("swap_pane swaps places within a window and across windows; the active place stays active", async () => {
    const w = world()
    const layer = twoSessions(w)
    const active = show(w, "@0", "#{pane_id}")
    expect(active).toBe("%1")
    const swapped = okResult(await runTool(layer, "swap_pane", { source_pane_id: "%0", target_pane_id: "%1" }))
    expect(swapped.source).toMatchObject({ pane_id: "%0", pane_index: 1, window_id: "@0", top: 13, active: true })
    expect(swapped.target).toMatchObject({ pane_id: "%1", pane_index: 0, window_id: "@0", top: 0, active: false })
    expect(lines(w.tmuxOk("list-panes", "-t", "@0", "-F", "#{pane_id}"))).toEqual(["%1", "%0"])
    // The active place (the lower pane) stays active: now it holds %0.
    expect(show(w, "@0", "#{pane_index} #{pane_id}")).toBe("1 %0")

    const across = okResult(await runTool(layer, "swap_pane", { source_pane_id: "%0", target_pane_id: "%2" }))
    expect(across.source).toMatchObject({ pane_id: "%0", window_id: "@1", session_id: "$1" })
    expect(across.target).toMatchObject({ pane_id: "%2", window_id: "@0", session_id: "$0" })
    expect(show(w, "%2", "#{window_id}")).toBe("@0")
    expect(errorMeta(await runTool(layer, "swap_pane", { source_pane_id: "%0", target_pane_id: "%0" })).code).toBe("invalid_input")
    expect(errorMeta(await runTool(layer, "swap_pane", { source_pane_id: "%0", target_pane_id: "%9" })).code).toBe("not_found")
  })

  it("move_window moves to another session at the first free or a given index, and says where from", async () => {
    const w = world()
    const layer = twoSessions(w)
    w.tmuxOk("new-window", "-t", "a") // @2 at a:1
    const moved = okResult(await runTool(layer, "move_window", { window_id: "@2", session_id: "$1" }))
    expect(moved).toMatchObject({
      window_id: "@2",
      session_id: "$1",
      session_name: "b",
      window_index: 1,
      moved_from: { session_id: "$0", window_index: 1 },
      source_session_closed: false
    })
    expect(lines(w.tmuxOk("list-windows", "-t", "b", "-F", "#{window_index} #{window_id}"))).toEqual(["0 @1", "1 @2"])
    // The destination's current window did not change.
    expect(show(w, "$1", "#{window_id}")).toBe("@1")

    const reindexed = okResult(await runTool(layer, "move_window", { window_id: "@2", session_id: "$1", index: 7 }))
    expect(reindexed).toMatchObject({ window_index: 7, moved_from: { session_id: "$1", window_index: 1 } })
    const inUse = errorMeta(await runTool(layer, "move_window", { window_id: "@2", session_id: "$1", index: 0 }))
    expect(inUse.code).toBe("failed")
    expect(inUse.text).toContain("in use")
    expect(errorMeta(await runTool(layer, "move_window", { window_id: "@9", session_id: "$1" })).code).toBe("not_found")
    expect(errorMeta(await runTool(layer, "move_window", { window_id: "@2", session_id: "$9" })).code).toBe("not_found")
  })

  it("moving a session's last window closes that session, and the result says so", async () => {
    const w = world()
    const layer = twoSessions(w)
    const moved = okResult(await runTool(layer, "move_window", { window_id: "@1", session_id: "$0" }))
    expect(moved).toMatchObject({
      window_id: "@1",
      session_id: "$0",
      moved_from: { session_id: "$1", window_index: 0 },
      source_session_closed: true
    })
    expect(lines(w.tmuxOk("list-sessions", "-F", "#{session_id}"))).toEqual(["$0"])
  })
})

describe("every shape tool", () => {
  it("refuses a stale generation before changing anything, and is no_server on a dead server", async () => {
    const w = world()
    const layer = twoSessions(w)
    const calls: Array<[string, Record<string, unknown>]> = [
      ["rename_session", { session_id: "$0", name: "stale" }],
      ["rename_window", { window_id: "@0", name: "stale" }],
      ["select_window", { window_id: "@1" }],
      ["select_pane", { pane_id: "%0" }],
      ["select_layout", { window_id: "@0", layout: "even-horizontal" }],
      ["resize_pane", { pane_id: "%0", height: 3 }],
      ["resize_window", { window_id: "@0", width: 50 }],
      ["swap_pane", { source_pane_id: "%0", target_pane_id: "%1" }],
      ["move_window", { window_id: "@1", session_id: "$0" }],
      ["set_pane_title", { pane_id: "%0", title: "stale" }]
    ]
    // tmux would otherwise rename the windows after their commands while the test runs.
    w.tmuxOk("set-option", "-g", "automatic-rename", "off")
    const before = w.tmuxOk(
      "list-panes",
      "-a",
      "-F",
      "#{session_name} #{window_name} #{pane_id} #{pane_index} #{pane_title} #{window_layout} #{pane_active}"
    )
    for (const [tool, args] of calls) {
      const stale = errorMeta(await runTool(layer, tool, { ...args, generation: "1.1" }))
      expect({ tool, code: stale.code }).toEqual({ tool, code: "not_found" })
    }
    expect(
      w.tmuxOk(
        "list-panes",
        "-a",
        "-F",
        "#{session_name} #{window_name} #{pane_id} #{pane_index} #{pane_title} #{window_layout} #{pane_active}"
      )
    ).toBe(before)
    const dead = world().layer()
    for (const [tool, args] of calls) {
      expect({ tool, code: errorMeta(await runTool(dead, tool, args)).code }).toEqual({ tool, code: "no_server" })
    }
  })
})
