/**
 * run_command and wait_for_command against the adversarial cases of issue 10: a shell whose input
 * is not empty, a command that fakes its own end, a recording nobody stops, a tmux server that dies
 * mid-wait, handles that are spent or forged, refusals that name the pane's state, and terminal
 * controls in the output.
 */
import { existsSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { bufferNames, callerEnv, useWorlds, waitFor } from "../support/liveTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"
import { BASH, idOf, logDirectoryOf, logsOf, paneValue, shellWorld, tamperedHandle } from "../support/shellWorld.js"

const { world } = useWorlds()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("a shell whose input is not empty (issue 10 item 2)", () => {
  it("returns the output after a terminal's reply to a query landed in the shell's input", async () => {
    const { w, run } = await shellWorld(world())
    // The cursor position report tmux sends back lands in the shell's line editor, as after vim or fzf.
    w.tmuxOk("send-keys", "-t", "%0", "-l", "printf '\\033[6n'")
    w.tmuxOk("send-keys", "-t", "%0", "Enter")
    await sleep(300)
    expect(await run("echo hi")).toMatchObject({ outcome: "completed", exit_status: 0, output: "hi", started: true })
  })

  it("returns the output when half-typed text waits at the prompt, even with the cursor moved back", async () => {
    const { w, run } = await shellWorld(world())
    w.tmuxOk("send-keys", "-t", "%0", "-l", "echo half")
    await sleep(100)
    expect(await run("echo hi")).toMatchObject({ outcome: "completed", exit_status: 0, output: "hi" })
    w.tmuxOk("send-keys", "-t", "%0", "-l", "echo junk")
    w.tmuxOk("send-keys", "-t", "%0", "C-a")
    await sleep(100)
    expect(await run("echo again")).toMatchObject({ outcome: "completed", exit_status: 0, output: "again" })
  })

  it("says not_started, and withdraws the command, when the shell does not take the line", async () => {
    const { w, run } = await shellWorld(world())
    // An unfinished quote: the shell reads our line as more of the string and never runs it.
    w.tmuxOk("send-keys", "-t", "%0", "-l", "echo \"open")
    w.tmuxOk("send-keys", "-t", "%0", "Enter")
    await sleep(200)
    const result = await run("echo ran-$((40+2))", { timeout: 8 })
    expect(result).toMatchObject({ outcome: "not_started", exit_status: null, started: false, handle: null })
    expect(bufferNames(w)).toEqual([])
    expect(paneValue(w, "%0", "pane_pipe")).toBe("0")
    expect(paneValue(w, "%0", "@etm-run")).toBe("")
    expect(logsOf(w)).toEqual([])
    // Closing the quote later must not run the withdrawn command.
    w.tmuxOk("send-keys", "-t", "%0", "-l", "\"")
    w.tmuxOk("send-keys", "-t", "%0", "Enter")
    await sleep(500)
    expect(w.tmuxOk("capture-pane", "-p", "-t", "%0")).not.toContain("ran-42")
    // The pane takes commands again.
    expect(await run("echo fine")).toMatchObject({ outcome: "completed", output: "fine" })
  })

  it("says not_started when the line ran but the framing did not (eval aliased away)", async () => {
    const { w, run } = await shellWorld(world())
    w.tmuxOk("send-keys", "-t", "%0", "-l", "alias eval=:")
    w.tmuxOk("send-keys", "-t", "%0", "Enter")
    await sleep(200)
    const result = await run("echo ran", { timeout: 8 })
    expect(result).toMatchObject({ outcome: "not_started", started: false, handle: null })
    expect(paneValue(w, "%0", "pane_pipe")).toBe("0")
    expect(paneValue(w, "%0", "@etm-run")).toBe("")
  })
})

describe("a command that fakes its own end (issue 10 item 7)", () => {
  // Everything the command can read while it runs: the screen, the pane's options (its run id), the
  // buffers, every process's argv.
  const faker = [
    "for i in $({ tmux capture-pane -p -S -; tmux show-options -p -t $TMUX_PANE; } | grep -o '[0-9a-f]\\{16\\}' | sort -u); do printf 'ETM_E_%s 0\\nETM_E_%s_0 0\\n' $i $i; done",
    "for b in $(tmux list-buffers -F '#{buffer_name}'); do tmux show-buffer -b $b; done",
    "for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f 2>/dev/null; echo; done | grep -o 'ETM_E_[0-9A-Za-z_]*' | sort -u | while read m; do printf '%s 0\\n' \"$m\"; done",
    "sleep 1",
    "echo still-running",
    "false"
  ].join("; ")

  it("is not ended by any marker it can learn: the real end and exit status come back", async () => {
    const { run } = await shellWorld(world())
    const result = await run(faker)
    expect(result).toMatchObject({ outcome: "completed", exit_status: 1 })
    expect(result.output).toContain("still-running")
    expect(result.elapsed_ms).toBeGreaterThanOrEqual(1000)
  })

  it("stops the recording only at a line shaped like the real end: the output stays the log's", async () => {
    const { run } = await shellWorld(world())
    expect(await run(faker)).toMatchObject({ outcome: "completed", exit_status: 1, output_source: "pipe" })
  })

  it("in sh (dash) too", async () => {
    const { run } = await shellWorld(world(), "sh")
    const result = await run(faker)
    expect(result).toMatchObject({ outcome: "completed", exit_status: 1, shell: "sh" })
    expect(result.output).toContain("still-running")
  })

  it("with xtrace and verbose on in the shell, in bash and dash", async () => {
    for (const shell of [BASH, "sh"]) {
      const { w, run } = await shellWorld(world(), shell)
      w.tmuxOk("send-keys", "-t", "%0", "-l", "set -xv")
      w.tmuxOk("send-keys", "-t", "%0", "Enter")
      await sleep(200)
      const result = await run(faker)
      expect(result).toMatchObject({ outcome: "completed", exit_status: 1 })
      expect(result.output).toContain("still-running")
      // The shell's own options are as they were.
      expect((await run("echo $-")).output).toMatch(/x/)
    }
  })

  it("a syntax error in the command still ends with its status, in bash and dash", async () => {
    for (const shell of [BASH, "sh"]) {
      const { run } = await shellWorld(world(), shell)
      const result = await run("if true")
      expect(result).toMatchObject({ outcome: "completed", exit_status: 2 })
      expect(await run("echo after")).toMatchObject({ output: "after", exit_status: 0 })
    }
  })
})

describe("a start marker that scrolled out of the pane's history before it was read", () => {
  // A pane whose history keeps 50 lines (history-limit applies to panes made after it is set).
  const smallHistoryPane = async () => {
    const { w, layer } = await shellWorld(world())
    w.tmuxOk("set-option", "-g", "history-limit", "50")
    const pane = w.tmuxOk("new-window", "-d", "-P", "-F", "#{pane_id}", BASH).trim()
    await waitFor("the shell's prompt", () => w.tmuxOk("capture-pane", "-p", "-t", pane).trim() !== "")
    const run = async (command: string) =>
      okResult(await runTool(layer, "run_command", { pane_id: pane, command, timeout: 15, max_lines: 1000 }))
    return { w, pane, run }
  }
  // More lines than the history keeps right after the start, then longer than the start verdict waits.
  const flood = "seq 1 300; sleep 4; echo still-running; false"

  it("in scrollback mode (the pane has a pipe of its own), the command is waited for, not called not_started", async () => {
    const { w, pane, run } = await smallHistoryPane()
    w.tmuxOk("pipe-pane", "-t", pane, "cat > /dev/null")
    const result = await run(flood)
    expect(result).toMatchObject({ outcome: "completed", exit_status: 1, started: true, output_source: "scrollback", truncated: true })
    expect(result.output).toContain("still-running")
    expect(result.output).not.toContain("ETM_")
  })

  it("a fake end made with the run id (the pane's options name it) stops neither the wait nor the recorder", async () => {
    const { run } = await smallHistoryPane()
    const fakeEnd =
      "for i in $(tmux show-options -p -v -t $TMUX_PANE @etm-run); do printf 'ETM_E_%s_%s 0 %s\\n' $i 0123456789abcdef0123456789abcdef $i; done"
    const result = await run(`${fakeEnd}; ${flood}`)
    expect(result).toMatchObject({ outcome: "completed", exit_status: 1, started: true, output_source: "pipe", truncated: false })
    expect(result.output).toContain("still-running")
    expect(result.output).toContain("300")
  })
})

describe("two MCP servers, one pane (issue 10 item 4)", () => {
  it("a pane claimed by another server's run_command is refused as run_pending, never typed into", async () => {
    const { w, run, layer } = await shellWorld(world())
    // Another server's claim, as it sets it (its command typed a moment ago).
    w.tmuxOk("set-option", "-p", "-t", "%0", "@etm-run", "00000000000000ff")
    w.tmuxOk("set-buffer", "-b", "etm.run.00000000000000ff", "true")
    const refused = errorMeta(await runTool(layer, "run_command", { pane_id: "%0", command: "echo mine" }))
    expect(refused).toMatchObject({ code: "conflict", retryable: true, effects: "none" })
    expect(refused.text).toContain("another run_command")
    expect(w.tmuxOk("capture-pane", "-p", "-t", "%0")).not.toContain("mine")
    // Once that claim is gone, the pane takes commands again.
    w.tmuxOk("set-option", "-p", "-t", "%0", "-u", "@etm-run")
    w.tmuxOk("delete-buffer", "-b", "etm.run.00000000000000ff")
    expect(await run("echo mine")).toMatchObject({ outcome: "completed", output: "mine" })
  })
})

describe("a claim that outlived its run", () => {
  it("is taken over once its command stopped without its end (C-c from someone else); its handle then ends", async () => {
    const { w, run, layer } = await shellWorld(world())
    const first = await run("sleep 30", { timeout: 0.3 })
    expect(paneValue(w, "%0", "@etm-run")).toBe(idOf(first.handle))
    // A person stops it: bash drops the rest of the framing, so no end marker comes.
    w.tmuxOk("send-keys", "-t", "%0", "C-c")
    await waitFor("the shell", () => paneValue(w, "%0", "pane_current_command") === "bash")
    expect(await run("echo next")).toMatchObject({ outcome: "completed", output: "next", output_source: "pipe" })
    expect(paneValue(w, "%0", "pane_pipe")).toBe("0")
    const rest = okResult(await runTool(layer, "wait_for_command", { handle: first.handle, timeout: 5 }))
    expect(rest).toMatchObject({ outcome: "timed_out", command_stopped: true, handle: null })
  })
})

describe("a run nobody waits for (issue 10 item 5)", () => {
  it("stops recording by itself when its command ends: the pipe closes and later output is not logged", async () => {
    const { w, run } = await shellWorld(world())
    const first = await run("sleep 1; echo done", { timeout: 0.3 })
    expect(first.outcome).toBe("timed_out")
    const id = idOf(first.handle)
    await waitFor("the pipe to close", () => paneValue(w, "%0", "pane_pipe") === "0", 8000)
    const log = join(logDirectoryOf(w), `${id}.log.ended`)
    await waitFor("the log to be marked ended", () => existsSync(log))
    const size = statSync(log).size
    w.tmuxOk("send-keys", "-t", "%0", "-l", "seq 1 20000")
    w.tmuxOk("send-keys", "-t", "%0", "Enter")
    await waitFor("the later output", () => w.tmuxOk("capture-pane", "-p", "-t", "%0").includes("20000"))
    await sleep(300)
    expect(statSync(log).size).toBe(size)
    // The next run records again, with its own pipe.
    expect(await run("echo next")).toMatchObject({ outcome: "completed", output: "next", output_source: "pipe" })
    // The handle still collects the first command's end.
    const rest = okResult(await runTool(w.layer(), "wait_for_command", { handle: first.handle, timeout: 5 }))
    expect(rest).toMatchObject({ outcome: "completed", exit_status: 0, output: "done" })
  })

  it("in scrollback mode, a command that exits the shell is pane_died with its output so far", async () => {
    const { w, run } = await shellWorld(world())
    w.tmuxOk("new-window", "-d", "sleep 60")
    w.tmuxOk("pipe-pane", "-t", "%0", "cat > /dev/null")
    // The pane's history goes with the pane: what was read before it closed is what there is.
    const result = await run("echo bye; sleep 0.5; exit 3")
    expect(result).toMatchObject({ outcome: "pane_died", output_source: "scrollback", exit_status: null })
    expect(result.output).toContain("bye")
  })

  it("a 24 MB flood loses no line", async () => {
    const { run } = await shellWorld(world())
    const result = await run("seq 1 3000000", { timeout: 60, max_lines: 4 })
    expect(result).toMatchObject({ outcome: "completed", exit_status: 0, lines_total: 3000000 })
    expect(result.output.split("\n")).toEqual(["1", "2", "[… 2999996 lines elided …]", "2999999", "3000000"])
  }, 90_000)
})

describe("the tmux server dies during a wait (issue 10 item 6)", () => {
  it("run_command answers pane_died with the output so far", async () => {
    const { w, layer } = await shellWorld(world())
    const call = runTool(layer, "run_command", { pane_id: "%0", command: "echo first words; sleep 30", timeout: 20 })
    // A row of its own: the command shown on its row holds the words too.
    await waitFor("the output", () => w.tmuxOk("capture-pane", "-p", "-t", "%0").split("\n").includes("first words"))
    w.tmux("kill-server")
    const result = okResult(await call)
    expect(result).toMatchObject({ outcome: "pane_died", exit_status: null, handle: null, output: "first words" })
  })

  it("wait_for_command answers pane_died with the output so far", async () => {
    const { w, layer, run } = await shellWorld(world())
    const first = await run("sleep 0.5; echo later words; sleep 30", { timeout: 0.2 })
    const call = runTool(layer, "wait_for_command", { handle: first.handle, timeout: 20 })
    await waitFor("the output", () => w.tmuxOk("capture-pane", "-p", "-t", "%0").split("\n").includes("later words"))
    await sleep(200)
    w.tmux("kill-server")
    const result = okResult(await call)
    expect(result).toMatchObject({ outcome: "pane_died", exit_status: null, handle: null, output: "later words" })
  })
})

describe("handles wait_for_command is given (issue 10 item 3)", () => {
  it("refuses a spent handle (its command ended and was reported)", async () => {
    const { layer, run } = await shellWorld(world())
    const first = await run("sleep 0.5", { timeout: 0.1 })
    expect(okResult(await runTool(layer, "wait_for_command", { handle: first.handle, timeout: 5 }))).toMatchObject({ outcome: "completed" })
    const started = Date.now()
    const again = errorMeta(await runTool(layer, "wait_for_command", { handle: first.handle, timeout: 5 }))
    expect(again.code).toBe("invalid_input")
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it("refuses a tampered handle, naming no field value", async () => {
    const { w, layer, run } = await shellWorld(world())
    w.tmuxOk("split-window", "-d", "-t", "%0", BASH)
    const first = await run("sleep 5", { timeout: 0.1 })
    for (const changes of [{ pane_id: "%1" }, { offset: 0, returned_lines: 0 }, { id: "0123456789abcdef" }]) {
      const refused = errorMeta(
        await runTool(layer, "wait_for_command", { handle: tamperedHandle(first.handle, changes), timeout: 1, interrupt_on_timeout: true })
      )
      expect(refused.code).toBe("invalid_input")
      expect(refused.text).not.toContain("%1")
    }
  })

  it("does not press C-c in the pane this MCP server runs in", async () => {
    const w = world()
    await shellWorld(w)
    const layer = w.layer({ env: callerEnv(w, "%0") })
    const first = okResult(
      await runTool(layer, "run_command", { pane_id: "%0", command: "sleep 3; echo survived", timeout: 0.2, force: true })
    )
    const refused = errorMeta(await runTool(layer, "wait_for_command", { handle: first.handle, timeout: 0.2, interrupt_on_timeout: true }))
    expect(refused.code).toBe("denied")
    const rest = okResult(await runTool(w.layer(), "wait_for_command", { handle: first.handle, timeout: 10 }))
    expect(rest).toMatchObject({ outcome: "completed", exit_status: 0, output: "survived" })
  })
})

describe("refusals about the pane's state are conflicts (issue 10 item 19)", () => {
  it("names the state as a conflict kind with a hint that says the way out", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "busy", "sleep 60")
    w.tmuxOk("set-option", "-g", "remain-on-exit", "on")
    w.tmuxOk("new-session", "-d", "-s", "dead", "-x", "80", "-y", "20", "true")
    w.tmuxOk("new-session", "-d", "-s", "copy", BASH)
    await waitFor("the dead pane", () => w.tmuxOk("display-message", "-p", "-t", "dead", "#{pane_dead}").trim() === "1")
    await waitFor("the busy pane", () => w.tmuxOk("display-message", "-p", "-t", "busy", "#{pane_current_command}").trim() === "sleep")
    await waitFor("the shell", () => w.tmuxOk("display-message", "-p", "-t", "copy", "#{pane_current_command}").trim() === "bash")
    w.tmuxOk("copy-mode", "-t", "copy")
    const pane = (session: string) => w.tmuxOk("display-message", "-p", "-t", session, "#{pane_id}").trim()
    const layer = w.layer()
    const busy = errorMeta(await runTool(layer, "run_command", { pane_id: pane("busy"), command: "true" }))
    expect(busy).toMatchObject({ code: "conflict", retryable: true, effects: "none" })
    expect(busy.hint).toContain("wait_for_command")
    const dead = errorMeta(await runTool(layer, "run_command", { pane_id: pane("dead"), command: "true" }))
    expect(dead).toMatchObject({ code: "conflict", retryable: false })
    expect(dead.hint).toContain("respawn_pane")
    const copy = errorMeta(await runTool(layer, "run_command", { pane_id: pane("copy"), command: "true" }))
    expect(copy.code).toBe("conflict")
    expect(copy.hint).toContain("send_keys with exit_mode: true")
    // The other tools that type refuse a dead pane the same way.
    for (
      const [tool, args] of [
        ["send_keys", { keys: "x" }],
        ["send_keys_batch", { operations: [{ keys: "x" }] }],
        ["paste_text", { text: "x" }]
      ] as const
    ) {
      const refused = errorMeta(await runTool(layer, tool, { pane_id: pane("dead"), ...args }))
      expect(refused.code, tool).toBe("conflict")
    }
    expect(errorMeta(await runTool(layer, "paste_text", { pane_id: pane("copy"), text: "x", enter: true })).code).toBe("conflict")
  })
})

describe("terminal controls in the output (issue 10 item 11, run_command half)", () => {
  it("strips 8-bit C1 controls and strings unless keep_escapes", async () => {
    const { run } = await shellWorld(world())
    // U+009D OSC 52 (a clipboard write) ended by U+009C ST, U+0090 DCS, a lone U+009B CSI and U+0085 NEL.
    const command = "printf 'a\\302\\23552;c;aGk=\\302\\234b\\302\\220dcs\\302\\234c\\302\\2332Jd\\302\\205e\\033]0;t\\302\\234f\\n'"
    const plain = await run(command)
    expect(plain.output).toBe("abcde" + "f")
    expect(/[\u0080-\u009f]/.test(plain.output) || plain.output.includes("\u001b") || plain.output.includes("\u0007")).toBe(false)
    expect((await run(command, { keep_escapes: true })).output).toContain("\u009d52;c;")
  })
})
