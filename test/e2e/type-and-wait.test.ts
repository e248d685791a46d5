/**
 * Type, then wait, in one call (issue 23): send_keys and paste_text with `wait`, and settled
 * screens (`settle_ms`), through the built server over stdio on every tmux version at hand (the
 * system's, and each of ETM_TEST_TMUX_MATRIX's, which .ci/run provides: 3.5a and 3.8). Every
 * server here is started by create_session with the version's own tmux binary, so client and
 * server always speak the same version.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { errorOf, ok, type Served, textOf } from "./harness.js"
import { servePerTest, tmuxVersions } from "./tmuxVersions.js"

const serveWith = servePerTest({ LIBTMUX_SAFETY: "destructive" })

/** A session whose one pane runs `script` with sh; returns its pane id. */
const sessionRunning = async (server: Served, script: string): Promise<string> => {
  const created = ok(await server.call("create_session", { allow_server_start: true, command: ["sh", "-c", script] }))
  return created.active_pane_id as string
}

/** Answers every line it reads at once, with no echo: `ANSWER:<line>`; says READY once echo is off. */
const ANSWERER = `stty -echo; echo READY; while IFS= read -r line; do printf 'ANSWER:%s\\n' "$line"; done`

const screenOf = async (server: Served, pane: string) => ok(await server.call("snapshot_pane", { pane_id: pane })).content as string

/**
 * A session whose pane runs ANSWERER, once it is ready: text that reached the pane before its
 * `stty -echo` ran would be echoed on the screen beside the answer.
 */
const answererPane = async (server: Served): Promise<string> => {
  const pane = await sessionRunning(server, ANSWERER)
  for (let i = 0; i < 400; i++) {
    if ((await screenOf(server, pane)).includes("READY")) return pane
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`the answerer in ${pane} never said READY`)
}

/**
 * A full-screen program with no prompt to wait for: a clock on row 1 that never stops, a spinner
 * on row 3 for 2 s, then its answer there and an idle prompt on row 5.
 */
const FAKE_TUI = [
  `printf '\\033[?1049h\\033[2J'`,
  `i=0`,
  `while :; do`,
  `  printf '\\033[1;1Hclock %s' "$(date +%s.%N)"`,
  `  if [ "$i" -lt 20 ]; then printf '\\033[3;1Hworking %s' "$i"`,
  `  elif [ "$i" -eq 20 ]; then printf '\\033[3;1H\\033[KANSWER 42\\033[5;1H> '; fi`,
  `  i=$((i + 1)); sleep 0.1`,
  `done`
].join("\n")

describe.each(tmuxVersions)("type and wait on tmux %s", (_version, tmuxBin) => {
  it("send_keys with wait drives a Python REPL: the second answer is 42", async () => {
    const { server } = await serveWith(tmuxBin)
    const pane = await sessionRunning(server, "PS1='$ ' exec sh")
    const started = ok(await server.call("send_keys", { pane_id: pane, keys: "python3 -q", wait: { patterns: [">>>"] } }))
    expect(started).toMatchObject({ outcome: "matched", enter_sent: true, missed: false })
    const answered = await server.call("send_keys", { pane_id: pane, keys: "6*7", wait: { patterns: [">>>"] } })
    const result = ok(answered)
    expect(result.outcome).toBe("matched")
    expect(result.tail.split("\n")).toEqual(["6*7", "42", ">>>"])
    expect(result.matched_lines).toEqual([{ text: ">>>", pattern_index: 0 }])
    // The text block carries the same answer, the tail raw and last.
    expect(textOf(answered)).toMatch(/\ntail \(3 lines\):\n6\*7\n42\n>>>$/)
    // The result's cursor reads on from the answer: nothing new yet.
    const since = ok(await server.call("capture_since", { pane_id: pane, cursor: result.cursor }))
    expect(since.content).toBe("")
  })

  it("finds an answer printed within a millisecond of the keys, and nothing printed before them", async () => {
    const { server } = await serveWith(tmuxBin)
    const pane = await answererPane(server)
    const early = ok(await server.call("send_keys", { pane_id: pane, keys: "early", wait: { patterns: ["ANSWER:"], timeout: 5 } }))
    expect(early).toMatchObject({ outcome: "matched", matched_lines: [{ text: "ANSWER:early", pattern_index: 0 }] })
    // "ANSWER:early" is on screen now; the next wait counts only what answers the next keys.
    const late = ok(await server.call("send_keys", { pane_id: pane, keys: "late", wait: { patterns: ["ANSWER:"], timeout: 5 } }))
    expect(late).toMatchObject({ outcome: "matched", matched_lines: [{ text: "ANSWER:late", pattern_index: 0 }], tail: "ANSWER:late" })

    // Typing first and waiting next (the old two calls) starts the wait after the answer: it is
    // lost. The answer is on screen before the wait starts, which is what the race usually gives.
    ok(await server.call("send_keys", { pane_id: pane, keys: "lost" }))
    for (let i = 0; i < 400 && !ok(await server.call("snapshot_pane", { pane_id: pane })).content.includes("ANSWER:lost"); i++);
    const missed = ok(await server.call("wait_for_text", { pane_id: pane, patterns: ["ANSWER:lost"], timeout: 0.5 }))
    expect(missed.outcome).toBe("timeout")
  })

  it("paste_text with wait counts from the paste", async () => {
    const { server } = await serveWith(tmuxBin)
    const pane = await answererPane(server)
    const pasted = ok(
      await server.call("paste_text", { pane_id: pane, text: "one", bracketed: false, enter: true, wait: { patterns: ["ANSWER:one"] } })
    )
    expect(pasted).toMatchObject({ bytes: 3, enter_sent: true, outcome: "matched", tail: "ANSWER:one" })
  })

  it("a fake TUI is waited on with settle_ms and ignore_patterns; a screen that never settles times out with its screen", async () => {
    const { server, world } = await serveWith(tmuxBin)
    const script = join(world.dir, "tui.sh")
    writeFileSync(script, FAKE_TUI)
    const pane = await sessionRunning(server, "PS1='$ ' exec sh")
    const settled = ok(
      await server.call("send_keys", {
        pane_id: pane,
        keys: `sh ${script}`,
        wait: { settle_ms: 600, ignore_patterns: ["^clock \\d"], regex: true, timeout: 15 }
      })
    )
    expect(settled.outcome).toBe("settled")
    // Not before the spinner stopped at 2 s, and then the whole screen is the answer.
    expect(settled.elapsed_ms).toBeGreaterThanOrEqual(2000)
    expect(settled.tail).toMatch(/^clock \d+\.\d+\n\nANSWER 42\n\n>$/)

    const restless = ok(await server.call("wait_for_text", { pane_id: pane, patterns: null, settle_ms: 500, timeout: 2 }))
    expect(restless.outcome).toBe("timeout")
    expect(restless.tail).toMatch(/^clock \d+\.\d+\n\nANSWER 42\n\n>$/)
  }, 40_000)
})

