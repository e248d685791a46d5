/**
 * The environment, input and shaping tools through a real MCP client over stdio: a variable set
 * with set_environment reaches a new window's shell, send_keys drives shells and sends exactly the
 * keys asked for, each shape tool changes what the tmux CLI then shows and returns a result the
 * client validates against its outputSchema, names never run, and payloads stay out of the audit.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, makeWorld, ok, poll, serve, type Served, type World } from "./harness.js"

const cli = (world: World, ...args: Array<string>) => {
  const result = world.tmux(args)
  if (result.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${result.stderr}`)
  return result.stdout.trimEnd()
}

/** A new window of session "main" running `command`; its pane's id. */
const windowRunning = (world: World, command: string) => cli(world, "new-window", "-d", "-t", "main", "-P", "-F", "#{pane_id}", command)

/** A new window of session "main" whose program copies every byte it receives (raw mode, no echo) into a file. */
const recorderPane = async (world: World, name: string) => {
  const file = join(world.dir, name)
  const ready = `${file}.ready`
  const paneId = windowRunning(world, `stty raw -echo && touch ${ready} && exec cat > ${file}`)
  await poll("the recorder", () => (existsSync(ready) ? true : undefined))
  return { paneId, read: () => (existsSync(file) ? readFileSync(file, "utf8") : "") }
}

/** A line of the pane's screen, as capture_pane returns it, that equals `line` exactly. */
const screenLine = (server: Served, paneId: string, line: string) =>
  poll(`"${line}" on ${paneId}`, async () => {
    const { content } = ok(await server.call("capture_pane", { pane_id: paneId }))
    // A shell's prompt may precede the line when the keys beat its first prompt.
    return (content as string).split("\n").some((row) => row.trimEnd().endsWith(line)) ? content : undefined
  })

describe("environment and input over stdio", () => {
  let world: World
  let server: Served

  beforeAll(async () => {
    world = makeWorld()
    world.startTmux()
    server = await serve(world)
  })
  afterAll(async () => {
    await server?.close()
    world?.dispose()
  })

  it("set_environment (session and global) reaches the shell of a window created afterwards", async () => {
    const session = ok(
      await server.call("set_environment", { session_name: "main", name: "ETM_E2E_SESSION", value: "session value; $HOME" })
    )
    expect(session).toEqual({ name: "ETM_E2E_SESSION", status: "set", scope: "session", session_id: "$0", value_length: 20 })
    ok(await server.call("set_environment", { global: true, name: "ETM_E2E_GLOBAL", value: "global value" }))
    const paneId = cli(world, "new-window", "-d", "-t", "main", "-P", "-F", "#{pane_id}")
    const sent = ok(await server.call("send_keys", { pane_id: paneId, keys: "echo \"[$ETM_E2E_SESSION|$ETM_E2E_GLOBAL]\"" }))
    expect(sent).toMatchObject({ pane_id: paneId, enter_sent: true, literal: false })
    await screenLine(server, paneId, "[session value; $HOME|global value]")
  })

  it("the value never appears in the audit line on stderr, nor in results", async () => {
    const secret = "hunter2-e2e-secret-value"
    const result = await server.call("set_environment", { global: true, name: "ETM_E2E_SECRET", value: secret })
    expect(JSON.stringify(result)).not.toContain(secret)
    const keys = "echo hunter2-typed-keys"
    const typed = await server.call("send_keys", { pane_id: "%0", keys, enter: false })
    expect(JSON.stringify(typed)).not.toContain("hunter2")
    const records = await server.audit()
    const setRecord = records.filter((record) => record.tool === "set_environment").at(-1)
    expect(setRecord?.arguments).toMatchObject({ name: "ETM_E2E_SECRET", global: true, value: { length: secret.length } })
    expect(records.find((record) => record.tool === "send_keys" && record.arguments.keys?.length === keys.length)).toBeDefined()
    expect(server.stderr()).not.toContain("hunter2")
    // The shell still got them: clear the typed line.
    ok(await server.call("send_keys", { pane_id: "%0", keys: "C-u" }))
  })

  it("show_environment reads the value back exactly; a dead server is no_server, never an empty map", async () => {
    const shown = ok(await server.call("show_environment", { session_id: "$0", name: "ETM_E2E_SESSION" }))
    expect(shown).toMatchObject({
      scope: "session",
      session_id: "$0",
      variables: { ETM_E2E_SESSION: "session value; $HOME" },
      truncated: false
    })
    const dead = errorOf(await server.call("show_environment", { global: true, socket_name: `${world.socketName}-dead` }))
    expect(dead.code).toBe("no_server")
    expect(errorOf(await server.call("show_environment", {})).code).toBe("invalid_input")
  })

  it("send_keys: C-c alone sends no Enter, literal keeps ; and quotes intact", async () => {
    const { paneId, read } = await recorderPane(world, "received")
    const received = (count: number) =>
      poll(`${count} sentinels`, () => {
        const text = read()
        return text.split("|").length - 1 >= count ? text : undefined
      })
    const cc = ok(await server.call("send_keys", { pane_id: paneId, keys: "C-c" }))
    expect(cc).toMatchObject({ special_key: true, enter_sent: false })
    ok(await server.call("send_keys", { pane_id: paneId, keys: "|", literal: true, enter: false }))
    expect(await received(1)).toBe("\x03|")
    const text = `printf '%s' "a;b" ; echo 'c;' "d\\"e" ;`
    ok(await server.call("send_keys", { pane_id: paneId, keys: text, literal: true }))
    ok(await server.call("send_keys", { pane_id: paneId, keys: "|", literal: true, enter: false }))
    expect(await received(2)).toBe(`\x03|${text}\r|`)
  })

  it("send_keys: S-Tab, Shift+Tab, Ctrl+C and Esc reach the program as those keys; C-Foo is invalid_input (issue 14 item 9)", async () => {
    const { paneId, read } = await recorderPane(world, "received-keys")
    const sent: Array<unknown> = []
    for (const keys of ["S-Tab", "Shift+Tab", "Ctrl+C", "Esc"]) sent.push(ok(await server.call("send_keys", { pane_id: paneId, keys })).key)
    expect(sent).toEqual(["BTab", "BTab", "C-c", "Escape"])
    const refused = errorOf(await server.call("send_keys", { pane_id: paneId, keys: "C-Foo" }))
    expect(refused).toMatchObject({ code: "invalid_input", effects: "none" })
    ok(await server.call("send_keys", { pane_id: paneId, keys: "|", literal: true, enter: false }))
    // BTab = ESC [ Z, C-c = 0x03, Escape = 0x1b; nothing of C-Foo.
    expect(await poll("the sentinel", () => (read().endsWith("|") ? read() : undefined))).toBe("\x1b[Z\x1b[Z\x03\x1b|")
  })

  it("clear_pane clears a pane's scrollback; capture_pane with escapes keeps colours", async () => {
    const paneId = windowRunning(world, `seq 1 100; printf '\\033[31mred\\033[0m\\n'; exec sleep 600`)
    await screenLine(server, paneId, "red")
    const coloured = ok(await server.call("capture_pane", { pane_id: paneId, escapes: true }))
    expect(coloured.content).toContain("\x1b[31mred")
    const cleared = ok(await server.call("clear_pane", { pane_id: paneId }))
    expect(cleared).toMatchObject({ pane_id: paneId, screen_cleared: false, history_size: 0 })
    expect(cleared.history_lines_cleared).toBeGreaterThan(0)
    expect(cli(world, "display-message", "-p", "-t", paneId, "#{history_size}")).toBe("0")
  })

  it("send_keys runs a command typed into a shell, and the literal text reaches the shell as typed", async () => {
    const paneId = cli(world, "new-window", "-d", "-t", "main", "-P", "-F", "#{pane_id}")
    ok(await server.call("send_keys", { pane_id: paneId, keys: `printf '%s|%s\\n' "x;y" 'q"z' ;`, literal: true }))
    await screenLine(server, paneId, `x;y|q"z`)
  })
})

