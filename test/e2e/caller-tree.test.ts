/**
 * Issue 31 item 1: an MCP client inside a tmux pane that starts the server with a reduced
 * environment (no TMUX, TMUX_PANE or TMUX_TMPDIR, as the SDKs do) still gets its pane. The pane of
 * a private server (private socket and TMUX_TMPDIR, `sh`) runs a small relay — the client — which
 * spawns the built server with only PATH and HOME, makes the MCP calls and writes what it got to a
 * file; the server is thus a descendant of the pane's shell, as under a real client.
 */
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAIN, makeWorld, poll, ROOT, type World } from "./harness.js"

/** The relay: an SDK v1 client that spawns the server with the environment it is given and records each call's result. */
const RELAY = `
import { Client } from ${JSON.stringify(join(ROOT, "node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js"))}
import { StdioClientTransport } from ${JSON.stringify(join(ROOT, "node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js"))}
import { writeFileSync } from "node:fs"
const [out, env, calls] = process.argv.slice(2)
const transport = new StdioClientTransport({ command: process.execPath, args: [${
  JSON.stringify(MAIN)
}], env: JSON.parse(env), stderr: "pipe" })
let stderr = ""
transport.stderr?.on("data", (chunk) => (stderr += chunk))
const client = new Client({ name: "relay", version: "0" })
const results = []
try {
  await client.connect(transport)
  for (const [name, args] of JSON.parse(calls)) results.push(await client.callTool({ name, arguments: args }))
  await client.close()
} catch (error) {
  results.push({ relayError: String(error) })
}
writeFileSync(out, JSON.stringify({ results, stderr }))
`

interface Relayed {
  readonly results: ReadonlyArray<
    { readonly structuredContent?: Record<string, any>; readonly isError?: boolean; readonly relayError?: string }
  >
  readonly stderr: string
}

describe("a client in a tmux pane that passes no TMUX, TMUX_PANE or TMUX_TMPDIR", () => {
  let world: World
  let relay: string
  let paneId: string
  let serverPid: number

  beforeAll(() => {
    world = makeWorld()
    relay = join(world.dir, "relay.mjs")
    writeFileSync(relay, RELAY)
    const created = world.tmux(["new-session", "-d", "-s", "agent", "-x", "120", "-y", "30", "sh"])
    if (created.status !== 0) throw new Error(created.stderr)
    const [pid, pane] = world.tmux(["display-message", "-p", "-t", "agent", "#{pid} #{pane_id}"]).stdout.trim().split(" ")
    serverPid = Number(pid)
    paneId = pane!
  })
  afterAll(() => world?.dispose())

  /** Runs the relay in the pane, the server given `env` only; what it recorded. */
  const runInPane = async (name: string, env: Record<string, string>, calls: ReadonlyArray<[string, object]>): Promise<Relayed> => {
    const out = join(world.dir, `${name}.json`)
    // Single quotes around words without any: sh passes each as one word.
    const words = [process.execPath, relay, out, JSON.stringify(env), JSON.stringify(calls)]
    expect(words.filter((word) => word.includes("'"))).toEqual([])
    const line = words.map((word) => `'${word}'`).join(" ")
    const sent = world.tmux(["send-keys", "-t", paneId, "-l", line])
    expect(sent.status).toBe(0)
    world.tmux(["send-keys", "-t", paneId, "Enter"])
    await poll(`${name}'s results`, () => (existsSync(out) ? true : undefined), 300)
    return JSON.parse(readFileSync(out, "utf8")) as Relayed
  }

  const reduced = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: world.dir, LIBTMUX_TMUX_CONFIG: "/dev/null" })

  it("where_am_i finds the pane through the process tree, and the tools query that pane's server", async () => {
    // Not the private server by any other way: no TMUX_TMPDIR, no LIBTMUX_SOCKET, no TMUX.
    expect(Object.keys(reduced())).not.toContain("TMUX_TMPDIR")
    const relayed = await runInPane("found", reduced(), [["where_am_i", {}], ["list_sessions", {}], ["list_panes", {}], [
      "get_pane_info",
      {}
    ]])
    const [where, sessions, panes, info] = relayed.results.map((r) => {
      if (r.relayError !== undefined || r.isError === true) throw new Error(`${JSON.stringify(r)}\n${relayed.stderr}`)
      return r.structuredContent!
    })
    expect(where).toMatchObject({
      inside_tmux: true,
      caller_status: "live",
      caller_source: "process_tree",
      pane_id: paneId,
      effective_socket_path: world.socketPath,
      socket_rule: "caller (process tree)",
      targets_caller_server: true,
      server_running: true,
      server_pid: serverPid
    })
    expect(sessions!.items.map((s: { session_name: string }) => s.session_name)).toEqual(["agent"])
    expect(panes!.items.filter((p: { is_caller: boolean }) => p.is_caller).map((p: { pane_id: string }) => p.pane_id)).toEqual([paneId])
    // The caller's own pane is the default target of get_pane_info.
    expect(info!.pane_id).toBe(paneId)
  })

  it("with LIBTMUX_MCP_PROCESS_TREE=0 the same client is outside tmux and queries tmux's default socket of its own TMUX_TMPDIR", async () => {
    const relayed = await runInPane("off", { ...reduced(), LIBTMUX_MCP_PROCESS_TREE: "0", TMUX_TMPDIR: join(world.dir, "elsewhere") }, [[
      "where_am_i",
      {}
    ]])
    expect(relayed.results[0]?.structuredContent).toMatchObject({ inside_tmux: false, caller_source: "none", socket_rule: "tmux default" })
  })

  it("the pane's own environment still wins: a server given TMUX says it came from the environment", async () => {
    const tmuxVariable = `${world.socketPath},${serverPid},0`
    const relayed = await runInPane("env", { ...reduced(), TMUX: tmuxVariable, TMUX_PANE: paneId }, [["where_am_i", {}]])
    expect(relayed.results[0]?.structuredContent).toMatchObject({
      inside_tmux: true,
      caller_source: "environment",
      pane_id: paneId,
      socket_rule: "caller ($TMUX)"
    })
  })

  it("nothing but the relay ran in the pane: no server was started elsewhere", () => {
    const sockets = spawnSync("ls", [join(world.dir, `tmux-${process.getuid?.() ?? 0}`)], { encoding: "utf8" }).stdout.trim().split("\n")
    expect(sockets).toEqual([world.socketName])
  })
})
