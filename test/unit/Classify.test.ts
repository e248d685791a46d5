import { describe, expect, it } from "@effect/vitest"
import { classifyFailure } from "../../src/tmux/Classify.js"

const classify = (stderr: string, exitCode: number | null = 1) =>
  classifyFailure({ stderr, exitCode, socketLabel: "x (/tmp/x)", command: "list-panes" })

describe("classifyFailure", () => {
  it("reads both ways a dead server shows up as NoServer", () => {
    for (
      const stderr of [
        "no server running on /tmp/x\n",
        "error connecting to /tmp/x (No such file or directory)\n",
        "error connecting to /tmp/tmux-1000/default (Connection refused)",
        "server exited unexpectedly"
      ]
    ) {
      const error = classify(stderr)
      expect(error._tag).toBe("NoServer")
      expect(error._tag === "NoServer" && error.socket).toBe("x (/tmp/x)")
    }
  })

  it("reads can't find session|window|pane as NotFound with kind and target", () => {
    expect(classify("can't find pane: %9\n")).toMatchObject({ _tag: "NotFound", kind: "pane", target: "%9", socket: "x (/tmp/x)" })
    expect(classify("can't find session: foo")).toMatchObject({ _tag: "NotFound", kind: "session", target: "foo" })
    expect(classify("can't find window: @3")).toMatchObject({ _tag: "NotFound", kind: "window", target: "@3" })
  })

  it("keeps anything else as Failed in tmux's own words, with the exit code", () => {
    const error = classify("no current target\n", 1)
    expect(error).toMatchObject({ _tag: "Failed", reason: "exit", exitCode: 1, stderr: "no current target", command: "list-panes" })
    expect(classify("unknown command: frobnicate")).toMatchObject({ _tag: "Failed", stderr: "unknown command: frobnicate" })
    expect(classify("", 2)).toMatchObject({ _tag: "Failed", exitCode: 2, stderr: "(tmux printed no message)" })
  })

  it("bounds a long stderr", () => {
    const error = classify("x".repeat(5000))
    expect(error._tag).toBe("Failed")
    if (error._tag === "Failed") {
      expect(error.stderr.length).toBeLessThan(1100)
      expect(error.stderr).toContain("4000 more characters")
    }
  })
})
