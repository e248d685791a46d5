/**
 * Issue 10 item 13: one wedged socket (a tmux server that accepts connections and never answers,
 * here a SIGSTOPped one) does not break discovery. list_servers and where_am_i probe every socket
 * at once with a short deadline, report the wedged one as unresponsive, and answer the rest.
 */
import { spawnSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { useWorlds } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { okResult, runTool } from "../support/runTool.js"

const { world, defer } = useWorlds()

/** Well below the 10 s per-call deadline a wedged socket used to cost; a bound, not a timing assertion. */
const ANSWER_BOUND_MS = 8_000

/** A second server in the world's socket directory, stopped with SIGSTOP; resumed and killed after the test. */
const wedgedServer = (w: PrivateTmux, suffix = "wedged") => {
  const name = `${w.socketName}-${suffix}`
  const tmux = (...args: Array<string>) => {
    return spawnSync("tmux", ["-f", "/dev/null", "-L", name, ...args], { env: w.env, encoding: "utf8", timeout: 10_000 })
  }
  if (tmux("new-session", "-d", "-s", "stuck").status !== 0) throw new Error("could not start the wedged server")
  const pid = Number(tmux("display-message", "-p", "#{pid}").stdout.trim())
  process.kill(pid, "SIGSTOP")
  defer(() => {
    process.kill(pid, "SIGCONT")
    tmux("kill-server")
  })
  return { name, pid, path: w.socketPath.replace(/[^/]+$/, name) }
}

const timed = async <A>(work: () => Promise<A>) => {
  const started = Date.now()
  const value = await work()
  return { value, ms: Date.now() - started }
}

describe("a wedged socket next to a healthy server (item 13)", () => {
  it("list_servers lists the healthy server, reports the wedged socket as unresponsive, and answers within a short bound", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "healthy")
    const wedged = wedgedServer(w)
    const { value: result, ms } = await timed(() => runTool(w.layer(), "list_servers"))
    const page = okResult(result)
    expect(page.items.map((item: any) => item.socket_path)).toEqual([w.socketPath])
    expect(page.total).toBe(1)
    expect(page.unresponsive).toEqual([{ socket_name: wedged.name, socket_path: wedged.path }])
    expect(ms).toBeLessThan(ANSWER_BOUND_MS)
  })

  it("where_am_i about the healthy server answers with it, counting the wedged socket apart", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "healthy")
    wedgedServer(w)
    const { value: result, ms } = await timed(() => runTool(w.layer(), "where_am_i"))
    const where = okResult(result)
    expect(where).toMatchObject({
      effective_socket_path: w.socketPath,
      server_running: true,
      live_server_count: 1,
      unresponsive_server_count: 1
    })
    // Said only when so.
    expect(where).not.toHaveProperty("server_unresponsive")
    expect(where.server_pid).toBeGreaterThan(0)
    expect(ms).toBeLessThan(ANSWER_BOUND_MS)
  })

  it("where_am_i about the wedged socket says it is unresponsive instead of failing", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "healthy")
    const wedged = wedgedServer(w)
    const where = okResult(await runTool(w.layer(), "where_am_i", { socket_name: wedged.name }))
    expect(where).toMatchObject({
      effective_socket_path: wedged.path,
      server_running: false,
      server_unresponsive: true,
      server_pid: null,
      live_server_count: 1,
      unresponsive_server_count: 1
    })
  })

  it("several wedged sockets cost one short deadline together, not one each", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "healthy")
    const wedged = ["a", "b", "c", "d"].map((suffix) => wedgedServer(w, suffix))
    const { value: result, ms } = await timed(() => runTool(w.layer(), "list_servers"))
    const page = okResult(result)
    expect(page.total).toBe(1)
    expect(page.unresponsive.map((socket: any) => socket.socket_path)).toEqual(wedged.map((socket) => socket.path).sort())
    expect(ms).toBeLessThan(ANSWER_BOUND_MS)
  })

  it("where_am_i inside a pane of the wedged server says the caller is uncertain, not gone", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "healthy")
    const wedged = wedgedServer(w)
    const env = { TMUX: `${wedged.path},${wedged.pid},0`, TMUX_PANE: "%0" }
    const where = okResult(await runTool(w.layer({ env }), "where_am_i"))
    // The tools' socket is the world's (LIBTMUX_SOCKET), not the caller's: that one answers.
    expect(where).toMatchObject({
      inside_tmux: true,
      caller_status: "uncertain",
      pane_id: null,
      caller_socket_path: wedged.path,
      effective_socket_path: w.socketPath,
      server_running: true,
      targets_caller_server: false,
      unresponsive_server_count: 1
    })
    expect(where).not.toHaveProperty("server_unresponsive")
  })
})
