/**
 * The control-mode transport on real tmux: it is really used, it changes nothing a person sees
 * (window sizes, attachment), it never keeps a session or server alive or starts one, it recovers
 * from a server restart, and its finalizer detaches it. (The rest of the integration suite runs
 * on it too, see vitest.config.ts.)
 */
import { describe, expect, it } from "@effect/vitest"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { spawn } from "node:child_process"
import { callTool } from "../../src/mcp/CallTool.js"
import type { ServerServices } from "../../src/mcp/McpServer.js"
import { TmuxControl } from "../../src/tmux/TmuxControl.js"
import { TmuxExec } from "../../src/tmux/TmuxExec.js"
import { attachTerminalClient, useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { okResult, toolNamed } from "../support/runTool.js"

const { world, defer } = useWorlds()

/** A runtime over one transport, kept for several calls (as the MCP server keeps it). */
const runtimeOver = (w: PrivateTmux, transport: "control" | "exec", flags = {}) => {
  const runtime = ManagedRuntime.make(w.layer({ flags }, transport === "control" ? TmuxControl.layer : TmuxExec.layer))
  defer(() => void runtime.dispose())
  return runtime
}

const call = async (runtime: ManagedRuntime.ManagedRuntime<ServerServices, never>, name: string, args: unknown = {}) =>
  okResult(await runtime.runPromise(callTool(toolNamed(name), args)))

/** Every client as tmux lists it: flags and session. */
const clients = (w: PrivateTmux) =>
  w
    .tmuxOk("list-clients", "-F", "#{client_flags}\t#{session_name}")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [flags = "", session = ""] = line.split("\t")
      return { flags: flags.split(","), session }
    })

const ourClients = (w: PrivateTmux) =>
  clients(w).filter((client) => client.flags.includes("control-mode") && client.flags.includes("no-output"))

const windowSizes = (w: PrivateTmux) => w.tmuxOk("list-windows", "-a", "-F", "#{window_id} #{window_width}x#{window_height}")

