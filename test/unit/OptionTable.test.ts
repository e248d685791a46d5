/**
 * set_option's allowlist: what it refuses and why, and how values are checked against each
 * option's type (flag, number with bounds, choice).
 */
import { describe, expect, it } from "vitest"
import { ALLOWED_OPTIONS, normalizeValue, refusalOf } from "../../src/operations/environment/OptionTable.js"

/** The options the task names as the minimum of the allowlist. */
const REQUIRED = [
  "remain-on-exit",
  "history-limit",
  "synchronize-panes",
  "allow-rename",
  "automatic-rename",
  "monitor-activity",
  "monitor-silence",
  "pane-border-status",
  "window-size",
  "mouse",
  "mode-keys",
  "status-keys",
  "aggressive-resize",
  "base-index",
  "pane-base-index",
  "renumber-windows",
  "escape-time",
  "display-time",
  "alternate-screen",
  "wrap-search"
]

describe("set_option's allowlist", () => {
  it("holds the options that cannot run anything, and nothing else", () => {
    expect(Object.keys(ALLOWED_OPTIONS).sort()).toEqual([...REQUIRED].sort())
    for (const name of REQUIRED) expect({ name, refusal: refusalOf(name) }).toEqual({ name, refusal: undefined })
  })

  it("names why it refuses: commands, shells and formats; hooks; user options; anything else", () => {
    for (
      const name of [
        "default-command",
        "default-shell",
        "status-left",
        "status-right",
        "pane-border-format",
        "window-status-format",
        "set-titles-string",
        "status-format[0]",
        "command-alias",
        "lock-command",
        "status"
      ]
    ) {
      expect({ name, refusal: refusalOf(name) }).toEqual({ name, refusal: expect.stringContaining("command, shell or format") })
    }
    for (
      const name of [
        "after-new-window",
        "after-new-window[0]",
        "pane-died",
        "pane-exited",
        "client-attached",
        "session-created",
        "window-renamed",
        "alert-bell",
        "command-error"
      ]
    ) {
      expect({ name, refusal: refusalOf(name) }).toEqual({ name, refusal: expect.stringContaining("hooks") })
    }
    for (const name of ["@x", "@status", "@a#(touch /tmp/x)"]) {
      expect({ name, refusal: refusalOf(name) }).toEqual({ name, refusal: expect.stringContaining("#{E:@name}") })
    }
    for (
      const name of [
        "status-style",
        "pane-active-border-style",
        "terminal-overrides",
        "",
        "constructor",
        "__proto__",
        "mouse;kill-server",
        "mouse\n"
      ]
    ) {
      expect({ name, refusal: refusalOf(name) }).toEqual({ name, refusal: expect.stringContaining("allowlist") })
    }
  })

  it("takes flags as on/off or true/false, and nothing else", () => {
    const mouse = ALLOWED_OPTIONS["mouse"]!
    expect([true, false, "on", "off", "true", "false"].map((value) => normalizeValue(mouse, value))).toEqual([
      "on",
      "off",
      "on",
      "off",
      "on",
      "off"
    ])
    for (const value of ["yes", "1", 1, "", "on;", "On"]) expect(typeof normalizeValue(mouse, value)).toBe("object")
  })

  it("takes numbers as integers within the option's bounds", () => {
    const history = ALLOWED_OPTIONS["history-limit"]!
    expect(normalizeValue(history, 5000)).toBe("5000")
    expect(normalizeValue(history, "0")).toBe("0")
    expect(normalizeValue(history, "1000000")).toBe("1000000")
    for (const value of [-1, 1_000_001, 1.5, "1e3", "0x10", " 5", "5 ", "", true, "5;kill-server"]) {
      expect({ value, result: normalizeValue(history, value) }).toEqual({
        value,
        result: { invalid: expect.stringContaining("integer from 0 to 1000000") }
      })
    }
  })

  it("takes choices from tmux's own list, exactly", () => {
    const remain = ALLOWED_OPTIONS["remain-on-exit"]!
    expect(["off", "on", "failed"].map((value) => normalizeValue(remain, value))).toEqual(["off", "on", "failed"])
    for (const value of ["Failed", "key", true, "on\n", "#(touch /tmp/x)"]) expect(typeof normalizeValue(remain, value)).toBe("object")
  })

  it("never echoes the value in its reasons", () => {
    for (const option of Object.values(ALLOWED_OPTIONS)) {
      const result = normalizeValue(option, "#(secret-marker)")
      expect(typeof result === "object" ? result.invalid : "").not.toContain("secret-marker")
    }
  })
})
