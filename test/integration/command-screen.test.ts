/**
 * What run_command leaves on the screen a person watches (issue 31 item 2): the command as given,
 * its output and the next prompt, as if typed there by hand; no framing, markers, buffer names,
 * handle or secret, nothing twice. In bash, dash and zsh (when installed), on panes at their prompt
 * and on panes that are only starting, and on a remote host.
 */
import { execFileSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { okResult, runTool } from "../support/runTool.js"
import { BASH, shellWorld } from "../support/shellWorld.js"

const { world } = useWorlds()

const installed = (program: string) => {
  try {
    execFileSync("sh", ["-c", `command -v ${program}`], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

const SHELLS: ReadonlyArray<readonly [string, string]> = [
  ["bash", BASH],
  ["dash", "dash"],
  ...(installed("zsh") ? [["zsh", "zsh -f"] as const] : [])
]

/** The pane's whole text, history included, wrapped lines joined: what a person could scroll through. */
const screenOf = (w: PrivateTmux, pane: string) => w.tmuxOk("capture-pane", "-p", "-J", "-t", pane, "-S", "-", "-E", "-")
/** Its rows with text (what the terminal shows: a row's erased cells read as trailing spaces in a joined capture). */
const rowsOf = (text: string) => text.split("\n").map((row) => row.trimEnd()).filter((row) => row !== "")

/** A row without the prompt before the command (bash's `bash-5.2# `, dash's `# `, zsh's `host# `). */
const withoutPrompt = (row: string) => row.replace(/^\S*[$%#] /, "")

/** Asserts that no trace of the framing is on the screen, and returns its non-empty rows. */
const cleanRows = (screen: string, handles: ReadonlyArray<string>) => {
  for (const trace of ["ETM_", "eval", "show-buffer", "delete-buffer", "etm.run", "_etm_", "2>/dev/null", ...handles]) {
    expect(screen, `the screen holds ${JSON.stringify(trace)}:\n${screen}`).not.toContain(trace)
  }
  return rowsOf(screen)
}

describe.each(SHELLS)("run_command leaves a clean screen in %s", (name, shell) => {
  it("shows each command as given, its output and the prompt, nothing else", async () => {
    const { run, w } = await shellWorld(world(), shell)
    const first = await run("echo hello")
    const second = await run("printf 'a\\nb\\n'; (exit 4)")
    expect([first.output, first.exit_status, second.output, second.exit_status]).toEqual(["hello", 0, "a\nb", 4])
    const rows = cleanRows(screenOf(w, "%0"), [])
    expect(rows.length, rows.join("\n")).toBeLessThanOrEqual(8)
    expect(rows.slice(0, 4).map(withoutPrompt)).toEqual(["echo hello", "hello", "printf 'a\\nb\\n'; (exit 4)", "a"])
    expect(rows[4]).toBe("b")
    // The prompt is back where a person's own command would have left it, with nothing typed.
    expect(withoutPrompt(`${rows.at(-1)!} `)).toBe("")
    void name
  })

  it("a command without a final newline, a multi-line one and one with controls show as a terminal would", async () => {
    const { run, w } = await shellWorld(world(), shell)
    expect((await run("printf 'no newline'")).output).toBe("no newline")
    expect((await run("echo one\necho two")).output).toBe("one\ntwo")
    // An escape in the command is shown in caret notation, never acted on (a title, a clipboard).
    expect((await run("true '\u001b]2;pwned\u0007'")).exit_status).toBe(0)
    const screen = screenOf(w, "%0")
    const rows = cleanRows(screen, [])
    expect(rows).toContain("> echo two")
    expect(rows.some((row) => row.includes("true '^[]2;pwned^G'"))).toBe(true)
    expect(w.tmuxOk("display-message", "-p", "-t", "%0", "#{pane_title}")).not.toContain("pwned")
  })

  it("set -v and set -x are kept, and what they print is only the command's", async () => {
    const { run, w } = await shellWorld(world(), shell)
    await run("set -v")
    expect((await run("echo verbose")).output).toContain("verbose")
    await run("set +v; set -x")
    expect((await run("echo traced")).output).toMatch(/^\+[^\n]* ?echo traced\ntraced$/)
    await run("set +x")
    // zsh names the eval in its own trace (`+(eval):2> set +x`): the command's trace, not the framing.
    const screen = screenOf(w, "%0").replaceAll("+(eval)", "+")
    cleanRows(screen, [])
  })
})

describe.each(SHELLS)("run_command on a pane that is still starting, in %s", (_name, shell) => {
  it("waits for the prompt: the command shows once, after it", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "run", "-x", "120", "-y", "30", "sh")
    await waitFor("the first shell", () => w.tmuxOk("capture-pane", "-p", "-t", "%0").trim() !== "")
    const layer = w.layer()
    // A pane created and driven at once, as an agent does: its shell has not started yet.
    const created = okResult(await runTool(layer, "split_window", { pane_id: "%0", command: ["sh", "-c", `exec env ${shell}`] }))
    const pane = created.pane.pane_id as string
    const run = async (command: string) => okResult(await runTool(layer, "run_command", { pane_id: pane, command, timeout: 10 }))
    const first = await run("echo fresh")
    const second = await run("echo again")
    expect([first.outcome, first.output, second.output]).toEqual(["completed", "fresh", "again"])
    const rows = cleanRows(screenOf(w, pane), [])
    expect(rows.filter((row) => row.includes("echo fresh"))).toHaveLength(1)
    expect(rows.length, rows.join("\n")).toBeLessThanOrEqual(8)
  })
})

describe("run_command on a shell whose rc file takes a while", () => {
  it("types after the rc file, so its output stays and the command shows once", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "run", "-x", "120", "-y", "30", "sh")
    const rc = `${w.tmpdir}/slow-rc`
    execFileSync("sh", ["-c", `printf 'echo welcome-from-rc; sleep 1.5\\n' > '${rc}'`])
    const layer = w.layer()
    const created = okResult(
      await runTool(layer, "split_window", {
        pane_id: "%0",
        command: ["env", "HISTFILE=/dev/null", "bash", "--rcfile", rc]
      })
    )
    const pane = created.pane.pane_id as string
    const result = okResult(await runTool(layer, "run_command", { pane_id: pane, command: "echo after-rc", timeout: 10 }))
    expect([result.outcome, result.output]).toEqual(["completed", "after-rc"])
    const rows = cleanRows(screenOf(w, pane), [])
    expect(rows[0]).toBe("welcome-from-rc")
    expect(rows.filter((row) => row.includes("echo after-rc"))).toHaveLength(1)
  })
})