describe("send_keys inside tmux over stdio", () => {
  let world: World
  let server: Served
  let caller: ReturnType<World["startTmux"]>

  beforeAll(async () => {
    world = makeWorld()
    caller = world.startTmux()
    server = await serve(world, { env: { TMUX: `${caller.socketPath},${caller.pid},0`, TMUX_PANE: caller.paneId } })
  })
  afterAll(async () => {
    await server?.close()
    world?.dispose()
  })

  it("refuses the caller's own pane without force, and types there with force", async () => {
    const denied = errorOf(await server.call("send_keys", { pane_id: caller.paneId, keys: "echo refused-marker" }))
    expect(denied).toMatchObject({ code: "denied", effects: "none" })
    expect(denied.text).toContain("force: true")
    ok(await server.call("send_keys", { pane_id: caller.paneId, keys: "echo forced-$((40+2))", force: true }))
    await screenLine(server, caller.paneId, "forced-42")
    const screen = cli(world, "capture-pane", "-p", "-t", caller.paneId)
    expect(screen).not.toContain("refused-marker")
  })
})

describe("shape tools over stdio", () => {
  let world: World
  let server: Served
  const marker = () => join(world.dir, "format-ran")

  beforeAll(async () => {
    world = makeWorld()
    world.startTmux() // main: $0 @0 %0
    cli(world, "split-window", "-v", "-t", "%0") // %1
    cli(world, "new-session", "-d", "-s", "other", "-x", "80", "-y", "24") // $1 @1 %2
    cli(world, "new-window", "-d", "-t", "main") // @2 %3
    cli(world, "set-option", "-g", "automatic-rename", "off")
    server = await serve(world)
  })
  afterAll(async () => {
    await server?.close()
    world?.dispose()
  })

  it("names and titles are stored exactly and nothing in them runs; tabs are refused", async () => {
    const texts = [`#(touch ${marker()})`, "#{pane_pid}", "a;", "ünï 日本 🙂", `#[fg=red]#(touch ${marker()}) x;`]
    for (const [i, text] of texts.entries()) {
      expect(ok(await server.call("rename_session", { session_id: "$1", name: `${text} ${i}` })).session_name).toBe(`${text} ${i}`)
      expect(cli(world, "display-message", "-p", "-t", "$1", "#{session_name}")).toBe(`${text} ${i}`)
      expect(ok(await server.call("rename_window", { window_id: "@1", name: text })).window_name).toBe(text)
      expect(cli(world, "display-message", "-p", "-t", "@1", "#{window_name}")).toBe(text)
      expect(ok(await server.call("set_pane_title", { pane_id: "%2", title: text })).title).toBe(text)
      expect(cli(world, "display-message", "-p", "-t", "%2", "#{pane_title}")).toBe(text)
    }
    for (
      const [tool, args] of [
        ["rename_session", { session_id: "$1", name: "tab\tname" }],
        ["rename_window", { window_id: "@1", name: "tab\tname" }],
        ["set_pane_title", { pane_id: "%2", title: "tab\tname" }]
      ] as const
    ) {
      expect(errorOf(await server.call(tool, args)).code).toBe("invalid_input")
    }
    expect(existsSync(marker())).toBe(false)
  })

  it("select_window and select_pane change what is current and return it", async () => {
    const window = ok(await server.call("select_window", { window_id: "@2" }))
    expect(window).toMatchObject({ window_id: "@2", active: true, session_id: "$0" })
    expect(cli(world, "display-message", "-p", "-t", "$0", "#{window_id}")).toBe("@2")
    expect(ok(await server.call("select_window", { session_id: "$0", direction: "last" })).window_id).toBe("@0")
    const pane = ok(await server.call("select_pane", { window_id: "@0", direction: "next" }))
    expect(pane.pane_id).toBe(cli(world, "display-message", "-p", "-t", "@0", "#{pane_id}"))
    expect(ok(await server.call("select_pane", { pane_id: "%0" }))).toMatchObject({ pane_id: "%0", active: true })
    expect(cli(world, "display-message", "-p", "-t", "@0", "#{pane_id}")).toBe("%0")
  })

  it("select_layout, resize_pane (size and zoom) and resize_window change the geometry tmux reports", async () => {
    const layout = ok(await server.call("select_layout", { window_id: "@0", layout: "even-horizontal" }))
    expect(layout.layout).toBe(cli(world, "display-message", "-p", "-t", "@0", "#{window_layout}"))
    expect(cli(world, "list-panes", "-t", "@0", "-F", "#{pane_top}")).toBe("0\n0")
    const resized = ok(await server.call("resize_pane", { pane_id: "%0", width: 30 }))
    expect(resized).toMatchObject({ pane_id: "%0", width: 30, changed: true, window_zoomed: false })
    expect(cli(world, "display-message", "-p", "-t", "%0", "#{pane_width}")).toBe("30")
    expect(ok(await server.call("resize_pane", { pane_id: "%1", zoom: true }))).toMatchObject({ window_zoomed: true, changed: true })
    expect(ok(await server.call("resize_pane", { pane_id: "%1", zoom: true }))).toMatchObject({ window_zoomed: true, changed: false })
    expect(cli(world, "display-message", "-p", "-t", "@0", "#{window_zoomed_flag} #{pane_id}")).toBe("1 %1")
    ok(await server.call("resize_pane", { pane_id: "%1", zoom: false }))
    expect(cli(world, "display-message", "-p", "-t", "@0", "#{window_zoomed_flag}")).toBe("0")
    const window = ok(await server.call("resize_window", { window_id: "@2", width: 120, height: 40 }))
    expect(window).toMatchObject({ window_id: "@2", width: 120, height: 40 })
    expect(cli(world, "display-message", "-p", "-t", "@2", "#{window_width}x#{window_height}")).toBe("120x40")
  })

  it("swap_pane and move_window move things and say where they are now", async () => {
    const swapped = ok(await server.call("swap_pane", { source_pane_id: "%0", target_pane_id: "%2" }))
    expect(swapped.source).toMatchObject({ pane_id: "%0", window_id: "@1" })
    expect(swapped.target).toMatchObject({ pane_id: "%2", window_id: "@0" })
    expect(cli(world, "display-message", "-p", "-t", "%0", "#{window_id}")).toBe("@1")
    const moved = ok(await server.call("move_window", { window_id: "@2", session_id: "$1", index: 5 }))
    expect(moved).toMatchObject({
      window_id: "@2",
      session_id: "$1",
      window_index: 5,
      moved_from: { session_id: "$0", window_index: 1 },
      source_session_closed: false
    })
    expect(cli(world, "list-windows", "-t", "$1", "-F", "#{window_index} #{window_id}")).toBe("0 @1\n5 @2")
  })
})
