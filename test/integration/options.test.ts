/**
 * show_options, set_option and get_pane_info's variables on real tmux (3.3a by default; run once
 * on 3.5a and 3.8 with ETM_TEST_TMUX): every scope, inherited values and where they come from,
 * values exactly as tmux stores them, hooks read only, the allowlist, read-back, and paging.
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { callerEnv, useWorlds } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"
import { tmuxEscapesCommandOutput } from "../support/tmuxVersion.js"

const { world } = useWorlds()

const started = (w: PrivateTmux) => {
  w.tmuxOk("new-session", "-d", "-s", "main", "-x", "80", "-y", "24")
  return w.layer()
}

interface Entry {
  readonly name: string
  readonly value: string
  readonly inherited?: string
}

const entry = (items: ReadonlyArray<Entry>, name: string) => items.find((item) => item.name === name)

describe("show_options", () => {
  it("reads every scope, marks inherited values with where they come from, and reads globals", async () => {
    const w = world()
    const layer = started(w)
    w.tmuxOk("set-option", "-w", "-t", "@0", "mode-keys", "vi")
    w.tmuxOk("set-option", "-w", "-t", "@0", "allow-rename", "on")
    w.tmuxOk("set-option", "-p", "-t", "%0", "remain-on-exit", "on")
    const pane = okResult(await runTool(layer, "show_options", { scope: "pane", target: "%0" }))
    expect(entry(pane.items, "remain-on-exit")).toEqual({ name: "remain-on-exit", value: "on" })
    // A pane lists its pane options only: the window's own value, or the global one, when it has none.
    expect(entry(pane.items, "allow-rename")).toEqual({ name: "allow-rename", value: "on", inherited: "window" })
    expect(entry(pane.items, "alternate-screen")).toEqual({ name: "alternate-screen", value: "on", inherited: "global" })
    expect(entry(pane.items, "mode-keys")).toBeUndefined()
    const window = okResult(await runTool(layer, "show_options", { scope: "window", target: "@0", name: "mode-keys" }))
    expect(window).toMatchObject({ items: [{ name: "mode-keys", value: "vi" }], total: 1, truncated: false })
    const session = okResult(await runTool(layer, "show_options", { scope: "session", target: "$0", name: "history-limit" }))
    expect(session.items).toEqual([{ name: "history-limit", value: "2000", inherited: "global" }])
    const global = okResult(await runTool(layer, "show_options", { scope: "window", global: true, name: "mode-keys" }))
    expect(global.items).toEqual([{ name: "mode-keys", value: "emacs" }])
    const server = okResult(await runTool(layer, "show_options", { scope: "server", name: "escape-time" }))
    expect(server.items).toEqual([{ name: "escape-time", value: w.tmuxOk("show-options", "-sv", "escape-time").trim() }])
    // An array option by its name: every item, by index.
    const array = okResult(await runTool(layer, "show_options", { scope: "session", global: true, name: "status-format" }))
    expect(array.items.map((item: Entry) => item.name)).toEqual(expect.arrayContaining(["status-format[0]", "status-format[1]"]))
    expect(entry(array.items, "status-format[1]")!.value).toBe(w.tmuxOk("show-options", "-gv", "status-format[1]").slice(0, -1))
    // A name the scope does not have is an empty page.
    expect(okResult(await runTool(layer, "show_options", { scope: "session", target: "$0", name: "no-such-option" })).total).toBe(0)
  })

  it("returns a value as tmux stores it, whatever it holds (the listing's escapes are never returned)", async () => {
    const w = world()
    const layer = started(w)
    const value = `#(touch /nonexistent/x) a"b\\c 'q' $HOME; x${tmuxEscapesCommandOutput() ? "" : "\nline2"}`
    w.tmuxOk("set-option", "-g", "@hostile", value)
    const shown = okResult(await runTool(layer, "show_options", { scope: "session", global: true, name: "@hostile" }))
    expect(shown.items).toEqual([{ name: "@hostile", value }])
    // tmux's listing separates name and value at a space: such a name is cut there and reads as empty,
    // and the rest of the listing still reads.
    w.tmuxOk("set-option", "-g", "@with space", "v")
    const all = okResult(await runTool(layer, "show_options", { scope: "session", global: true }))
    expect(entry(all.items, "@with")).toEqual({ name: "@with", value: "" })
    expect(entry(all.items, "@hostile")).toEqual({ name: "@hostile", value })
  })

  it("never lets tmux expand an option's name: show-options would run #(…) in one", async () => {
    const w = world()
    const layer = started(w)
    const marker = join(w.tmpdir, "ran")
    // A listing separates name and value at a space: the job's command has none.
    const name = `@job#(touch\${IFS}${marker})`
    // `##` stores a literal `#`: set-option expands names too.
    w.tmuxOk("set-option", "-g", name.replace("#", "##"), "value")
    expect(w.tmuxOk("show-options", "-g")).toContain(`${name} value`)
    const all = okResult(await runTool(layer, "show_options", { scope: "session", global: true }))
    expect(entry(all.items, name)).toEqual({ name, value: "value" })
    const one = okResult(await runTool(layer, "show_options", { scope: "session", global: true, name }))
    expect(one.items).toEqual([{ name, value: "value" }])
    // A job a client started would have run by now (tmux runs it while the command runs).
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(existsSync(marker)).toBe(false)
  })

  it("defaults to the caller's pane, pages, and names a missing target", async () => {
    const w = world()
    started(w)
    const inside = w.layer({ env: callerEnv(w, "%0") })
    const all = okResult(await runTool(inside, "show_options", {}))
    expect(all.total).toBeGreaterThan(10)
    // Pages of 100: the first page, then what is left after an offset.
    expect(all).toMatchObject({ offset: 0, limit: 100, truncated: all.total > 100 })
    const page = okResult(await runTool(inside, "show_options", { offset: all.total - 3 }))
    expect(page).toMatchObject({ offset: all.total - 3, limit: 100, total: all.total, truncated: false })
    expect(page.items.map((item: Entry) => item.name)).toHaveLength(3)
    expect(errorMeta(await runTool(w.layer(), "show_options", { scope: "window" })).code).toBe("invalid_input")
    expect(errorMeta(await runTool(inside, "show_options", { scope: "pane", target: "%99" })).code).toBe("not_found")
    for (const args of [{ target: "main" }, { limit: 5 }, { offset: -1 }, { name: "a b" }, { name: "x\n;kill-server" }]) {
      expect({ args, code: errorMeta(await runTool(inside, "show_options", args)).code }).toEqual({ args, code: "invalid_input" })
    }
  })

  it("reads a full page of 100 values, long names included (more than one invocation's worth of argv)", async () => {
    const w = world()
    const layer = started(w)
    for (let i = 0; i < 100; i++) w.tmuxOk("set-option", "-g", `@long${i}-${"x".repeat(200)}`, `value ${i}`)
    const page = okResult(await runTool(layer, "show_options", { scope: "session", global: true }))
    expect(page.items).toHaveLength(100)
    expect(page.truncated).toBe(true)
    for (const item of page.items.filter((item: Entry) => item.name.startsWith("@long"))) {
      expect(item.value).toBe(`value ${item.name.slice("@long".length).split("-")[0]}`)
    }
  })

  it("lists hooks that are set, read only, at each scope", async () => {
    const w = world()
    const layer = started(w)
    w.tmuxOk("set-hook", "-g", "after-new-window", "display-message hi")
    w.tmuxOk("set-hook", "-w", "-t", "@0", "window-renamed", "display-message renamed")
    const global = okResult(await runTool(layer, "show_options", { scope: "session", global: true, hooks: true }))
    expect(global.items).toEqual([{ name: "after-new-window[0]", value: "display-message hi" }])
    const window = okResult(await runTool(layer, "show_options", { scope: "window", target: "@0", hooks: true }))
    expect(window.items).toEqual([{ name: "window-renamed[0]", value: "display-message renamed" }])
    w.tmuxOk("set-hook", "-p", "-t", "%0", "pane-focus-in", "display-message focus")
    const pane = okResult(await runTool(layer, "show_options", { scope: "pane", target: "%0", hooks: true }))
    expect(pane.items).toEqual([{ name: "pane-focus-in[0]", value: "display-message focus" }])
    // Read only: set_option refuses every hook.
    expect(errorMeta(await runTool(layer, "set_option", { name: "pane-focus-in", value: "on", target: "%0" })).code).toBe("invalid_input")
    expect(errorMeta(await runTool(layer, "show_options", { scope: "server", hooks: true })).code).toBe("invalid_input")
  })
})

describe("set_option", () => {
  it("sets and unsets allowlisted options in the scope the option and target name, and reads them back", async () => {
    const w = world()
    const layer = started(w)
    expect(okResult(await runTool(layer, "set_option", { name: "mouse", value: true, global: true }))).toEqual({
      name: "mouse",
      value: "on",
      scope: "session",
      target: null
    })
    expect(w.tmuxOk("show-options", "-gv", "mouse")).toBe("on\n")
    expect(okResult(await runTool(layer, "set_option", { name: "history-limit", value: "5000", target: "$0" }))).toEqual({
      name: "history-limit",
      value: "5000",
      scope: "session",
      target: "$0"
    })
    expect(okResult(await runTool(layer, "set_option", { name: "mode-keys", value: "vi", target: "%0" }))).toMatchObject({
      value: "vi",
      scope: "window"
    })
    expect(w.tmuxOk("show-options", "-wv", "-t", "@0", "mode-keys")).toBe("vi\n")
    // A pane target sets a pane option on that pane only.
    expect(okResult(await runTool(layer, "set_option", { name: "synchronize-panes", value: "on", target: "%0" }))).toMatchObject({
      value: "on",
      scope: "pane",
      target: "%0"
    })
    expect(w.tmuxOk("show-options", "-pv", "-t", "%0", "synchronize-panes")).toBe("on\n")
    expect(okResult(await runTool(layer, "set_option", { name: "escape-time", value: 10 }))).toMatchObject({ value: "10", scope: "server" })
    // Unset: the inherited value shows again, marked.
    expect(okResult(await runTool(layer, "set_option", { name: "history-limit", unset: true, target: "$0" }))).toEqual({
      name: "history-limit",
      value: "2000",
      inherited: "global",
      scope: "session",
      target: "$0"
    })
  })

  it("refuses everything off the allowlist, values outside the type, and a missing target, before tmux hears of it", async () => {
    const w = world()
    const layer = started(w)
    const mouse = w.tmuxOk("show-options", "-gv", "mouse")
    const refused: Array<[Record<string, unknown>, string]> = [
      [{ name: "default-command", value: "x", global: true }, "command, shell or format"],
      [{ name: "status-left", value: "x", global: true }, "command, shell or format"],
      [{ name: "pane-border-format", value: "x", global: true }, "command, shell or format"],
      [{ name: "set-titles-string", value: "x", global: true }, "command, shell or format"],
      [{ name: "after-new-window", value: "x", global: true }, "hooks"],
      [{ name: "pane-died", value: "x", global: true }, "hooks"],
      [{ name: "@mine", value: "x", global: true }, "user @options"],
      [{ name: "status-style", value: "x", global: true }, "allowlist"],
      [{ name: "mouse", value: "maybe", global: true }, "flag"],
      [{ name: "history-limit", value: 5_000_000, global: true }, "integer from 0 to"],
      [{ name: "history-limit", value: "1e3", global: true }, "integer from 0 to"],
      [{ name: "mode-keys", value: "vim", global: true }, "one of vi, emacs"],
      [{ name: "mode-keys", value: "vi" }, "Pass a target"],
      [{ name: "mode-keys", global: true }, "Pass value, or unset"],
      [{ name: "mode-keys", value: "vi", unset: true, global: true }, "Pass value, or unset"],
      [{ name: "mode-keys", value: "vi", target: "main" }, "target must be"]
    ]
    for (const [args, reason] of refused) {
      const error = errorMeta(await runTool(layer, "set_option", args))
      expect({ args, code: error.code, effects: error.effects }).toEqual({ args, code: "invalid_input", effects: "none" })
      expect(error.text).toContain(reason)
      // The value is never echoed.
      if (typeof args.value === "string" && args.value.length > 1) expect(error.text).not.toContain(`"${args.value}"`)
    }
    expect(w.tmuxOk("show-options", "-gv", "mouse")).toBe(mouse)
  })

  it("a choice the running tmux does not take is tmux's own failure, never a silent success", async () => {
    const w = world()
    const layer = started(w)
    w.tmuxOk("set-option", "-w", "-t", "@0", "window-size", "largest")
    const result = await runTool(layer, "set_option", { name: "window-size", value: "latest", target: "@0" })
    const accepted = w.tmux("set-option", "-w", "-t", "@0", "window-size", "latest").status === 0
    if (accepted) expect(okResult(result)).toMatchObject({ value: "latest", scope: "window" })
    else expect(errorMeta(result).code).toBe("failed")
  })
})

describe("get_pane_info variables", () => {
  it("reads named format variables for the pane, empty for a name tmux does not know", async () => {
    const w = world()
    const layer = started(w)
    const info = okResult(
      await runTool(layer, "get_pane_info", {
        pane_id: "%0",
        variables: ["pane_tty", "pane_pid", "window_zoomed_flag", "session_name", "no_such_variable", "pane_tty"]
      })
    )
    expect(info.variables).toEqual({
      pane_tty: w.tmuxOk("display-message", "-p", "-t", "%0", "#{pane_tty}").trim(),
      pane_pid: String(info.pid),
      window_zoomed_flag: "0",
      session_name: "main",
      no_such_variable: ""
    })
    // Without variables the result is the pane as before.
    expect(okResult(await runTool(layer, "get_pane_info", { pane_id: "%0" }))).not.toHaveProperty("variables")
    for (const variables of [[], ["#(touch /tmp/x)"], ["pane_tty}"], ["E:pane_tty"], ["Pane"], Array(65).fill("pane_id")]) {
      const error = errorMeta(await runTool(layer, "get_pane_info", { pane_id: "%0", variables }))
      expect({ variables, code: error.code }).toEqual({ variables, code: "invalid_input" })
    }
    expect(errorMeta(await runTool(layer, "get_pane_info", { pane_id: "%9", variables: ["pane_tty"] })).code).toBe("not_found")
  })
})
