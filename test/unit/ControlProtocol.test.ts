import { describe, expect, it } from "vitest"
import { commandLine, quoteArgument } from "../../src/tmux/ControlProtocol.js"

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
