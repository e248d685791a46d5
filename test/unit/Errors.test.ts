import { describe, expect, it } from "@effect/vitest"
import {
  Conflict,
  Denied,
  errorCode,
  Failed,
  FailureReason,
  happenedBeforeTmux,
  hint,
  InvalidInput,
  isRetryable,
  NoServer,
  NotFound,
  type ToolError
} from "../../src/domain/Errors.js"
import { classifyFailure } from "../../src/tmux/Classify.js"

const samples: ReadonlyArray<readonly [ToolError, string]> = [
  [new NoServer({ socket: "work (/tmp/tmux-1/work)" }), "no_server"],
  [new NotFound({ kind: "pane", target: "%9", socket: "s" }), "not_found"],
  [new NotFound({ kind: "object", target: "x", socket: "s" }), "not_found"],
  [new Failed({ command: "list-panes", reason: "exit", exitCode: 1, stderr: "boom" }), "failed"],
  [new Failed({ command: "list-panes", reason: "timeout", exitCode: null, stderr: "no answer within 10s" }), "timeout"],
  [new Failed({ command: "list-panes", reason: "spawn", exitCode: null, stderr: "ENOENT" }), "failed"],
  [new Failed({ command: "format ses", reason: "unparseable", exitCode: null, stderr: "bad" }), "failed"],
  [new Failed({ command: "list-panes", reason: "access", exitCode: 0, stderr: "access not allowed" }), "denied"],
  [new Denied({ kind: "tier", reason: "kill_server is a destructive tool.", requiredTier: "destructive" }), "denied"],
  [new Denied({ kind: "self", reason: "Refusing to kill your own server." }), "denied"],
  [new Denied({ kind: "server_start", reason: "Starting a server is not allowed." }), "denied"],
  [new InvalidInput({ reason: "pane_id: must be a pane id such as %3" }), "invalid_input"]
]

