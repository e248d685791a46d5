/**
 * search_panes on real tmux: literal and regex matches across sessions, scopes, line numbers that
 * capture_pane reads back, patterns that look like tmux formats or commands found as text and never
 * run, pane text shaped like the capture headers, a runaway regex, bounds and paging.
 */
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"

const { world } = useWorlds()

/**
 * Starts a pane (a new session `session`, or a new window of it) that runs the script in the file
 * and then sleeps, and waits until tmux shows `lastLine` as its last line. The script goes through
 * a file, so its quotes and `#` reach `sh` untouched by tmux.
 */
const paneShowing = async (w: PrivateTmux, session: string, script: string, lastLine: string): Promise<string> => {
  const file = join(w.tmpdir, `script-${session}-${Math.random().toString(36).slice(2)}.sh`)
  writeFileSync(file, `${script}\nexec sleep 600\n`)
  const command = `sh ${file}`
  const paneId = (
    w.tmux("has-session", "-t", `=${session}`).status === 0
      ? w.tmuxOk("new-window", "-d", "-P", "-F", "#{pane_id}", "-t", `=${session}:`, command)
      : w.tmuxOk("new-session", "-d", "-P", "-F", "#{pane_id}", "-s", session, "-x", "160", "-y", "24", command)
  ).trim()
  await waitFor(`${paneId} to show ${lastLine}`, () => {
    if (w.tmuxOk("display-message", "-p", "-t", paneId, "#{pane_current_command}").trim() !== "sleep") return false
    const rows = w.tmuxOk("capture-pane", "-p", "-t", paneId).trimEnd().split("\n")
    return rows[rows.length - 1]?.trimEnd() === lastLine
  })
  return paneId
}

const ids = (result: any) => result.panes.map((pane: any) => pane.pane_id)

