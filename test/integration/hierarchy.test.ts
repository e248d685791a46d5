/**
 * The session / window / pane tree on real tmux: listing, paging, scoping, ordering, names that
 * look like tmux syntax, linked windows, and the get_*_info lookups.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { escapeControls } from "../../src/domain/ControlText.js"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"
import { gateAfterRead } from "../support/TappedTmux.js"
import { testHost } from "../support/testHost.js"
import { asTmuxPrints } from "../support/tmuxVersion.js"

const { world } = useWorlds()

const lines = (text: string) => text.split("\n").filter((line) => line !== "")

/** A server with `count` sessions, created in reverse name order so tmux's own listing (by name) is not id order. */
const manySessions = (w: PrivateTmux, count: number) => {
  for (let i = count - 1; i >= 0; i--) {
    w.tmuxOk("new-session", "-d", "-s", `s${String(i).padStart(2, "0")}`, "-x", "80", "-y", "24")
  }
}

/** Each call fails with not_found naming the id, and its hint points at the list tool that shows what exists. */
const expectNotFound = async (
  layer: ReturnType<PrivateTmux["layer"]>,
  cases: ReadonlyArray<readonly [tool: string, args: Readonly<Record<string, string>>, listTool: string]>
) => {
  for (const [tool, args, listTool] of cases) {
    const error = errorMeta(await runTool(layer, tool, args))
    expect({ tool, code: error.code }).toEqual({ tool, code: "not_found" })
    expect(error.hint).toContain(listTool)
    expect(error.text).toContain(Object.values(args)[0])
  }
}

