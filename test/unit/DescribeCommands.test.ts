import { describe, expect, it } from "@effect/vitest"
import { describeCommands, type TmuxCommand } from "../../src/tmux/Tmux.js"

describe("describeCommands", () => {
  it("names a short list command by command, repeats counted, never an argument", () => {
    expect(describeCommands([["display-message", "-p", "secret"], ["list-sessions", "-F", "x"]])).toBe("display-message ; list-sessions")
    expect(describeCommands(Array.from({ length: 800 }, (_, i): TmuxCommand => ["kill-session", "-t", `$${i}`]))).toBe("kill-session ×800")
  })

  it("sums a long mixed list up by name, bounded whatever its length", () => {
    const capture = Array.from({ length: 150 }, (_, i): Array<TmuxCommand> => [
      ["display-message", "-p", "-t", `%${i}`, "x"],
      ["capture-pane", "-p", "-t", `%${i}`]
    ]).flat()
    expect(describeCommands(capture)).toBe("300 commands: display-message ×150, capture-pane ×150")
    const varied = Array.from({ length: 5000 }, (_, i): TmuxCommand => [`command-${i % 400}`])
    expect(describeCommands(varied).length).toBeLessThanOrEqual(201)
  })
})
