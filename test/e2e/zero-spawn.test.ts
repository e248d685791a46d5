/**
 * Issue 13: over the default (socket) transport the read tools spawn no process at all. Counted
 * two ways on the built server over stdio: a tmux binary that logs each run (and lingers, so a run
 * cannot slip between samples), and the server's children in /proc/<pid>/task/<tid>/children,
 * sampled every few milliseconds while the calls run. start_server, the one tool that runs tmux
 * whatever the transport, shows both counters work. The one run before serving is the start-up
 * check of the binary (`tmux -V`, issue 31 item 4), which where_am_i reports without running again.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { allTools } from "../../src/tools/registry.js"
import { validCallsOfEveryTool } from "../support/everyTool.js"
import { childPids, makeWorld, ok, serve, type Served, type World } from "./harness.js"

let world: World
let server: Served
/** The runs of start-up, before any call. */
let startup: Array<string>
const runsLog = () => join(world.dir, "tmux-runs")

beforeAll(async () => {
  world = makeWorld()
  world.startTmux()
  world.tmux(["split-window", "-d", "-t", "main"])
  world.tmux(["set-buffer", "-b", "etm.b", "x"])
  const bin = join(world.dir, "counting-tmux")
  writeFileSync(bin, `#!/bin/sh\necho "$*" >> '${runsLog()}'\nsleep 0.3\nexec tmux "$@"\n`)
  chmodSync(bin, 0o755)
  server = await serve(world, { env: { LIBTMUX_TMUX_BIN: bin } })
  startup = runs()
})

afterAll(async () => {
  await server?.close()
  world?.dispose()
})

const runs = () => (existsSync(runsLog()) ? readFileSync(runsLog(), "utf8").split("\n").filter(Boolean) : [])

/** Runs `work` while sampling the server's children; returns every child seen. */
const sampling = async (work: () => Promise<void>): Promise<Set<number>> => {
  const seen = new Set<number>()
  const timer = setInterval(() => childPids(server.pid).forEach((child) => seen.add(child)), 2)
  try {
    await work()
  } finally {
    clearInterval(timer)
  }
  childPids(server.pid).forEach((child) => seen.add(child))
  return seen
}

/** Every read tool's valid calls, aimed at the world's objects ($0, @0, %0, %1, buffer b). */
const READ_CALLS = allTools
  .filter((tool) => tool.tier === "readonly")
  .flatMap((tool) => (validCallsOfEveryTool("etm-no-such-handle")[tool.name] ?? []).map((args) => [tool.name, args] as const))

describe("zero spawn over the default transport", () => {
  it("start-up runs the binary once, to check it is tmux", () => {
    expect(startup).toEqual(["-V"])
  })

  it("the read tools, called again and again, run no tmux and have no child process at any sample", async () => {
    const answered = new Set<string>()
    const seen = await sampling(async () => {
      for (let round = 0; round < 3; round++) {
        for (const [name, args] of READ_CALLS) {
          if ((await server.call(name, args)).isError !== true) answered.add(name)
        }
      }
    })
    // The calls reached tmux (a handle that does not exist is the one expected refusal).
    expect(READ_CALLS.length).toBeGreaterThan(15)
    expect([...answered].sort()).toEqual(
      [...new Set(READ_CALLS.map(([name]) => name))].filter((name) => name !== "wait_for_command").sort()
    )
    expect(runs()).toEqual(startup)
    expect([...seen]).toEqual([])
  }, 60_000)

  it("resource reads of every template, and a screen subscription while it polls, run no tmux and have no child process", async () => {
    const uris = [
      "tmux://self",
      "tmux://sessions",
      "tmux://session/%240",
      "tmux://window/%400",
      "tmux://pane/%250",
      "tmux://pane/%250/screen"
    ]
    const screen = "tmux://pane/%251/screen"
    const seen = await sampling(async () => {
      for (let round = 0; round < 3; round++) {
        for (const uri of uris) expect((await server.client.readResource({ uri })).contents).toHaveLength(1)
      }
      await server.client.subscribeResource({ uri: screen })
      // Several poll periods.
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      await server.client.unsubscribeResource({ uri: screen })
    })
    expect(runs()).toEqual(startup)
    expect([...seen]).toEqual([])
  }, 60_000)

  it("the counters count: start_server (a new server) runs tmux, seen in the log and among the children", async () => {
    const seen = await sampling(async () => void ok(await server.call("start_server", { socket_name: `${world.socketName}-new` })))
    expect(runs().length).toBeGreaterThan(startup.length)
    expect(seen.size).toBeGreaterThan(0)
  })
})
