import { describe, expect, it } from "@effect/vitest"
import type { ResolvedSocket } from "../../src/context/SocketResolver.js"
import { invocationArgv } from "../../src/tmux/TmuxExec.js"

const socket: ResolvedSocket = { name: "x", path: "/tmp/tmux-1/x", rule: "LIBTMUX_SOCKET", flags: ["-L", "x"], label: "x" }

describe("invocationArgv", () => {
  it("passes -N unless the call may start a server", () => {
    expect(invocationArgv({ tmuxConfigFile: undefined }, socket, [["list-sessions"]], false)).toEqual([
      "-u",
      "-N",
      "-L",
      "x",
      "list-sessions"
    ])
    expect(invocationArgv({ tmuxConfigFile: undefined }, socket, [["start-server"]], true)).toEqual(["-u", "-L", "x", "start-server"])
  })

  it("joins commands with ';' arguments and escapes an argument that ends in ';'", () => {
    const argv = invocationArgv(
      { tmuxConfigFile: "/dev/null" },
      { ...socket, flags: ["-S", "/s p/a,b"] },
      [
        ["display-message", "-p", "x"],
        ["send-keys", "-t", "%1", "-l", "echo hi;"],
        ["list-panes", "-a"]
      ],
      false
    )
    expect(argv).toEqual([
      "-u",
      "-N",
      "-f",
      "/dev/null",
      "-S",
      "/s p/a,b",
      "display-message",
      "-p",
      "x",
      ";",
      "send-keys",
      "-t",
      "%1",
      "-l",
      "echo hi\\;",
      ";",
      "list-panes",
      "-a"
    ])
  })
})
