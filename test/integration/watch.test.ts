/**
 * snapshot_pane, capture_since and wait_for_text on real tmux. Most tests drive a "printer" pane: a
 * loop that runs each typed line with `eval`, with terminal echo off and no prompt, so the pane
 * shows exactly what the test makes it print and the cursor stays where that output left it.
 */
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { describe, expect, it } from "vitest"
import type { ConfigFlags } from "../../src/context/TmuxMcpConfig.js"
import { callTool } from "../../src/mcp/CallTool.js"
import { RecordingTmux, TmuxRecorder } from "../../src/testing/RecordingTmux.js"
import { serverIdentity, useWorlds, waitFor } from "../support/liveTmux.js"
import { defaultTmuxLayer, type PrivateTmux, servicesLayer } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool, toolNamed, withTestHost } from "../support/runTool.js"
import { testHost } from "../support/testHost.js"

const { world, defer } = useWorlds()

const PRINTER = `stty -echo; printf 'ready\\n'; while IFS= read -r line; do eval "$line"; done`

/** The visible rows of a pane, trailing blank rows dropped. */
const screenOf = (w: PrivateTmux, paneId: string) => w.tmuxOk("capture-pane", "-p", "-t", paneId).trimEnd()

/**
 * A printer pane in a new window of session "base" (made with the given history-limit), ready to
 * take lines. `run` makes it run a shell line and waits until the screen shows `until`.
 */
const printer = async (w: PrivateTmux, options: { readonly historyLimit?: number } = {}) => {
  if (w.tmux("has-session", "-t", "base").status !== 0) {
    w.tmuxOk("new-session", "-d", "-s", "base", "-x", "80", "-y", "24")
    w.tmuxOk("set-option", "-g", "history-limit", String(options.historyLimit ?? 5000))
  }
  const paneId = w.tmuxOk("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "base", PRINTER).trim()
  await waitFor(`${paneId} to be ready`, () => screenOf(w, paneId) === "ready")
  const run = async (line: string, until: (screen: string) => boolean) => {
    w.tmuxOk("send-keys", "-t", paneId, "-l", line)
    w.tmuxOk("send-keys", "-t", paneId, "Enter")
    await waitFor(`${paneId} to run ${line}`, () => until(screenOf(w, paneId)))
  }
  return { paneId, run }
}

/** Tool calls on a runtime whose tmux invocations are recorded, to know when a wait has looked. */
const session = (w: PrivateTmux, flags: ConfigFlags = {}) => {
  const runtime = ManagedRuntime.make(servicesLayer<TmuxRecorder>(w.config({ flags }), RecordingTmux.layer(defaultTmuxLayer)))
  defer(() => void runtime.dispose())
  /** The command names of each invocation so far. */
  const recorded = () =>
    runtime.runSync(Effect.flatMap(TmuxRecorder, (recorder) => recorder.invocations)).map((invocation) => invocation.commands)
  const invocations = () => recorded().length
  // As runTool: in remote mode every call is about the test host.
  const call = (name: string, args: Record<string, unknown>) => runtime.runPromise(callTool(toolNamed(name), withTestHost(name, args)))
  return {
    call,
    invocations,
    recorded,
    /**
     * Starts wait_for_text and resolves once its first look is over (its second one has begun),
     * with the call's result still to come (wrapped: an async function would wait for a promise it returns).
     */
    startWait: async (args: Record<string, unknown>) => {
      const before = invocations()
      const result = call("wait_for_text", args)
      await waitFor("the wait's first look", () => invocations() >= before + 2)
      return { result }
    }
  }
}

const numbers = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String(from + i)).join("\n")