describe("list tools on real tmux", () => {
  it("lists sessions, windows and panes of a live server in numeric id order", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "alpha", "-x", "80", "-y", "24")
    w.tmuxOk("split-window", "-t", "alpha")
    w.tmuxOk("new-session", "-d", "-s", "beta")
    const layer = w.layer()
    const sessions = okResult(await runTool(layer, "list_sessions"))
    expect(sessions.items.map((s: any) => s.session_name)).toEqual(["alpha", "beta"])
    expect(sessions.total).toBe(2)
    const panes = okResult(await runTool(layer, "list_panes", { fields: "all" }))
    expect(panes.items.map((p: any) => p.pane_id)).toEqual(["%0", "%1", "%2"])
    expect(panes.items.every((p: any) => p.is_caller === null && p.is_attended === false)).toBe(true)
  })

  it("returns empty pages on a live server without sessions, and no_server on a dead socket", async () => {
    const w = world()
    const layer = w.layer()
    expect(errorMeta(await runTool(layer, "list_panes")).code).toBe("no_server")
    expect(okResult(await runTool(layer, "start_server")).started).toBe(true)
    expect(okResult(await runTool(layer, "list_panes")).items).toEqual([])
    expect(okResult(await runTool(layer, "list_windows")).items).toEqual([])
    expect(okResult(await runTool(layer, "list_sessions"))).toMatchObject({ items: [], total: 0, truncated: false })
    expect(okResult(await runTool(layer, "get_server_info"))).toMatchObject({ is_alive: true, session_count: 0 })
  })

  it("orders sessions, windows and panes by number, not by text or by tmux's name order", async () => {
    const w = world()
    manySessions(w, 12)
    // tmux lists sessions by name, so its own order starts with the newest session.
    expect(lines(w.tmuxOk("list-panes", "-a", "-F", "#{pane_id}"))[0]).toBe("%11")
    const layer = w.layer()
    const expected = (prefix: string) => Array.from({ length: 12 }, (_, i) => `${prefix}${i}`)
    const panes = okResult(await runTool(layer, "list_panes", { fields: "all" }))
    expect(panes.items.map((p: any) => p.pane_id)).toEqual(expected("%"))
    expect(panes.items[10]).toMatchObject({ pane_id: "%10", session_id: "$10", session_name: "s01", window_id: "@10" })
    const windows = okResult(await runTool(layer, "list_windows", { fields: "all" }))
    expect(windows.items.map((x: any) => x.window_id)).toEqual(expected("@"))
    const sessions = okResult(await runTool(layer, "list_sessions", { fields: "all" }))
    expect(sessions.items.map((s: any) => s.session_id)).toEqual(expected("$"))
    expect(sessions.items[0]).toMatchObject({
      session_name: "s11",
      window_count: 1,
      active_window_id: "@0",
      active_pane_id: "%0"
    })
  })

  it("pages every list and says what was left out", async () => {
    const w = world()
    manySessions(w, 5)
    const layer = w.layer()
    for (const tool of ["list_sessions", "list_windows", "list_panes"]) {
      // Items are counted here; the page fields are compared whole.
      const summary = async (args: object) => {
        const page = okResult(await runTool(layer, tool, args))
        return { tool, ...page, items: page.items.length }
      }
      expect(await summary({ limit: 2 })).toEqual({ tool, items: 2, total: 5, offset: 0, limit: 2, truncated: true })
      expect(await summary({ offset: 4, limit: 2 })).toEqual({ tool, items: 1, total: 5, offset: 4, limit: 2, truncated: false })
      const beyond = okResult(await runTool(layer, tool, { offset: 9 }))
      expect({ tool, ...beyond }).toEqual({ tool, items: [], total: 5, offset: 9, limit: 100, truncated: false })
    }
    const page = okResult(await runTool(layer, "list_panes", { offset: 1, limit: 3 }))
    expect(page.items.map((p: any) => p.pane_id)).toEqual(["%1", "%2", "%3"])
  })

  it("rejects page limits outside 1..1000 before asking tmux", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d")
    const layer = w.layer()
    for (const tool of ["list_servers", "list_sessions", "list_windows", "list_panes"]) {
      for (const args of [{ limit: 1001 }, { limit: 0 }, { offset: -1 }, { limit: 2.5 }]) {
        const error = errorMeta(await runTool(layer, tool, args))
        expect({ tool, args, code: error.code }).toEqual({ tool, args, code: "invalid_input" })
      }
    }
    expect(okResult(await runTool(layer, "list_panes", { limit: 1000 })).limit).toBe(1000)
  })

  it("scopes lists to one session or one window", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "a", "-x", "80", "-y", "24") // $0 @0 %0
    w.tmuxOk("split-window", "-t", "a") // %1
    w.tmuxOk("new-window", "-t", "a") // @1 %2
    w.tmuxOk("new-session", "-d", "-s", "b") // $1 @2 %3
    w.tmuxOk("split-window", "-t", "b") // %4
    const layer = w.layer()
    const ids = (result: any, key: string) => okResult(result).items.map((item: any) => item[key])
    expect(ids(await runTool(layer, "list_panes", { session_id: "$0" }), "pane_id")).toEqual(["%0", "%1", "%2"])
    expect(ids(await runTool(layer, "list_panes", { session_id: "$1" }), "pane_id")).toEqual(["%3", "%4"])
    expect(ids(await runTool(layer, "list_panes", { window_id: "@0" }), "pane_id")).toEqual(["%0", "%1"])
    expect(ids(await runTool(layer, "list_panes", { window_id: "@1" }), "pane_id")).toEqual(["%2"])
    expect(ids(await runTool(layer, "list_windows", { session_id: "$0" }), "window_id")).toEqual(["@0", "@1"])
    expect(ids(await runTool(layer, "list_windows", { session_id: "$1" }), "window_id")).toEqual(["@2"])
    expect(errorMeta(await runTool(layer, "list_panes", { session_id: "$0", window_id: "@0" })).code).toBe("invalid_input")
    // Names are not ids: the schemas refuse them instead of letting tmux match a name.
    expect(errorMeta(await runTool(layer, "list_panes", { session_id: "a" })).code).toBe("invalid_input")
    expect(errorMeta(await runTool(layer, "list_windows", { session_id: "0" })).code).toBe("invalid_input")
  })

  it("a missing session or window is not_found, with a hint naming the list tool that helps", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "only")
    const layer = w.layer()
    const cases = [
      ["list_panes", { session_id: "$9" }, "list_sessions"],
      ["list_windows", { session_id: "$9" }, "list_sessions"],
      ["list_panes", { window_id: "@9" }, "list_windows"]
    ] as const
    await expectNotFound(layer, cases)
  })

  it("reads names that look like tmux syntax back exactly, and never runs them", async () => {
    const w = world()
    const marker = join(w.tmpdir, "ran")
    // The tmux CLI expands formats in names, so `##` is how a literal `#` reaches the server.
    const stored = {
      semicolon: "a;b ; c",
      format: "pid #{pane_pid} #{session_id}",
      command: `run #(touch ${marker})`,
      unicode: "ünï€ 😀 日本語"
    }
    const cli = (name: string) => name.replaceAll("#", "##")
    w.tmuxOk("new-session", "-d", "-s", cli(stored.semicolon), "-n", cli(stored.format), "-x", "80", "-y", "24")
    w.tmuxOk("new-session", "-d", "-s", cli(stored.command), "-n", cli(stored.unicode))
    w.tmuxOk("new-session", "-d", "-s", cli(stored.format), "-n", cli(stored.command))
    // tmux 3.8 refuses a tab in a window or session name ("invalid window name"): plain names there.
    const tabbed = w.tmux("new-session", "-d", "-s", cli(stored.unicode), "-n", "tab\there").status === 0
    if (!tabbed) w.tmuxOk("new-session", "-d", "-s", cli(stored.unicode), "-n", "tab here")
    const tabbedSession = w.tmux("new-session", "-d", "-s", "tab\tsession", "-n", cli(stored.semicolon)).status === 0
    if (!tabbedSession) w.tmuxOk("new-session", "-d", "-s", "tab session", "-n", cli(stored.semicolon))
    const tabSession = tabbedSession ? "tab\\tsession" : "tab session"
    w.tmuxOk("select-pane", "-t", "%0", "-T", cli(stored.command))
    w.tmuxOk("select-pane", "-t", "%1", "-T", cli(stored.unicode))
    w.tmuxOk("set-option", "-g", "automatic-rename", "off")
    // new-session -s stores a tab as the two characters "\t" (new-session -n keeps it): tmux's own answer is the truth.
    const tmuxNames = (command: string, format: string) => lines(w.tmuxOk(command, "-a", "-F", format))
    const tmuxSessionNames = lines(w.tmuxOk("list-sessions", "-F", "#{session_name}"))
    expect(tmuxSessionNames).toContain(tabSession)

    const layer = w.layer()
    const sessions = okResult(await runTool(layer, "list_sessions", { fields: "all" }))
    expect(sessions.items.map((s: any) => s.session_name)).toEqual([
      stored.semicolon,
      stored.command,
      stored.format,
      stored.unicode,
      tabSession
    ])
    expect([...sessions.items.map((s: any) => s.session_name)].sort()).toEqual([...tmuxSessionNames].sort())

    const windows = okResult(await runTool(layer, "list_windows", { fields: "all" }))
    // A control character in a name is sent escaped (issue 10 item 11): the tab reads as \x09.
    expect(windows.items.map((x: any) => x.window_name)).toEqual([
      stored.format,
      stored.unicode,
      stored.command,
      tabbed ? "tab\\x09here" : "tab here",
      stored.semicolon
    ])
    expect(windows.items.map((x: any) => x.window_name).sort()).toEqual(
      tmuxNames("list-windows", "#{window_name}").map(escapeControls).sort()
    )

    const panes = okResult(await runTool(layer, "list_panes", { fields: "all" }))
    expect(panes.items.map((p: any) => p.session_name)).toEqual(sessions.items.map((s: any) => s.session_name))
    expect(panes.items.map((p: any) => p.window_name)).toEqual(windows.items.map((x: any) => x.window_name))
    expect(panes.items[0].title).toBe(stored.command)
    expect(panes.items[1].title).toBe(stored.unicode)

    const byName = okResult(await runTool(layer, "get_session_info", { session_name: stored.command }))
    expect(byName.session_id).toBe("$1")
    expect(okResult(await runTool(layer, "get_session_info", { session_name: stored.semicolon })).session_id).toBe("$0")
    expect(okResult(await runTool(layer, "get_session_info", { session_name: stored.unicode })).session_id).toBe("$3")
    expect(okResult(await runTool(layer, "get_pane_info", { pane_id: "%2" }))).toMatchObject({
      session_name: stored.format,
      window_name: stored.command
    })
    expect(existsSync(marker)).toBe(false)
  })

  it("keeps a pane whose directory and command hold record/field separators intact, and cannot be forged by them", async () => {
    const w = world()
    // tmux prints pane_current_path and pane_current_command unescaped: try to split fields and inject a pane.
    const hostile = join(w.tmpdir, "a\x1fb\x1e\x1epan\x1f%99\x1fspoofed")
    mkdirSync(hostile)
    w.tmuxOk("new-session", "-d", "-s", "s", "-x", "80", "-y", "24", "-c", hostile)
    w.tmuxOk("new-window", "-t", "s", "bash -c \"exec -a $'x\\x1fy\\x1ez' sleep 600\"")
    const layer = w.layer()
    const panes = okResult(await runTool(layer, "list_panes", { fields: "all" }))
    expect(panes.items.map((p: any) => p.pane_id)).toEqual(["%0", "%1"])
    // Intact, and sent with its control characters escaped (issue 10 item 11), or as tmux 3.4 and
    // 3.5 print them (octal escapes, which hold no control character).
    expect(panes.items[0].cwd).toBe(escapeControls(asTmuxPrints(hostile)))
    const info = okResult(await runTool(layer, "get_pane_info", { pane_id: "%0" }))
    expect(info.cwd).toBe(escapeControls(asTmuxPrints(hostile)))
  })

  it("lists a linked window once per session and each of its panes once", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "a", "-x", "80", "-y", "24") // $0 @0 %0
    w.tmuxOk("new-window", "-t", "a") // @1 %1
    w.tmuxOk("split-window", "-t", "@1") // %2
    w.tmuxOk("new-session", "-d", "-s", "b") // $1 @2 %3
    w.tmuxOk("link-window", "-s", "@1", "-t", "b:7")
    // tmux itself lists the linked panes twice.
    expect(lines(w.tmuxOk("list-panes", "-a", "-F", "#{pane_id}"))).toHaveLength(6)

    const layer = w.layer()
    const panes = okResult(await runTool(layer, "list_panes"))
    expect(panes.items.map((p: any) => p.pane_id)).toEqual(["%0", "%1", "%2", "%3"])
    expect(panes.total).toBe(4)
    const windows = okResult(await runTool(layer, "list_windows"))
    expect(windows.items.map((x: any) => [x.window_id, x.session_id, x.window_index])).toEqual([
      ["@0", "$0", 0],
      ["@1", "$0", 1],
      ["@1", "$1", 7],
      ["@2", "$1", 0]
    ])
    const inB = okResult(await runTool(layer, "list_windows", { session_id: "$1" }))
    expect(inB.items.map((x: any) => x.window_id)).toEqual(["@1", "@2"])
    const panesInB = okResult(await runTool(layer, "list_panes", { session_id: "$1" }))
    expect(panesInB.items.map((p: any) => [p.pane_id, p.session_id])).toEqual([
      ["%1", "$1"],
      ["%2", "$1"],
      ["%3", "$1"]
    ])
  })
})