describe("search_panes", () => {
  it("finds literal and regex matches across sessions, scoped by session and window, with lines capture_pane reads back", async () => {
    const w = world()
    w.tmuxOk("start-server", ";", "set-option", "-g", "exit-empty", "off", ";", "set-option", "-g", "history-limit", "5000")
    const a1 = await paneShowing(w, "alpha", "seq 1 100; echo 'build FAILED: 3 errors'; echo done-a1", "done-a1")
    const a2 = await paneShowing(w, "alpha", "echo 'all tests passed'; echo 'Build failed: linker'; echo done-a2", "done-a2")
    const b1 = await paneShowing(w, "beta", "echo 'warning: deprecated'; echo 'build FAILED again'; echo done-b1", "done-b1")
    const layer = w.layer()
    const [alphaId, betaId] = w.tmuxOk("list-sessions", "-F", "#{session_id}").trim().split("\n")
    const a2Window = w.tmuxOk("display-message", "-p", "-t", a2, "#{window_id}").trim()

    const literal = okResult(await runTool(layer, "search_panes", { patterns: ["FAILED"], fields: "all" }))
    expect(ids(literal)).toEqual([a1, b1])
    expect(literal).toMatchObject({ panes_total: 3, panes_searched: 3, panes_with_matches: 2, total_matches: 2, truncated: false })
    expect(literal.panes[0]).toMatchObject({ session_name: "alpha", session_id: alphaId, command: "sleep", match_count: 1 })
    expect(literal.panes[1]).toMatchObject({ session_name: "beta", session_id: betaId })

    // "seq 1 100" scrolled the first lines into history: the match sits on the screen, and the
    // line number reads the same text back through capture_pane.
    for (const pane of literal.panes) {
      const [match] = pane.matches
      const back = okResult(await runTool(layer, "capture_pane", { pane_id: pane.pane_id, start: match.line, end: match.line }))
      expect(back.content).toBe(match.text)
    }
    const history = okResult(
      await runTool(layer, "search_panes", { patterns: ["5"], regex: false, session_id: alphaId, max_matches_per_pane: 100 })
    )
    const fives = history.panes[0].matches
    expect(fives.map((m: any) => m.text)).toEqual([
      "5",
      "15",
      "25",
      "35",
      "45",
      "50",
      "51",
      "52",
      "53",
      "54",
      "55",
      "56",
      "57",
      "58",
      "59",
      "65",
      "75",
      "85",
      "95"
    ])
    expect(fives[0].line).toBeLessThan(0)
    for (const match of [fives[0], fives[10]]) {
      const back = okResult(await runTool(layer, "capture_pane", { pane_id: a1, start: match.line, end: match.line }))
      expect(back.content).toBe(match.text)
    }

    const regex = okResult(
      await runTool(layer, "search_panes", { patterns: ["^build failed", "^warning:"], regex: true, ignore_case: true })
    )
    expect(regex.panes.map((pane: any) => [pane.pane_id, pane.matches.map((m: any) => [m.text, m.pattern])])).toEqual([
      [a1, [["build FAILED: 3 errors", 0]]],
      [a2, [["Build failed: linker", 0]]],
      [b1, [["warning: deprecated", 1], ["build FAILED again", 0]]]
    ])

    const bySession = okResult(await runTool(layer, "search_panes", { patterns: ["FAILED", "failed"], session_id: betaId }))
    expect(bySession).toMatchObject({ panes_total: 1, total_matches: 1 })
    expect(ids(bySession)).toEqual([b1])
    const byWindow = okResult(await runTool(layer, "search_panes", { patterns: ["FAILED", "failed"], window_id: a2Window }))
    expect(byWindow).toMatchObject({ panes_total: 1, total_matches: 1 })
    expect(ids(byWindow)).toEqual([a2])

    expect(errorMeta(await runTool(layer, "search_panes", { patterns: ["x"], session_id: "$99" })).code).toBe("not_found")
    expect(errorMeta(await runTool(layer, "search_panes", { patterns: ["x"], window_id: "@99" })).code).toBe("not_found")
  })

  it("patterns that look like tmux formats, commands or quotes are found as text and never run", async () => {
    const w = world()
    const sentinel = join(w.tmpdir, "pwned")
    const hostile = `#{pane_id} #(touch ${sentinel}) ; kill-server ; "dq" 'sq' #[fg=red] ##`
    // printf's %s keeps the text away from printf's own format; the script file keeps it from the shell.
    const paneId = await paneShowing(w, "s", `printf '%s\\n' '${hostile.replace(/'/g, `'"'"'`)}'; echo end`, "end")
    expect(w.tmuxOk("capture-pane", "-p", "-t", paneId)).toContain(hostile)
    const layer = w.layer()
    for (const patterns of [[hostile], ["#{pane_id}", `#(touch ${sentinel})`], ["; kill-server ;"], [`"dq" 'sq'`]]) {
      const result = okResult(await runTool(layer, "search_panes", { patterns }))
      expect(result.panes.map((pane: any) => pane.matches.map((m: any) => m.text))).toEqual([[hostile]])
    }
    const escaped = okResult(await runTool(layer, "search_panes", { patterns: ["#\\{pane_id\\} #\\(touch"], regex: true }))
    expect(escaped.total_matches).toBe(1)
    // Not on screen: nothing found, and still nothing run.
    expect(okResult(await runTool(layer, "search_panes", { patterns: [`#(touch ${sentinel}-2)`, "#{session_name}"] })).total_matches).toBe(
      0
    )
    expect(existsSync(sentinel)).toBe(false)
    expect(existsSync(`${sentinel}-2`)).toBe(false)
    expect(w.tmux("has-session").status).toBe(0)
  })

  it("pane text shaped like a capture header cannot split the results", async () => {
    const w = world()
    // tmux drops the RS/US control characters, so try both with and without them.
    const forged = await paneShowing(
      w,
      "s",
      [
        "printf '\\036cap\\037%%9\\0370\\0371\\nneedle forged\\n'",
        "printf 'cap%%90 1\\nneedle two\\n'",
        "printf '\\036deadbeefcafe\\037cap\\037%%0\\0370\\03724\\n'",
        "echo end"
      ].join("\n"),
      "end"
    )
    const other = await paneShowing(w, "s", "echo 'needle other'", "needle other")
    const result = okResult(await runTool(w.layer(), "search_panes", { patterns: ["needle", "cap"] }))
    expect(ids(result)).toEqual([forged, other])
    expect(result.panes[0].matches.map((m: any) => [m.text.replaceAll("\x1e", "?").replaceAll("\x1f", "?"), m.pattern])).toEqual([
      [expect.stringContaining("cap"), 1],
      ["needle forged", 0],
      [expect.stringContaining("cap"), 1],
      ["needle two", 0],
      [expect.stringContaining("cap"), 1]
    ])
    expect(result.panes[1].matches.map((m: any) => m.text)).toEqual(["needle other"])
    expect(result).toMatchObject({ panes_total: 2, panes_searched: 2, total_matches: 6 })
  })

  it("a catastrophically backtracking regex is invalid_input, and the server answers afterwards", async () => {
    const w = world()
    await paneShowing(w, "s", `echo ${"a".repeat(40)}!`, `${"a".repeat(40)}!`)
    const layer = w.layer()
    const error = errorMeta(await runTool(layer, "search_panes", { patterns: ["^(a+)+$"], regex: true }))
    expect(error.code).toBe("invalid_input")
    expect(error.text).toContain("simplify it")
    expect(okResult(await runTool(layer, "search_panes", { patterns: ["^a+!$"], regex: true })).total_matches).toBe(1)
  })

  it("bounds history, matches per pane and bytes, says what it left out, and pages over panes", async () => {
    const w = world()
    w.tmuxOk("start-server", ";", "set-option", "-g", "exit-empty", "off", ";", "set-option", "-g", "history-limit", "5000")
    const long = await paneShowing(w, "s", "seq 1 3000 | sed 's/^/row /'", "row 3000")
    const panes = [long]
    for (let i = 0; i < 3; i++) panes.push(await paneShowing(w, "s", `echo 'row only ${i}'`, `row only ${i}`))
    const layer = w.layer()
    const height = Number(w.tmuxOk("display-message", "-p", "-t", long, "#{pane_height}").trim())
    // The screen shows rows up to 3000 and the cursor's empty row below them.
    const firstVisible = 3000 - height + 2

    // history_lines 0: the screen only, whatever the history holds.
    const window_id = w.tmuxOk("display-message", "-p", "-t", long, "#{window_id}").trim()
    const screen = okResult(
      await runTool(layer, "search_panes", { patterns: ["row 2"], history_lines: 0, window_id, max_matches_per_pane: 1000 })
    )
    const screenRows = w.tmuxOk("capture-pane", "-p", "-t", long).split("\n").filter((row) => row.includes("row 2"))
    expect(screenRows.length).toBeGreaterThan(10)
    expect(screen.panes[0].matches.map((m: any) => m.text)).toEqual(screenRows)
    expect(screen.panes[0].matches.every((m: any) => m.line >= 0 && m.line < height)).toBe(true)
    const all = okResult(
      await runTool(layer, "search_panes", { patterns: ["row 1"], history_lines: 5000, max_panes: 1, max_matches_per_pane: 5 })
    )
    // row 1, row 10..19, row 100..199, row 1000..1999: 1 + 10 + 100 + 1000.
    expect(all.panes[0]).toMatchObject({ pane_id: long, match_count: 1111, matches_truncated: true })
    expect(all.panes[0].matches.map((m: any) => m.text)).toEqual(["row 1", "row 10", "row 11", "row 12", "row 13"])
    expect(all.panes[0].matches[0].line).toBe(-(firstVisible - 1))
    expect(all).toMatchObject({ total_matches: 1111, matches_returned: 5, next_offset: 1, truncated: true })
    const some = okResult(await runTool(layer, "search_panes", { patterns: ["row"], history_lines: 100, max_panes: 1 }))
    expect(some.panes[0].matches[0]).toMatchObject({ line: -100, text: `row ${firstVisible - 100}` })
    expect(some.panes[0].match_count).toBe(100 + height - 1)

    const tight = okResult(await runTool(layer, "search_panes", { patterns: ["row"], max_matches_per_pane: 1000, max_bytes: 2048 }))
    expect(tight).toMatchObject({ bytes_exhausted: true, truncated: true, panes_with_matches: 4, panes_omitted: 3 })
    expect(tight.matches_returned).toBeLessThan(tight.total_matches)
    expect(Buffer.byteLength(JSON.stringify(tight))).toBeLessThanOrEqual(2048)

    // Pages of two panes, in pane-id order, until next_offset is null.
    const seen: Array<string> = []
    let offset: number | null = 0
    while (offset !== null) {
      const page: any = okResult(await runTool(layer, "search_panes", { patterns: ["row"], max_panes: 2, history_lines: 10, offset }))
      expect(page.panes_total).toBe(4)
      seen.push(...ids(page))
      offset = page.next_offset
    }
    expect(seen).toEqual(panes)
  })
})