describe("snapshot_pane", () => {
  it("reports the screen, the cursor and the pane's facts as numbers and flags", async () => {
    const w = world()
    const { paneId, run } = await printer(w)
    await run(`printf 'one\\ntwo\\nthree'`, (screen) => screen.endsWith("three"))
    const snapshot = okResult(await runTool(w.layer(), "snapshot_pane", { pane_id: paneId }))
    const { pid, startTime } = serverIdentity(w)
    const panePid = Number(w.tmuxOk("display-message", "-p", "-t", paneId, "#{pane_pid}").trim())
    expect(snapshot).toEqual({
      pane_id: paneId,
      content: "ready\none\ntwo\nthree",
      cursor_x: 5,
      cursor_y: 3,
      pane_in_mode: false,
      pane_mode: null,
      scroll_position: null,
      alternate_on: false,
      width: 80,
      height: 24,
      history_size: 0,
      history_limit: 5000,
      pane_current_command: expect.any(String),
      pane_current_path: expect.any(String),
      pane_dead: false,
      pane_pid: panePid,
      title: expect.any(String),
      generation: `${pid}.${startTime}`
    })
  })

  it("shows copy mode with its scroll position, the alternate screen, escapes on request, and a dead pane", async () => {
    const w = world()
    const layer = w.layer()
    const { paneId, run } = await printer(w)
    await run("seq 1 100", (screen) => screen.endsWith("100"))
    w.tmuxOk("copy-mode", "-t", paneId)
    for (let i = 0; i < 3; i++) w.tmuxOk("send-keys", "-t", paneId, "-X", "scroll-up")
    expect(okResult(await runTool(layer, "snapshot_pane", { pane_id: paneId }))).toMatchObject({
      pane_in_mode: true,
      pane_mode: "copy-mode",
      scroll_position: 3,
      history_size: 100 + 1 - 23,
      // capture-pane reads the pane's own screen, not copy mode's view of it.
      content: expect.stringMatching(/\n100$/)
    })
    w.tmuxOk("send-keys", "-t", paneId, "-X", "cancel")

    const color = await printer(w)
    await color.run(`printf '\\033[31mred\\033[0m plain'`, (screen) => screen.endsWith("red plain"))
    expect(okResult(await runTool(layer, "snapshot_pane", { pane_id: color.paneId })).content).toBe("ready\nred plain")
    expect(okResult(await runTool(layer, "snapshot_pane", { pane_id: color.paneId, escapes: true })).content).toContain("\u001b[31mred")

    const full = await printer(w)
    await full.run(`printf '\\033[?1049h\\033[HFULL SCREEN'`, (screen) => screen === "FULL SCREEN")
    expect(okResult(await runTool(layer, "snapshot_pane", { pane_id: full.paneId }))).toMatchObject({
      alternate_on: true,
      content: "FULL SCREEN",
      cursor_x: 11,
      cursor_y: 0
    })

    w.tmuxOk("set-option", "-g", "remain-on-exit", "on")
    const dying = await printer(w)
    w.tmuxOk("send-keys", "-t", dying.paneId, "exit 3", "Enter")
    await waitFor("the pane to die", () => w.tmuxOk("display-message", "-p", "-t", dying.paneId, "#{pane_dead}").trim() === "1")
    expect(okResult(await runTool(layer, "snapshot_pane", { pane_id: dying.paneId }))).toMatchObject({ pane_dead: true })
  })

  it("names a missing pane", async () => {
    const w = world()
    await printer(w)
    expect(errorMeta(await runTool(w.layer(), "snapshot_pane", { pane_id: "%99" })).code).toBe("not_found")
  })
})