describe("TmuxControl", () => {
  it("answers over one attached control client, invisible in our outputs, and detaches when its layer closes", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "work", "-x", "90", "-y", "25")
    w.tmuxOk("new-session", "-d", "-s", "other", "-x", "70", "-y", "15")
    const runtime = runtimeOver(w, "control")
    for (let i = 0; i < 5; i++) expect((await call(runtime, "list_panes")).total).toBe(2)
    // One client for all five calls, attached with flags that make it resize nothing and see nothing.
    expect(ourClients(w)).toHaveLength(1)
    expect(ourClients(w)[0]!.flags).toEqual(expect.arrayContaining(["ignore-size", "no-output"]))
    // tmux counts it; our outputs do not.
    expect(w.tmuxOk("list-sessions", "-F", "#{session_attached}").split("\n").filter(Boolean).map(Number)).toContain(1)
    const sessions = (await call(runtime, "list_sessions")).items as Array<{ session_attached: number }>
    expect(sessions.map((session) => session.session_attached)).toEqual([0, 0])
    const panes = (await call(runtime, "list_panes")).items as Array<{ is_attended: boolean }>
    expect(panes.map((pane) => pane.is_attended)).toEqual([false, false])
    await runtime.dispose()
    await waitFor("the control client to detach", () => ourClients(w).length === 0)
  })

  it("leaves window sizes and session_attached as a person sees them without it", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "alone", "-x", "100", "-y", "30")
    w.tmuxOk("new-session", "-d", "-s", "watched", "-x", "100", "-y", "30")
    // A person at a 132x43 terminal attached to "watched": the window takes the terminal's size.
    const person = await attachTerminalClient(w, "watched", { columns: 132, rows: 43 })
    defer(person.close)
    await waitFor("the window to take the person's size", () => windowSizes(w).includes("132x42"))
    const sizesBefore = windowSizes(w)

    // What attachment and size look like (names and commands can change on their own: left out).
    const read = async (transport: "control" | "exec") => {
      const runtime = runtimeOver(w, transport)
      const sessions = (await call(runtime, "list_sessions")).items.map(
        (s: { session_name: string; session_attached: number }) => [s.session_name, s.session_attached]
      )
      const panes = (await call(runtime, "list_panes")).items.map(
        (p: { pane_id: string; is_attended: boolean; width: number; height: number }) => [p.pane_id, p.is_attended, p.width, p.height]
      )
      const session = (await call(runtime, "get_session_info", { session_name: "alone" })).session_attached
      await runtime.dispose()
      return { sessions, panes, session }
    }
    const viaExec = await read("exec")
    const viaControl = await read("control")
    expect(viaControl).toEqual(viaExec)
    expect(viaControl.sessions).toEqual([
      ["alone", 0],
      ["watched", 1]
    ])
    expect(windowSizes(w)).toBe(sizesBefore)
  })

  it("falls back to a process per call on a server without sessions, and attaches once one exists", async () => {
    const w = world()
    w.tmuxOk("start-server", ";", "set", "-g", "exit-empty", "off")
    const runtime = runtimeOver(w, "control")
    expect((await call(runtime, "list_sessions")).items).toEqual([])
    // tmux answers list-clients with "no current target" when there is no session, hence no client.
    expect(w.tmux("list-clients").stdout).toBe("")
    await call(runtime, "create_session", { session_name: "made" })
    expect((await call(runtime, "list_panes")).total).toBe(1)
    expect(ourClients(w)).toEqual([{ flags: expect.arrayContaining(["no-output"]), session: "made" }])
  })

  it("attaches to no session that would outlive its people because of it (destroy-unattached, exit-unattached)", async () => {
    for (const option of ["destroy-unattached", "exit-unattached"]) {
      const w = world()
      w.tmuxOk("new-session", "-d", "-s", "t")
      // Either option closes what nobody is attached to at once: a person stays attached to t.
      const person = await attachTerminalClient(w, "t")
      defer(person.close)
      w.tmuxOk("set-option", "-g", option, "on")
      const runtime = runtimeOver(w, "control")
      expect((await call(runtime, "list_panes")).total).toBe(1)
      expect(ourClients(w)).toEqual([])
    }
  })

  it("picks up a restarted server on the same socket", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "first")
    const runtime = runtimeOver(w, "control")
    const before = await call(runtime, "get_server_info")
    w.tmuxOk("kill-server")
    await waitFor("the old client to notice", () => w.tmux("list-clients").status !== 0)
    w.tmuxOk("new-session", "-d", "-s", "second", ";", "new-window")
    const after = await call(runtime, "get_server_info")
    expect(after.generation).not.toBe(before.generation)
    expect(after.pane_count).toBe(2)
    expect((await call(runtime, "list_sessions")).items.map((s: { session_name: string }) => s.session_name)).toEqual(["second"])
    expect(ourClients(w)).toHaveLength(1)
  })

  it("kills its own session through a separate process and carries on with the next session", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "a", ";", "new-session", "-d", "-s", "b")
    const runtime = runtimeOver(w, "control", { safety: "destructive" })
    await call(runtime, "list_panes")
    const attachedTo = ourClients(w)[0]!.session
    const sessionId = w.tmuxOk("list-sessions", "-F", "#{session_name} #{session_id}").match(new RegExp(`^${attachedTo} (\\S+)$`, "m"))![1]
    const result = await call(runtime, "kill_session", { session_id: sessionId })
    expect(result.killed).toBe("session")
    const left = (await call(runtime, "list_sessions")).items.map((s: { session_name: string }) => s.session_name)
    expect(left).toEqual([attachedTo === "a" ? "b" : "a"])
  })

  it("marks an owned session, not the session its client is attached to", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "mine")
    const runtime = runtimeOver(w, "control")
    await call(runtime, "list_panes")
    expect(ourClients(w)[0]!.session).toBe("mine")
    await call(runtime, "create_session", { session_name: "owned", owned: true })
    const marks = w.tmuxOk("list-sessions", "-F", "#{session_name}=#{@effect_tmux_mcp_owner}")
    expect(marks).toMatch(/^owned=\S+$/m)
    expect(marks).toMatch(/^mine=$/m)
    await runtime.dispose()
    // The finalizer kills what it owns, and only that.
    await waitFor("the owned session to close", () => !w.tmuxOk("list-sessions", "-F", "#{session_name}").includes("owned"))
    expect(w.tmuxOk("list-sessions", "-F", "#{session_name}").trim()).toBe("mine")
  })

  it("does not attach to servers it only lists", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "main")
    const runtime = runtimeOver(w, "control")
    // A second server in the same socket directory, seen only through list_servers.
    const other = spawn("tmux", ["-f", "/dev/null", "-L", `${w.socketName}-other`, "new-session", "-d", "-s", "x"], { env: w.env })
    await new Promise((resolve) => other.once("close", resolve))
    defer(() => void spawn("tmux", ["-L", `${w.socketName}-other`, "kill-server"], { env: w.env }))
    const servers = (await call(runtime, "list_servers")).items as Array<unknown>
    expect(servers).toHaveLength(2)
    const otherClients = spawn("tmux", ["-L", `${w.socketName}-other`, "list-clients"], { env: w.env })
    let listed = ""
    otherClients.stdout.on("data", (chunk: Buffer) => (listed += chunk.toString()))
    await new Promise((resolve) => otherClients.once("close", resolve))
    expect(listed).toBe("")
  })
})
