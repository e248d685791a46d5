/**
 * ShellInput's reading of its probe: what the kernel says a terminal's foreground process sleeps
 * in (Linux's wchan, the BSDs' wait channel) decides whether a typed line was read, and anything
 * unclear is "unknown", never "reading" (a line judged read is withdrawn). The probe itself runs
 * against real shells in the integration suite (command.test.ts, a shell that is still starting).
 */
import { describe, expect, it } from "vitest"
import { judgeShellInput, shellInputCommands } from "../../src/operations/commands/internal/ShellInput.js"

describe("judgeShellInput", () => {
  it.each([
    // bash in readline, dash reading a line, bash's `read`, at an unfinished quote's prompt.
    ["S poll_schedule_timeout.constprop.0", "reading"],
    ["S wait_woken", "reading"],
    ["S+ n_tty_read", "reading"],
    ["Ss+ ttyin", "reading"],
    // An rc file's command runs, or the shell itself does: the line is still in the terminal.
    ["S do_wait", "busy"],
    ["Ss wait", "busy"],
    ["R 0", "busy"],
    ["R+ -", "busy"],
    // Nothing to go by.
    ["S 0", "unknown"],
    ["S", "unknown"],
    ["T do_signal_stop", "unknown"],
    ["Z 0", "unknown"],
    ["S futex_wait_queue", "unknown"]
  ])("%s is %s", (answer, verdict) => {
    expect(judgeShellInput(`etm-shell-input ${answer}\n`)).toBe(verdict)
  })

  it("is unknown without the probe's line (a failed probe, a forged answer)", () => {
    expect(judgeShellInput("")).toBe("unknown")
    expect(judgeShellInput("S wait_woken\n")).toBe("unknown")
    expect(judgeShellInput("xetm-shell-input S wait_woken\n")).toBe("unknown")
  })
})

describe("shellInputCommands", () => {
  it("passes the pid, program, socket and buffer as quoted words, and doubles # for run-shell's formats", () => {
    const [run, show, remove] = shellInputCommands({ panePid: 42, tmuxProgram: "/opt/t#x/tmux", socketPath: "/tmp/a b/s'1" }, "etm.probe.1")
    expect(run![0]).toBe("run-shell")
    expect(run![1]).toContain(`sh '42' '/opt/t##x/tmux' '/tmp/a b/s'\\''1' 'etm.probe.1'`)
    expect(run![1]).not.toContain("\n")
    expect(show).toEqual(["show-buffer", "-b", "etm.probe.1"])
    expect(remove).toEqual(["delete-buffer", "-b", "etm.probe.1"])
  })
})