describe("capture_since", () => {
  it("starts with a cursor and no content (include_current adds the screen), then returns exactly what is new", async () => {
    const w = world()
    const { paneId, run } = await printer(w)
    const s = session(w)
    const start = okResult(await s.call("capture_since", { pane_id: paneId }))
    expect(start).toMatchObject({ content: "", lines_total: 0, missed: false, continues_line: false, alternate_on: false })
    expect(start.cursor).toMatch(/^cs1\./)
    expect(okResult(await s.call("capture_since", { pane_id: paneId, include_current: true }))).toMatchObject({
      content: "ready",
      lines_total: 1
    })

    await run(`printf 'one\\ntwo\\npar'`, (screen) => screen.endsWith("par"))
    const first = okResult(await s.call("capture_since", { pane_id: paneId, cursor: start.cursor }))
    expect(first).toMatchObject({ content: "one\ntwo\npar", lines_total: 3, missed: false, continues_line: false })

    // The rest of the row the cursor was on is new; its start is not returned again.
    await run(`printf 'tial\\nnext\\n'`, (screen) => screen.endsWith("next"))
    const second = okResult(await s.call("capture_since", { pane_id: paneId, cursor: first.cursor }))
    expect(second).toMatchObject({ content: "tial\nnext", continues_line: true, missed: false })

    const third = okResult(await s.call("capture_since", { pane_id: paneId, cursor: second.cursor }))
    expect(third).toMatchObject({ content: "", lines_total: 0, missed: false })
  })

  it("reads past its margin when history grew a lot (a second invocation), keeping the newest max_lines", async () => {
    const w = world()
    const { paneId, run } = await printer(w)
    const s = session(w)
    const { cursor } = okResult(await s.call("capture_since", { pane_id: paneId }))
    await run("seq 1 3000", (screen) => screen.endsWith("\n3000"))
    const before = s.invocations()
    expect(okResult(await s.call("capture_since", { pane_id: paneId, cursor, max_lines: 100 }))).toMatchObject({
      content: numbers(2901, 3000),
      lines_total: 3000,
      lines_returned: 100,
      truncated: true,
      truncated_lines: 2900,
      missed: false
    })
    expect(s.invocations() - before).toBe(2)
  })

  it("finds its place when a full history drops old rows, and says missed when its place is gone", async () => {
    const w = world()
    const { paneId, run } = await printer(w, { historyLimit: 100 })
    const s = session(w)
    await run("seq 1 150", (screen) => screen.endsWith("\n150"))
    const { cursor } = okResult(await s.call("capture_since", { pane_id: paneId }))
    // 20 rows more on a full history: tmux drops the oldest 10 rows, shifting every row up.
    await run("seq 1001 1020", (screen) => screen.endsWith("\n1020"))
    const kept = okResult(await s.call("capture_since", { pane_id: paneId, cursor }))
    expect(kept).toMatchObject({ content: numbers(1001, 1020), missed: false })

    await run("seq 2001 2500", (screen) => screen.endsWith("\n2500"))
    const lost = okResult(await s.call("capture_since", { pane_id: paneId, cursor: kept.cursor, max_lines: 1000 }))
    expect(lost.missed).toBe(true)
    expect(lost.content.endsWith("\n2499\n2500")).toBe(true)
    expect(lost.content).not.toContain("1020")

    const { cursor: again } = okResult(await s.call("capture_since", { pane_id: paneId }))
    await run("seq 3001 3050", (screen) => screen.endsWith("\n3050"))
    w.tmuxOk("clear-history", "-t", paneId)
    const cleared = okResult(await s.call("capture_since", { pane_id: paneId, cursor: again }))
    expect(cleared).toMatchObject({ missed: true, content: screenOf(w, paneId) })
  })

  it("finds its place after drops far up a long history, reading the places it may be on in windows of the same invocation", async () => {
    const w = world()
    // history-limit 1000: tmux drops 100 rows at a time, so the anchor is 0, 100, 200, ... rows higher.
    const { paneId, run } = await printer(w, { historyLimit: 1000 })
    const s = session(w)
    await run("seq 1 1200", (screen) => screen.endsWith("\n1200"))
    const { cursor } = okResult(await s.call("capture_since", { pane_id: paneId }))
    await run("seq 2001 2150", (screen) => screen.endsWith("\n2150"))
    const before = s.invocations()
    expect(okResult(await s.call("capture_since", { pane_id: paneId, cursor, max_lines: 1000 }))).toMatchObject({
      content: numbers(2001, 2150),
      missed: false
    })
    // The history size changed since the cursor, so the first invocation's windows were computed for
    // other rows; the second reads them.
    const reads = s.recorded().slice(before)
    expect(reads.length).toBeLessThanOrEqual(2)
    expect(reads.some((commands) => commands.filter((name) => name === "capture-pane").length > 1)).toBe(true)
  })

  it("shows a full-screen program's screen, and reads on after it exits", async () => {
    const w = world()
    const { paneId, run } = await printer(w)
    const s = session(w)
    const { cursor } = okResult(await s.call("capture_since", { pane_id: paneId }))
    await run(`printf '\\033[?1049h\\033[HFULL SCREEN'`, (screen) => screen === "FULL SCREEN")
    const during = okResult(await s.call("capture_since", { pane_id: paneId, cursor }))
    expect(during).toMatchObject({ content: "FULL SCREEN", alternate_on: true, missed: false })
    await run(`printf '\\033[?1049lafter\\n'`, (screen) => screen.endsWith("after"))
    expect(okResult(await s.call("capture_since", { pane_id: paneId, cursor: during.cursor }))).toMatchObject({
      content: "after",
      alternate_on: false,
      missed: false
    })
  })

  it("refuses a cursor from another pane, pane process or server, and one that is not a cursor", async () => {
    const w = world()
    const layer = w.layer()
    const one = await printer(w)
    const two = await printer(w)
    const { cursor } = okResult(await runTool(layer, "capture_since", { pane_id: one.paneId }))
    const refusal = async (target: PrivateTmux, args: Record<string, unknown>) => {
      const error = errorMeta(await runTool(target.layer(), "capture_since", args))
      expect(error.code).toBe("invalid_input")
      expect(error.text).toContain("capture_since without a cursor")
      return error.text
    }
    expect(await refusal(w, { pane_id: two.paneId, cursor })).toContain(`belongs to pane ${one.paneId}`)
    expect(await refusal(w, { pane_id: one.paneId, cursor: "cs1.bm90IGpzb24" })).toContain("not a cursor")
    expect(await refusal(w, { pane_id: one.paneId, cursor: "hello" })).toContain("not a cursor")

    const other = world()
    other.tmuxOk("new-session", "-d", "-s", "x", "-x", "80", "-y", "24")
    for (let i = 0; i < 3; i++) other.tmuxOk("new-window", "-d", "-t", "x")
    expect(await refusal(other, { pane_id: one.paneId, cursor })).toContain("this call reached")

    w.tmuxOk("respawn-pane", "-k", "-t", one.paneId, PRINTER)
    await waitFor("the respawned printer", () => screenOf(w, one.paneId) === "ready")
    expect(await refusal(w, { pane_id: one.paneId, cursor })).toContain("respawned")
  })

  it.skipIf(testHost === undefined)("refuses a remote host's cursor on this machine before sending anything (remote mode)", async () => {
    const w = world()
    const { paneId } = await printer(w)
    const s = session(w)
    const { cursor } = okResult(await s.call("capture_since", { pane_id: paneId }))
    const before = s.invocations()
    for (const [name, args] of [["capture_since", { cursor }], ["wait_for_text", { since: cursor, patterns: null, timeout: 1 }]] as const) {
      const error = errorMeta(await s.call(name, { pane_id: paneId, ...args, host: "local" }))
      expect(error.code).toBe("invalid_input")
      expect(error.text).toContain(`was taken on host ${testHost}, not local: pass host "${testHost}"`)
    }
    expect(s.invocations()).toBe(before)
  })
})

