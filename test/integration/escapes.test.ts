/**
 * capture_pane and capture_since with `escapes` (issue 14 item 8): colours and attributes stay as
 * the SGR sequences `capture-pane -e` writes, the line budget still applies (whole lines, so no
 * sequence is cut), and capture_since's cursor finds its place by the plain text as without escapes.
 */
import { spawnSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { okResult, runTool } from "../support/runTool.js"

const { world } = useWorlds()

// Prints a red line per number it reads; "part" prints green text without a newline, "rest" ends that line in blue.
const PRINTER =
  `stty -echo; while read -r n; do case $n in part) printf "\\033[32mpart\\033[0m";; rest) printf "\\033[34mrest\\033[0m\\n";; *) printf "\\033[31mred %s\\033[0m plain\\n" "$n";; esac; done`

const printer = async (w: PrivateTmux) => {
  w.tmuxOk("new-session", "-d", "-s", "p", "-x", "80", "-y", "24", `sh -c '${PRINTER}'`)
  // Ready once its terminal stopped echoing: keys sent before `stty -echo` ran would show on screen.
  const tty = w.tmuxOk("display-message", "-p", "-t", "%0", "#{pane_tty}").trim()
  await waitFor(
    "the printer to turn echo off",
    () => / -echo /.test(` ${spawnSync("stty", ["-F", tty, "-a"], { encoding: "utf8" }).stdout.replaceAll("\n", " ")} `)
  )
  const say = async (line: string, shows: string) => {
    w.tmuxOk("send-keys", "-t", "%0", "-l", `${line}\r`)
    await waitFor(`"${shows}" on screen`, () => w.tmuxOk("capture-pane", "-p", "-t", "%0").includes(shows))
  }
  return { layer: w.layer(), say }
}

const ESC = "\x1b"
// eslint-disable-next-line no-control-regex
const SGR = /\x1b\[[0-9;]*m/g

describe("escapes", () => {
  it("capture_pane keeps the colour sequences, and max_lines still keeps whole lines", async () => {
    const w = world()
    const { layer, say } = await printer(w)
    for (const n of ["1", "2", "3"]) await say(n, `red ${n}`)
    const plain = okResult(await runTool(layer, "capture_pane", { pane_id: "%0" }))
    expect(plain.content).toBe("red 1 plain\nred 2 plain\nred 3 plain")
    const coloured = okResult(await runTool(layer, "capture_pane", { pane_id: "%0", escapes: true }))
    expect(coloured.content).toContain(`${ESC}[31mred 2`)
    expect(coloured.content.replace(SGR, "")).toBe(plain.content)
    expect(coloured.lines_total).toBe(3)
    const newest = okResult(await runTool(layer, "capture_pane", { pane_id: "%0", escapes: true, max_lines: 2 }))
    expect(newest).toMatchObject({ lines_returned: 2, truncated: true, truncated_lines: 1 })
    expect(newest.content.replace(SGR, "")).toBe("red 2 plain\nred 3 plain")
    // Every sequence is whole: each ESC starts a complete SGR.
    expect(newest.content.split(ESC).slice(1).every((part: string) => /^\[[0-9;]*m/.test(part))).toBe(true)
  })

  it("capture_since returns only the new lines with their colours, and its cursor reads on as without escapes", async () => {
    const w = world()
    const { layer, say } = await printer(w)
    await say("1", "red 1")
    const first = okResult(await runTool(layer, "capture_since", { pane_id: "%0", escapes: true, include_current: true }))
    expect(first.content).toContain(`${ESC}[31mred 1`)
    await say("2", "red 2")
    await say("3", "red 3")
    const next = okResult(await runTool(layer, "capture_since", { pane_id: "%0", cursor: first.cursor, escapes: true }))
    expect(next.content.replace(SGR, "")).toBe("red 2 plain\nred 3 plain")
    expect(next.content).toContain(`${ESC}[31mred 3`)
    expect(next.missed).toBe(false)
    // The same cursor without escapes reads the same lines.
    const plain = okResult(await runTool(layer, "capture_since", { pane_id: "%0", cursor: first.cursor }))
    expect(plain.content).toBe("red 2 plain\nred 3 plain")
    expect(plain.cursor).toBe(next.cursor)

    // A line continued after the cursor: only its new part, with its colour.
    await say("part", "part")
    const mid = okResult(await runTool(layer, "capture_since", { pane_id: "%0", cursor: next.cursor, escapes: true }))
    await say("rest", "partrest")
    const rest = okResult(await runTool(layer, "capture_since", { pane_id: "%0", cursor: mid.cursor, escapes: true }))
    expect(rest.continues_line).toBe(true)
    expect(rest.content.replace(SGR, "")).toBe("rest")
    expect(rest.content).toContain(`${ESC}[34mrest`)
    const nothing = okResult(await runTool(layer, "capture_since", { pane_id: "%0", cursor: rest.cursor, escapes: true }))
    expect(nothing).toMatchObject({ content: "", lines_total: 0, missed: false })
  })
})
