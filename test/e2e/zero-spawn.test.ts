/**
 * Issue 13: over the default (socket) transport the read tools spawn no process at all. Counted
 * two ways on the built server over stdio: a tmux binary that logs each run (and lingers, so a run
 * cannot slip between samples), and the server's children in /proc/<pid>/task/<tid>/children,
 * sampled every few milliseconds while the calls run. start_server, the one tool that runs tmux
 * whatever the transport, shows both counters work.
 */
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorld, ok, serve, type Served, type World } from "./harness.js"

let world: World
let server: Served
let paneId: string
const runsLog = () => join(world.dir, "tmux-runs")

beforeAll(async () => {
  world = makeWorld()
  paneId = world.startTmux().paneId
  world.tmux(["split-window", "-d", "-t", "main"])
  world.tmux(["set-buffer", "-b", "etm.b", "text"])
  const bin = join(world.dir, "counting-tmux")
  writeFileSync(bin, `#!/bin/sh\necho "$*" >> '${runsLog()}'\nsleep 0.3\nexec tmux "$@"\n`)
  chmodSync(bin, 0o755)
  server = await serve(world, { env: { LIBTMUX_TMUX_BIN: bin } })
})

afterAll(async () => {
  await server?.close()
  world?.dispose()
})

const runs = () => (existsSync(runsLog()) ? readFileSync(runsLog(), "utf8").split("\n").filter(Boolean) : [])

/** The pids of the server's children now, from every thread's children list. */
const children = (pid: number): Array<number> => {
  const found: Array<number> = []
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim()
      if (text !== "") found.push(...text.split(" ").map(Number))
    }
  } catch {
    // A thread that ended between the listing and the read.
  }
  return found
}

/** Runs `work` while sampling the server's children; returns every child seen. */
const sampling = async (work: () => Promise<void>): Promise<Set<number>> => {
  const seen = new Set<number>()
  const timer = setInterval(() => children(server.pid).forEach((child) => seen.add(child)), 2)
  try {
    await work()
  } finally {
    clearInterval(timer)
  }
  children(server.pid).forEach((child) => seen.add(child))
  return seen
}

/** Stands for the world's pane, known once it runs. */
const PANE = "the pane"

const READ_CALLS: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["where_am_i", {}],
  ["list_servers", {}],
  ["get_server_info", {}],
  ["list_sessions", {}],
  ["get_session_info", { session_name: "main" }],
  ["list_windows", {}],
  ["list_panes", { limit: 1000 }],
  ["get_pane_info", { pane_id: PANE }],
  ["capture_pane", { pane_id: PANE }],
  ["snapshot_pane", { pane_id: PANE }],
  ["capture_since", { pane_id: PANE }],
  ["search_panes", { patterns: ["x"] }],
  ["list_buffers", {}],
  ["show_buffer", { name: "b" }],
  ["show_environment", { global: true }]
]

describe("zero spawn over the default transport", () => {
  it("the read tools, called again and again, run no tmux and have no child process at any sample", async () => {
    const seen = await sampling(async () => {
      for (let round = 0; round < 5; round++) {
        for (const [name, args] of READ_CALLS) {
          ok(await server.call(name, args.pane_id === PANE ? { ...args, pane_id: paneId } : args))
        }
      }
    })
    expect(runs()).toEqual([])
    expect([...seen]).toEqual([])
  }, 60_000)

  it("the counters count: start_server (a new server) runs tmux, seen in the log and among the children", async () => {
    const seen = await sampling(async () => void ok(await server.call("start_server", { socket_name: `${world.socketName}-new` })))
    expect(runs().length).toBeGreaterThan(0)
    expect(seen.size).toBeGreaterThan(0)
  })
})