describe("errors", () => {
  it("give every tag a code, a message and a non-trivial hint", () => {
    for (const [error, code] of samples) {
      expect(errorCode(error)).toBe(code)
      expect(error.message.length).toBeGreaterThan(5)
      expect(hint(error).length).toBeGreaterThan(20)
    }
  })

  it("send a missing server to list_servers / start_server, never back to list_panes", () => {
    const error = new NoServer({ socket: "novel (/tmp/tmux-1/novel)" })
    expect(error.message).toBe("No tmux server is running on socket novel (/tmp/tmux-1/novel).")
    expect(hint(error)).toContain("list_servers")
    expect(hint(error)).toContain("start_server")
    expect(hint(error)).not.toMatch(/call list_panes/i)
  })

  it("name the list tool for the kind that was not found", () => {
    expect(hint(new NotFound({ kind: "pane", target: "%9", socket: "s" }))).toContain("list_panes")
    expect(hint(new NotFound({ kind: "window", target: "@9", socket: "s" }))).toContain("list_windows")
    expect(hint(new NotFound({ kind: "session", target: "$9", socket: "s" }))).toContain("list_sessions")
    expect(new NotFound({ kind: "pane", target: "%9", socket: "s" }).message).toContain("%9")
  })

  it("name the tier a denial needs", () => {
    expect(hint(new Denied({ kind: "tier", reason: "no", requiredTier: "destructive" }))).toContain("LIBTMUX_SAFETY=destructive")
    expect(hint(new Denied({ kind: "tier", reason: "no", requiredTier: "mutating" }))).toContain("LIBTMUX_SAFETY=mutating")
  })

  it("say which failures are retryable and which happened before tmux", () => {
    expect(samples.filter(([e]) => isRetryable(e)).map(([, code]) => code)).toEqual(["timeout"])
    expect(happenedBeforeTmux(new InvalidInput({ reason: "x" }))).toBe(true)
    expect(happenedBeforeTmux(new Denied({ kind: "self", reason: "x" }))).toBe(true)
    expect(happenedBeforeTmux(new NoServer({ socket: "s" }))).toBe(true)
    expect(happenedBeforeTmux(new Failed({ command: "c", reason: "spawn", exitCode: null, stderr: "" }))).toBe(true)
    expect(happenedBeforeTmux(new Failed({ command: "c", reason: "exit", exitCode: 1, stderr: "" }))).toBe(false)
    expect(happenedBeforeTmux(new NotFound({ kind: "pane", target: "%1", socket: "s" }))).toBe(false)
  })

  it("word failures by reason, never with the command list they ran (ours, not what the caller asked for: issue 31 item 4)", () => {
    const list = "start-server ; set-option ; display-message"
    expect(new Failed({ command: list, reason: "exit", exitCode: 1, stderr: "boom" }).message).toBe("tmux failed (exit 1): boom")
    for (const reason of FailureReason.literals) {
      const failed = new Failed({ command: list, reason, exitCode: null, stderr: "why" })
      expect(failed.message).not.toContain("set-option")
      // A tool's error names the tool instead.
      expect(failed.messageFor("create_session")).toMatch(/^create_session[: ]/)
      expect(failed.messageFor("create_session")).not.toContain("set-option")
    }
    expect(
      new Failed({ command: list, reason: "spawn", exitCode: null, stderr: "tmux: no such file (ENOENT)" }).messageFor("create_session")
    )
      .toBe("create_session could not run tmux: tmux: no such file (ENOENT)")
    expect(new Failed({ command: "list-panes", reason: "timeout", exitCode: null, stderr: "no answer within 10s" }).message).toContain(
      "did not answer in time"
    )
  })

  it("say what an unreadable answer most likely is: not tmux, or not a tmux server (issue 21 item 10)", () => {
    const unreadable = hint(new Failed({ command: "list-panes", reason: "unparseable", exitCode: null, stderr: "garbage" }))
    expect(unreadable).not.toMatch(/bug/i)
    expect(unreadable).toContain("LIBTMUX_TMUX_BIN")
    expect(unreadable).toContain("not a tmux server")
    expect(unreadable).toContain("effect-tmux-mcp doctor")
  })

  it("tell a target's state (conflict) from bad arguments, with a way out per kind", () => {
    const kinds = ["busy", "run_pending", "copy_mode", "full_screen", "dead", "unsupported_shell"] as const
    for (const kind of kinds) {
      const error = new Conflict({ kind, reason: `pane %1 is ${kind}` })
      expect(errorCode(error)).toBe("conflict")
      expect(hint(error)).not.toMatch(/correct the arguments/i)
      expect(happenedBeforeTmux(error)).toBe(true)
    }
    expect(hint(new Conflict({ kind: "busy", reason: "x" }))).toMatch(/wait_for_command|wait_for_text/)
    expect(hint(new Conflict({ kind: "dead", reason: "x" }))).toContain("respawn_pane")
    expect(kinds.filter((kind) => isRetryable(new Conflict({ kind, reason: "x" })))).toEqual(["busy", "run_pending"])
  })
})

describe("error text from tmux or a socket (issue 21 item 7)", () => {
  // OSC 52 (writes the clipboard), a title set (OSC 0, and screen's ESC k), a clear screen (CSI 2J, RIS), a C1 CSI, BEL, CR.
  const hostile = "\x1b]52;c;ZWNobyBwd25lZA==\x07 \x1b]0;owned\x1b\\ \x1bkowned\x1b\\ \x1b[2J\x1b[H \x1bc \x9b2J \x07 \r"
  // eslint-disable-next-line no-control-regex
  const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/

  it("escape every control character a tmux message holds, keeping the text readable", () => {
    const errors: ReadonlyArray<ToolError> = [
      ...(["exit", "unparseable", "spawn", "timeout"] as const).map((reason) =>
        new Failed({ command: "list-panes", reason, exitCode: reason === "exit" ? 1 : null, stderr: `boom ${hostile}` })
      ),
      classifyFailure({ stderr: `can't find pane: ${hostile}`, exitCode: 1, socketLabel: "s", command: "x" }),
      new NotFound({ kind: "session", target: `x${hostile}`, socket: `s${hostile}` }),
      new NoServer({ socket: `work${hostile}` })
    ]
    for (const error of errors) {
      expect(error.message, error._tag).not.toMatch(RAW_CONTROL)
    }
    expect(errors[0]!.message).toContain("boom \\x1b]52;c;ZWNobyBwd25lZA==\\x07")
    // Lines of a message stay lines.
    expect(new Failed({ command: "x", reason: "exit", exitCode: 1, stderr: "one\ntwo" }).message).toContain("one\ntwo")
  })
})
