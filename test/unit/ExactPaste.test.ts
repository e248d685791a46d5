/**
 * Which paste-buffer flags paste exactly on which tmux: -S from 3.7 (whose paste-buffer escapes
 * control characters without it), none before (where tmux refuses the flag), and a try of -S where
 * the server's version string cannot be placed.
 */
import { describe, expect, it } from "@effect/vitest"
import { Failed, NotFound } from "../../src/domain/Errors.js"
import { isUnescapedRefused, unescapedPaste } from "../../src/operations/input/internal/ExactPaste.js"

describe("unescapedPaste", () => {
  it("sends -S to 3.7 and later, omits it before, and tries it where the version cannot be placed", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["3.3a", "omit"],
      ["3.5a", "omit"],
      ["3.6b", "omit"],
      ["2.9", "omit"],
      ["3.7", "send"],
      ["3.7c", "send"],
      ["3.8", "send"],
      ["3.10", "send"],
      ["4.0", "send"],
      // A build towards X.Y holds the releases before it; towards 3.7 it may or may not have -S yet.
      ["next-3.9", "send"],
      ["next-3.6", "omit"],
      ["next-3.7", "probe"],
      ["master", "probe"],
      ["openbsd-7.6", "probe"],
      ["3.7-rc", "probe"],
      ["", "probe"]
    ]
    expect(cases.map(([version]) => [version, unescapedPaste(version)])).toEqual(cases)
  })

  it("knows tmux's refusal of the flag from other failures", () => {
    const failed = (stderr: string) => new Failed({ command: "paste-buffer", reason: "exit", exitCode: 1, stderr })
    expect(isUnescapedRefused(failed("command paste-buffer: unknown flag -S"))).toBe(true)
    expect(isUnescapedRefused(failed("command paste-buffer: unknown flag -Z"))).toBe(false)
    expect(isUnescapedRefused(failed("no buffer etm.x"))).toBe(false)
    expect(isUnescapedRefused(new NotFound({ kind: "pane", target: "%9", socket: "default" }))).toBe(false)
  })
})
