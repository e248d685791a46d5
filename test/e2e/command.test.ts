/**
 * run_command and wait_for_command through a real MCP client over stdio, on real tmux: the issue's
 * "done when" cases one by one, a cancelled call, and progress notifications.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, makeWorld, ok, serve, type Served, textOf, type World } from "./harness.js"

/** Child processes of a process, from /proc. */
const childrenOf = (pid: number): Array<number> =>
  readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, "utf8")
      .split(" ")
      .filter((word) => word.trim() !== "")
      .map(Number)
  )

describe("run_command over stdio", () => {
  let world: World
  let server: Served
  let paneId: string

  beforeAll(async () => {
    world = makeWorld()
    world.tmux(["new-session", "-d", "-s", "work", "-x", "120", "-y", "30", "bash --norc --noprofile"])
    paneId = world.tmux(["display-message", "-p", "-t", "work", "#{pane_id}"]).stdout.trim()
    for (let i = 0; i < 100 && world.tmux(["capture-pane", "-p", "-t", paneId]).stdout.trim() === ""; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    server = await serve(world)
  })
  afterAll(async () => {
    await server?.close()
    world?.dispose()
  })

  const run = async (command: string, args: Record<string, unknown> = {}) =>
    ok(await server.call("run_command", { pane_id: paneId, command, timeout: 10, ...args }))

  it("false gives exit_status 1; printf 'a\\nb\\n' gives exactly the lines a and b", async () => {
    expect(await run("false")).toMatchObject({ outcome: "completed", exit_status: 1, output: "" })
    const printed = await run("printf 'a\\nb\\n'")
    expect(printed).toMatchObject({ outcome: "completed", exit_status: 0, lines_total: 2 })
    expect(printed.output.split("\n")).toEqual(["a", "b"])
  })

  it("cd /tmp in one call, pwd in the next prints /tmp", async () => {
    expect(await run("cd /tmp")).toMatchObject({ exit_status: 0 })
    expect(await run("pwd")).toMatchObject({ output: "/tmp", exit_status: 0 })
  })

  it("runs a heredoc and a command with quotes and ;", async () => {
    expect((await run("cat <<'END'\nx=\"1\"; y='2'\nEND")).output).toBe("x=\"1\"; y='2'")
    expect((await run(`echo "it's"; echo 'say "hi"'; echo a\\;b`)).output).toBe(`it's\nsay "hi"\na;b`)
  })

  it("returns head, tail and the elided count of a 5,000-line output", async () => {
    const result = await run("seq 1 5000")
    expect(result).toMatchObject({ lines_total: 5000, elided_lines: 4800, elided_after_line: 100, truncated: true, exit_status: 0 })
    const lines = result.output.split("\n")
    expect(lines.slice(0, 2)).toEqual(["1", "2"])
    expect(lines[100]).toBe("[… 4800 lines elided …]")
    expect(lines.at(-1)).toBe("5000")
  })

  // Issue 24: a test run's failures and how it ended, not its 300 passes.
  it("match returns a test run's 3 FAIL lines with their line numbers and the last 10 lines, in a text block under 1,000 B", async () => {
    const script = join(world.dir, "suite.sh")
    writeFileSync(
      script,
      "for i in $(seq 1 303); do case $i in 41|150|277) echo \"FAIL test_$i: expected 200, got 500\";; *) echo \"PASS test_$i\";; esac; done; exit 1\n"
    )
    const result = await server.call("run_command", {
      pane_id: paneId,
      command: `bash ${script}`,
      timeout: 10,
      match: { patterns: ["^FAIL "], regex: true }
    })
    const value = ok(result)
    expect(value).toMatchObject({ outcome: "completed", exit_status: 1, lines_total: 303, match_count: 3 })
    expect(value.matches).toEqual([41, 150, 277].map((line) => ({ line, text: `FAIL test_${line}: expected 200, got 500` })))
    expect(value.output.split("\n")).toEqual(["[… 293 lines elided …]", ...Array.from({ length: 10 }, (_, i) => `PASS test_${294 + i}`)])
    const text = textOf(result)
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1000)
    // The text block holds the matches and the tail, and no other line of the output.
    for (const line of [41, 150, 277]) expect(text).toContain(`${line} "FAIL test_${line}: expected 200, got 500"`)
    expect(text).toContain("PASS test_303")
    expect(text).not.toContain("PASS test_293")
    expect(text).not.toContain("PASS test_1\n")
  })

  it("is not ended early by the framing's marker text typed as part of the command", async () => {
    // The marker formats are documented; a command printing them (with any id) must not end the wait.
    const result = await run(
      "printf 'ETM_E_%s 0\\nETM_S_%s\\n' 0000000000000000 1111111111111111; sleep 1; echo last; exit_is_not_called=1"
    )
    expect(result).toMatchObject({ outcome: "completed", exit_status: 0 })
    expect(result.output.split("\n")).toEqual(["ETM_E_0000000000000000 0", "ETM_S_1111111111111111", "last"])
  })

  it("sleep 30 with timeout 1 returns timed_out with a handle; the handle later yields completed with exit status 0", async () => {
    const first = await run("sleep 30", { timeout: 1 })
    expect(first).toMatchObject({ outcome: "timed_out", exit_status: null, started: true, effective_timeout: 1 })
    expect(typeof first.handle).toBe("string")
    const rest = ok(await server.call("wait_for_command", { handle: first.handle, timeout: 30 }))
    expect(rest).toMatchObject({ outcome: "completed", exit_status: 0, handle: null })
    expect(rest.elapsed_ms).toBeGreaterThanOrEqual(29_000)
  }, 60_000)

  it("a wait over the ceiling is clamped and reported", async () => {
    expect(await run("true", { timeout: 1000 })).toMatchObject({ effective_timeout: 30, timeout_clamped: true, exit_status: 0 })
  })

  it("a cancelled run_command ends its wait at once, leaves no child process, and stops its recording", async () => {
    const controller = new AbortController()
    const call = server.client.callTool(
      { name: "run_command", arguments: { pane_id: paneId, command: "sleep 5", timeout: 20 } },
      undefined,
      {
        signal: controller.signal
      }
    )
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const cancelledAt = Date.now()
    controller.abort("test cancels")
    await expect(call).rejects.toThrow()
    let children = childrenOf(server.pid)
    for (let i = 0; i < 10 && children.length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
      children = childrenOf(server.pid)
    }
    expect(children).toEqual([])
    expect(Date.now() - cancelledAt).toBeLessThan(500)
    // The wait ended; the command itself was left to run (cancelling stops the wait, not the command).
    const pipe = async () => world.tmux(["display-message", "-p", "-t", paneId, "#{pane_pipe}"]).stdout.trim()
    for (let i = 0; i < 40 && (await pipe()) !== "0"; i++) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await pipe()).toBe("0")
    // While the sleep goes on the pane is busy and says so (once the cancelled call has let go of the
    // pane, which it does right after its clean-up); once the sleep is over, it takes commands again.
    let refusal = ""
    for (let i = 0; i < 40 && !refusal.includes("busy"); i++) {
      refusal = errorOf(await server.call("run_command", { pane_id: paneId, command: "true" })).text
      if (!refusal.includes("busy")) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(refusal).toContain("busy")
    const foreground = () => world.tmux(["display-message", "-p", "-t", paneId, "#{pane_current_command}"]).stdout.trim()
    for (let i = 0; i < 200 && foreground() !== "bash"; i++) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(await run("echo again")).toMatchObject({ output: "again", exit_status: 0 })
  })

  it("sends progress notifications to a client that asked for them", async () => {
    const progress: Array<number> = []
    const result = await server.client.callTool(
      { name: "run_command", arguments: { pane_id: paneId, command: "sleep 2.5", timeout: 10 } },
      undefined,
      {
        onprogress: (notification) => progress.push(notification.progress)
      }
    )
    expect((result.structuredContent as Record<string, unknown>).exit_status).toBe(0)
    expect(progress.length).toBeGreaterThanOrEqual(2)
    expect([...progress].sort((a, b) => a - b)).toEqual(progress)
  })
})