describe("get_session_info / get_window_info / get_pane_info", () => {
  it("finds objects by id and sessions by exact name only", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "foobar", "-x", "80", "-y", "24") // $0 @0 %0
    w.tmuxOk("new-window", "-t", "foobar", "-n", "second") // @1 %1
    w.tmuxOk("split-window", "-t", "@1") // %2
    const layer = w.layer()

    // tmux's own -t would take "foo" as a prefix of "foobar".
    expect(w.tmux("has-session", "-t", "foo").status).toBe(0)
    const missing = errorMeta(await runTool(layer, "get_session_info", { session_name: "foo" }))
    expect(missing.code).toBe("not_found")
    expect(missing.hint).toContain("list_sessions")

    w.tmuxOk("new-session", "-d", "-s", "foo") // $1 @2 %3
    expect(okResult(await runTool(layer, "get_session_info", { session_name: "foo" }))).toMatchObject({
      session_id: "$1",
      session_name: "foo",
      window_count: 1
    })
    expect(okResult(await runTool(layer, "get_session_info", { session_id: "$0" }))).toMatchObject({
      session_id: "$0",
      session_name: "foobar",
      window_count: 2,
      active_window_id: "@1",
      active_pane_id: "%2"
    })
    expect(okResult(await runTool(layer, "get_window_info", { window_id: "@1" }))).toMatchObject({
      window_id: "@1",
      window_name: "second",
      window_index: 1,
      session_id: "$0",
      pane_count: 2,
      active: true,
      active_pane_id: "%2"
    })
    const pane = okResult(await runTool(layer, "get_pane_info", { pane_id: "%1" }))
    expect(pane).toMatchObject({
      pane_id: "%1",
      pane_index: 0,
      window_id: "@1",
      session_id: "$0",
      session_name: "foobar",
      active: false,
      dead: false,
      is_caller: null,
      is_attended: false
    })
    expect(pane.pid).toBe(Number(w.tmuxOk("display-message", "-p", "-t", "%1", "#{pane_pid}").trim()))

    expect(errorMeta(await runTool(layer, "get_session_info", { session_id: "$0", session_name: "foobar" })).code).toBe(
      "invalid_input"
    )
  })

  // Until a new pane's process has made its session (between tmux's fork and the child's setsid),
  // tmux cannot read the pane's directory and reports it empty; a get_pane_info right after a
  // create must wait that out, not answer cwd "". The panes here have no controlling terminal
  // (their process gave it up: TIOCNOTTY) until get_pane_info has read their directory once, then
  // take it back and stay python3: an exec into another program after that would race the read,
  // which may see the directory before the exec.
  it.skipIf(testHost !== undefined)("get_pane_info waits out a new pane whose directory cannot be read yet", async () => {
    const w = world()
    const script = join(w.tmpdir, "late-session.py")
    writeFileSync(
      script,
      [
        "import fcntl, os, signal, sys, termios, time",
        "signal.signal(signal.SIGHUP, signal.SIG_IGN)",
        "fcntl.ioctl(0, termios.TIOCNOTTY)",
        "open(sys.argv[2], 'w').close()",
        "while not os.path.exists(sys.argv[1]): time.sleep(0.02)",
        "fcntl.ioctl(0, termios.TIOCSCTTY, 0)",
        "time.sleep(600)",
        ""
      ].join("\n")
    )
    // Once plain, once with variables (a lookup of its own).
    for (const [name, extra] of [["plain", {}], ["variables", { variables: ["pane_pid"] }]] as const) {
      const gate = join(w.tmpdir, `started-${name}`)
      const detached = join(w.tmpdir, `detached-${name}`)
      const pane = w.tmuxOk(
        "new-session",
        "-d",
        "-s",
        name,
        "-P",
        "-F",
        "#{pane_id}",
        "-c",
        w.tmpdir,
        `python3 ${script} ${gate} ${detached}`
      ).trim()
      // Not an empty path alone: the pane's own spawn shows one too, for a moment.
      await waitFor(`${name}: the pane without a controlling terminal`, () => existsSync(detached))
      expect(w.tmuxOk("display-message", "-p", "-t", pane, "#{pane_current_path}").trim()).toBe("")
      const info = okResult(
        await runTool(w.layer({}, gateAfterRead("pane_current_path", gate)), "get_pane_info", { pane_id: pane, ...extra })
      )
      expect({ name, cwd: info.cwd, command: info.command }).toEqual({ name, cwd: w.tmpdir, command: "python3" })
    }
  })

  it("a missing id is not_found with a hint to the matching list tool", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "one")
    const layer = w.layer()
    const cases = [
      ["get_session_info", { session_id: "$7" }, "list_sessions"],
      ["get_window_info", { window_id: "@7" }, "list_windows"],
      ["get_pane_info", { pane_id: "%7" }, "list_panes"]
    ] as const
    await expectNotFound(layer, cases)
  })

  it("on a live server without sessions, every id is not_found (not a tmux failure)", async () => {
    const w = world()
    const layer = w.layer()
    expect(okResult(await runTool(layer, "start_server")).started).toBe(true)
    const cases = [
      ["get_session_info", { session_id: "$0" }, "list_sessions"],
      ["get_session_info", { session_name: "main" }, "list_sessions"],
      ["get_window_info", { window_id: "@0" }, "list_windows"],
      ["get_pane_info", { pane_id: "%0" }, "list_panes"],
      ["capture_pane", { pane_id: "%0" }, "list_panes"],
      ["list_panes", { window_id: "@0" }, "list_windows"],
      ["list_panes", { session_id: "$0" }, "list_sessions"],
      ["list_windows", { session_id: "$0" }, "list_sessions"]
    ] as const
    await expectNotFound(layer, cases)
  })

  it("outside tmux, a lookup without an id is invalid_input, not a guess", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "one")
    const layer = w.layer()
    for (const tool of ["get_session_info", "get_window_info", "get_pane_info"]) {
      const error = errorMeta(await runTool(layer, tool))
      expect({ tool, code: error.code }).toEqual({ tool, code: "invalid_input" })
      expect(error.text).toContain("not running inside tmux")
      expect(error.effects).toBe("none")
    }
  })
})