describe("type and wait refuses what cannot work, with nothing sent", () => {
  it("a wait with nothing to end it, a bad pattern or a settle time past the timeout types nothing", async () => {
    const { server } = await serveWith("tmux")
    const pane = await answererPane(server)
    ok(await server.call("send_keys", { pane_id: pane, keys: "first", wait: { patterns: ["ANSWER:first"] } }))
    const before = await screenOf(server, pane)
    const refusals = [
      { wait: {}, says: /wait needs patterns/ },
      { wait: { patterns: [] }, says: /wait needs patterns/ },
      { wait: { patterns: ["("], regex: true }, says: /wait: .*Nothing was sent/ },
      // A pattern that backtracks catastrophically on a test line (issue 30 item 2).
      { wait: { patterns: ["^(a+)+$"], regex: true, timeout: 1 }, says: /patterns\[0\] backtracks catastrophically.*Nothing was sent/ },
      { wait: { patterns: ["x"], stop_patterns: ["(x+x+)+y"], regex: true, timeout: 1 }, says: /stop_patterns\[0\] backtracks/ },
      { wait: { settle_ms: 2000, timeout: 1 }, says: /settle_ms \(2000\) must be shorter than the timeout/ },
      { wait: { settle_ms: 10 }, says: /settle_ms/ },
      { wait: { patterns: ["x"], extra: 1 }, says: /extra/ }
    ]
    for (const { says, wait } of refusals) {
      const refused = errorOf(await server.call("send_keys", { pane_id: pane, keys: "second", wait }))
      expect(refused.code).toBe("invalid_input")
      expect(refused.text).toMatch(says)
      const pasted = errorOf(await server.call("paste_text", { pane_id: pane, text: "second", enter: true, wait }))
      expect(pasted.code).toBe("invalid_input")
    }
    expect(await screenOf(server, pane)).toBe(before)
  })

  it("a regex that runs away only on the answer: the keys were sent and the result says so, as outcome missed (issue 30 item 2)", async () => {
    const { server } = await serveWith("tmux")
    const pane = await answererPane(server)
    // A test line of one repeated character never starts with ANSWER: only the answer runs away.
    const wait = { patterns: ["^ANSWER:MARK (a+)+$"], regex: true, timeout: 5 }
    const line = `MARK ${"a".repeat(40)}!`
    for (const call of [{ tool: "send_keys", args: { keys: line } }, { tool: "paste_text", args: { text: line, enter: true } }]) {
      const result = ok(await server.call(call.tool, { pane_id: pane, ...call.args, wait }))
      expect(result).toMatchObject({ outcome: "missed", matched_lines: [] })
      expect(result.wait_missed).toMatch(/catastrophic backtracking.*The input was sent/)
      const since = ok(await server.call("capture_since", { pane_id: pane, cursor: result.cursor }))
      expect(since.content).toContain(`ANSWER:${line}`)
    }
    expect(textOf(await server.call("send_keys", { pane_id: pane, keys: "after", wait: { patterns: ["ANSWER:after"] } }))).toContain(
      "matched"
    )
  })

  it("hostile keys are typed as text and their answer waited for; a pane that dies mid-wait ends it as pane_died", async () => {
    const { server } = await serveWith("tmux")
    const pane = await answererPane(server)
    const hostile = "$(touch /tmp/etm-owned) ; `id` \\e[31m #{pane_id}"
    const answered = ok(await server.call("send_keys", { pane_id: pane, keys: hostile, literal: true, wait: { patterns: ["ANSWER:"] } }))
    expect(answered.matched_lines).toEqual([{ text: `ANSWER:${hostile}`, pattern_index: 0 }])

    const waiting = server.call("send_keys", { pane_id: pane, keys: "x", wait: { patterns: ["never printed"], timeout: 20 } })
    await new Promise((resolve) => setTimeout(resolve, 300))
    ok(await server.call("kill_pane", { pane_id: pane }))
    const ended = ok(await waiting)
    expect(ended.outcome).toBe("pane_died")
  })
})
