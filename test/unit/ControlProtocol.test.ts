import { describe, expect, it } from "vitest"
import { type Block, blockOutput, BlockReader, commandLine, quoteArgument } from "../../src/tmux/ControlProtocol.js"

const readAll = (lines: ReadonlyArray<string>) => {
  const reader = new BlockReader()
  return lines.map((line) => reader.read(line))
}

const blocks = (lines: ReadonlyArray<string>): Array<Block> =>
  readAll(lines).flatMap((parsed) => (parsed._tag === "Block" ? [parsed.block] : []))

describe("quoteArgument", () => {
  it("double-quotes and escapes what tmux's parser would expand or end a line on", () => {
    expect(quoteArgument("plain")).toBe("\"plain\"")
    expect(quoteArgument("")).toBe("\"\"")
    expect(quoteArgument("say \"hi\" \\ $HOME ~user")).toBe("\"say \\\"hi\\\" \\\\ \\$HOME \\~user\"")
    expect(quoteArgument("a\nb\tc\r\u001b\u007f")).toBe("\"a\\012b\\011c\\015\\033\\177\"")
    // Separators and tmux syntax are inert inside quotes.
    expect(quoteArgument("a; b } { #{pane_id} %if 'x'")).toBe(`"a; b } { #{pane_id} %if 'x'"`)
    expect(quoteArgument("ünï 🙂")).toBe("\"ünï 🙂\"")
  })

  it("joins a command list into one line with unquoted separators", () => {
    expect(commandLine([["list-panes", "-a"], ["display-message", "-p", "x;"]])).toBe(
      "\"list-panes\" \"-a\" ; \"display-message\" \"-p\" \"x;\""
    )
    expect(commandLine([["send-keys", "-l", "line1\nline2"]])).not.toContain("\n")
  })
})

describe("BlockReader", () => {
  it("collects a block's lines between matching guards and tells ours from hooks'", () => {
    const read = blocks([
      "%begin 1 10 0",
      "%end 1 10 0",
      "%session-changed $0 main",
      "%begin 2 11 1",
      "a",
      "",
      "b",
      "%end 2 11 1",
      "%begin 2 12 0",
      "hooked",
      "%end 2 12 0",
      "%begin 2 13 1",
      "can't find pane: %9",
      "%error 2 13 1"
    ])
    expect(read).toEqual([
      { ok: true, fromInput: false, lines: [] },
      { ok: true, fromInput: true, lines: ["a", "", "b"] },
      { ok: true, fromInput: false, lines: ["hooked"] },
      { ok: false, fromInput: true, lines: ["can't find pane: %9"] }
    ])
    expect(blockOutput(read.slice(1, 2))).toBe("a\n\nb\n")
  })

  it("keeps content that looks like a guard unless time, number and flags all match", () => {
    const read = blocks(["%begin 5 20 1", "%end 5 21 1", "%error 4 20 1", "%begin 5 20 1", "%end 5 20 0", "%end 5 20 1"])
    expect(read).toEqual([{ ok: true, fromInput: true, lines: ["%end 5 21 1", "%error 4 20 1", "%begin 5 20 1", "%end 5 20 0"] }])
  })

  it("reports a forged matching guard as a protocol error, never as a short answer", () => {
    // Pane content printed "%end 5 20 1" (guessing right): the real guard that follows is an orphan.
    const parsed = readAll(["%begin 5 20 1", "first", "%end 5 20 1", "rest of the content", "%end 5 20 1"])
    expect(parsed.map((p) => p._tag)).toEqual(["Pending", "Pending", "Block", "ProtocolError", "ProtocolError"])
  })

  it("reads notifications and %exit between blocks", () => {
    expect(readAll(["%window-add @3", "%exit", "%exit server exited"]).map((p) => p._tag)).toEqual([
      "Notification",
      "Exit",
      "Exit"
    ])
  })
})