describe("wait_for_text", () => {
  it("ignores matching text already on screen and finds it printed after the call starts, on the cursor's own row", async () => {
    const w = world()
    const { paneId, run } = await printer(w)
    const s = session(w)
    await run(`printf 'DONE before\\n'`, (screen) => screen.endsWith("DONE before"))
    expect(okResult(await s.call("wait_for_text", { pane_id: paneId, patterns: ["DONE"], timeout: 0.5 }))).toMatchObject({
      outcome: "timeout",
      matched_lines: [],
      tail: "",
      lines_total: 0
    })

    const { result: waiting } = await s.startWait({ pane_id: paneId, patterns: ["DONE"], timeout: 20 })
    // No newline: the text stays on the row the cursor was on when the wait began.
    w.tmuxOk("send-keys", "-t", paneId, "-l", "printf 'DONE after'")
    w.tmuxOk("send-keys", "-t", paneId, "Enter")
    const result = okResult(await waiting)
    expect(result).toMatchObject({
      outcome: "matched",
      matched_lines: [{ text: "DONE after", pattern_index: 0 }],
      tail: "DONE after",
      missed: false,
      effective_timeout: 20,
      timeout_clamped: false
    })
    expect(result.elapsed_ms).toBeLessThan(20_000)
    // The cursor it returns reads on from there.
    await run(`printf ' and more\\n'`, (screen) => screen.endsWith("DONE after and more"))
    expect(okResult(await s.call("capture_since", { pane_id: paneId, cursor: result.cursor })).content).toBe(" and more")
  })

  it("waits for any new text with patterns null, and returns the new output's tail on timeout", async () => {
    const w = world()
    const { paneId } = await printer(w)
    const s = session(w)
    const { result: any } = await s.startWait({ pane_id: paneId, patterns: null, timeout: 20 })
    w.tmuxOk("send-keys", "-t", paneId, "printf 'x\\n'", "Enter")
    expect(okResult(await any)).toMatchObject({ outcome: "matched", matched_lines: [{ text: "x", pattern_index: null }] })

    const { result: quiet } = await s.startWait({ pane_id: paneId, patterns: ["never printed"], timeout: 1.5, max_lines: 2 })
    w.tmuxOk("send-keys", "-t", paneId, "printf 'a\\nb\\nc\\n'", "Enter")
    expect(okResult(await quiet)).toMatchObject({
      outcome: "timeout",
      matched_lines: [],
      tail: "b\nc",
      lines_total: 3,
      lines_returned: 2,
      truncated: true,
      truncated_lines: 1,
      effective_timeout: 1.5
    })
  })

  it("ends as stopped when a stop pattern comes first; regex and ignore_case apply to both lists", async () => {
    const w = world()
    const { paneId } = await printer(w)
    const s = session(w)
    const args = { pane_id: paneId, patterns: ["ok$"], stop_patterns: ["^error"], regex: true, ignore_case: true, timeout: 20 }
    const { result: stopped } = await s.startWait(args)
    w.tmuxOk("send-keys", "-t", paneId, "printf 'ERROR: disk\\nall OK\\n'", "Enter")
    expect(okResult(await stopped)).toMatchObject({ outcome: "stopped", matched_lines: [{ text: "ERROR: disk", pattern_index: 0 }] })

    const { result: matched } = await s.startWait(args)
    w.tmuxOk("send-keys", "-t", paneId, "printf 'still OK\\nerror later\\n'", "Enter")
    expect(okResult(await matched)).toMatchObject({ outcome: "matched", matched_lines: [{ text: "still OK", pattern_index: 0 }] })
  })

  it("with since, counts output printed between that cursor and the call, in one look", async () => {
    const w = world()
    const { paneId, run } = await printer(w)
    const s = session(w)
    const { cursor } = okResult(await s.call("capture_since", { pane_id: paneId }))
    await run(`printf 'early bird\\n'`, (screen) => screen.endsWith("early bird"))
    const before = s.invocations()
    expect(okResult(await s.call("wait_for_text", { pane_id: paneId, patterns: ["early"], since: cursor, timeout: 20 }))).toMatchObject({
      outcome: "matched",
      matched_lines: [{ text: "early bird", pattern_index: 0 }]
    })
    expect(s.invocations() - before).toBe(1)

    const other = await printer(w)
    const error = errorMeta(await s.call("wait_for_text", { pane_id: other.paneId, patterns: ["x"], since: cursor }))
    expect(error).toMatchObject({ code: "invalid_input" })
    expect(error.text).toContain(`since belongs to pane ${paneId}`)
  })

  it("ends as pane_died when the program exits (with or without remain-on-exit), the pane is killed or respawned", async () => {
    const w = world()
    const s = session(w)
    const gone = await printer(w)
    const { result: exiting } = await s.startWait({ pane_id: gone.paneId, patterns: ["x"], timeout: 20 })
    w.tmuxOk("send-keys", "-t", gone.paneId, "exit", "Enter")
    expect(okResult(await exiting)).toMatchObject({ outcome: "pane_died", matched_lines: [] })

    const killed = await printer(w)
    const { result: killing } = await s.startWait({ pane_id: killed.paneId, patterns: ["x"], timeout: 20 })
    w.tmuxOk("kill-pane", "-t", killed.paneId)
    expect(okResult(await killing)).toMatchObject({ outcome: "pane_died" })

    const respawned = await printer(w)
    const { result: respawning } = await s.startWait({ pane_id: respawned.paneId, patterns: ["x"], timeout: 20 })
    w.tmuxOk("respawn-pane", "-k", "-t", respawned.paneId, "sleep 600")
    expect(okResult(await respawning)).toMatchObject({ outcome: "pane_died" })

    w.tmuxOk("set-option", "-g", "remain-on-exit", "on")
    const dead = await printer(w)
    const { result: dying } = await s.startWait({ pane_id: dead.paneId, patterns: ["x"], timeout: 20 })
    w.tmuxOk("send-keys", "-t", dead.paneId, "exit 3", "Enter")
    expect(okResult(await dying)).toMatchObject({ outcome: "pane_died" })
    // A pane already dead when the wait starts: nothing can come.
    expect(okResult(await s.call("wait_for_text", { pane_id: dead.paneId, patterns: ["x"], timeout: 20 }))).toMatchObject({
      outcome: "pane_died"
    })
  })

  it("clamps a timeout above the ceiling and says so; refuses a missing pane and a runaway regex", async () => {
    const w = world()
    const { paneId, run } = await printer(w)
    const s = session(w, { waitMaxSeconds: "1" })
    expect(okResult(await s.call("wait_for_text", { pane_id: paneId, patterns: ["x"], timeout: 100 }))).toMatchObject({
      outcome: "timeout",
      effective_timeout: 1,
      timeout_clamped: true
    })
    expect(errorMeta(await s.call("wait_for_text", { pane_id: "%99", patterns: ["x"] })).code).toBe("not_found")

    const { cursor } = okResult(await s.call("capture_since", { pane_id: paneId }))
    await run(`printf '${"a".repeat(40)}!\\n'`, (screen) => screen.endsWith("!"))
    const runaway = errorMeta(await s.call("wait_for_text", { pane_id: paneId, patterns: ["(a+)+$"], regex: true, since: cursor }))
    expect(runaway.code).toBe("invalid_input")
    expect(runaway.text).toContain("ran longer than")
  })
})
