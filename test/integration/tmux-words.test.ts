/**
 * Issue 21 items 7 and 10: what a tmux server (or a socket, or a binary) says in an error reaches
 * the client escaped, whichever transport carried it; and tmux's refusal of a client its
 * `server-access` list does not allow ("access not allowed", exit 0 or 1) is `denied`, not a
 * failure to read tmux. And a missing target is named as what the caller named: a pane id is a pane.
 */
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { Message } from "../../src/tmux/internal/ClientProtocol.js"
import { TmuxSocket } from "../../src/tmux/TmuxSocket.js"
import { type FakeConnection, fakeTmuxServer, ints } from "../support/FakeTmuxServer.js"
import { useWorlds } from "../support/liveTmux.js"
import { type PrivateTmux, servicesLayer, testTransport } from "../support/PrivateTmux.js"
import { errorMeta, runTool } from "../support/runTool.js"

const { world, defer } = useWorlds()

// OSC 52 (writes the clipboard), a title set, a clear screen and a C1 CSI.
const HOSTILE = "\x1b]52;c;ZWNobyBwd25lZA==\x07 \x1b]2;owned\x07 \x1b[2J\x1b[H \x1bc \u009b2J"
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/

const exitWith = (code: number, message: string) => (c: FakeConnection) =>
  c.send(Message.EXIT, Buffer.concat([ints(code), Buffer.from(`${message}\0`)]))

const overSocket = async (w: PrivateTmux, name: string, script: (c: FakeConnection) => void | Promise<void>) => {
  const fake = await fakeTmuxServer(join(w.tmpdir, name), script)
  defer(() => void fake.close())
  return servicesLayer({ ...w.config(), socketName: undefined, socketPath: fake.path }, TmuxSocket.layer)
}

/** A "tmux" that prints `stderr` and exits with `code`: what the CLI does for these servers. */
const overExec = (w: PrivateTmux, name: string, stderr: string, code: number) => {
  const bin = join(w.tmpdir, name)
  writeFileSync(bin, `#!/bin/sh\nprintf '%s\\n' '${stderr}' >&2\nexit ${code}\n`)
  chmodSync(bin, 0o755)
  w.tmuxOk("new-session", "-d", "-s", "main")
  return w.layer({ flags: { tmuxBin: bin } })
}

describe.runIf(testTransport === "socket")("over the socket transport", () => {
  it("a server's stderr and its exit message reach the error text escaped", async () => {
    const w = world()
    for (
      const script of [
        async (c: FakeConnection) => {
          await c.print(`boom ${HOSTILE}\n`, 2)
          c.exit(1)
        },
        exitWith(1, `boom ${HOSTILE}`)
      ]
    ) {
      const error = errorMeta(await runTool(await overSocket(w, `hostile-${Math.random()}`, script), "list_sessions"))
      expect(error.code).toBe("failed")
      expect(error.text).toContain("boom \\x1b]52;c;")
      expect(error.text).not.toMatch(RAW_CONTROL)
    }
  })

  it("tmux's access refusal is denied with a hint, whatever exit status it came with", async () => {
    const w = world()
    for (const code of [0, 1]) {
      const error = errorMeta(await runTool(await overSocket(w, `acl-${code}`, exitWith(code, "access not allowed")), "list_sessions"))
      expect({ code, error: error.code, effects: error.effects }).toEqual({ code, error: "denied", effects: "none" })
      expect(error.text).toContain("access not allowed")
      expect(error.hint).toContain("server-access")
    }
  })
})

describe.runIf(testTransport !== "socket")("over the exec transport", () => {
  it("a binary's stderr reaches the error text escaped", async () => {
    const w = world()
    const error = errorMeta(await runTool(overExec(w, "hostile-tmux", `boom ${HOSTILE}`, 1), "list_sessions"))
    expect(error.code).toBe("failed")
    expect(error.text).toContain("boom \\x1b]52;c;")
    expect(error.text).not.toMatch(RAW_CONTROL)
  })

  it("tmux's access refusal is denied with a hint, whatever exit status it came with", async () => {
    for (const code of [0, 1]) {
      const w = world()
      const error = errorMeta(await runTool(overExec(w, `acl-tmux-${code}`, "access not allowed", code), "list_sessions"))
      expect({ code, error: error.code, effects: error.effects }).toEqual({ code, error: "denied", effects: "none" })
      expect(error.text).toContain("access not allowed")
      expect(error.hint).toContain("server-access")
    }
  })
})

describe("a missing target, named as the caller named it", () => {
  it("set_option and show_options on a missing pane or window say pane or window, not session", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "main")
    const layer = w.layer()
    for (
      const [tool, args, named] of [
        ["set_option", { name: "mouse", value: "off", target: "%9999" }, "No pane %9999"],
        ["set_option", { name: "mode-keys", value: "vi", target: "%9999" }, "No pane %9999"],
        ["set_option", { name: "mouse", value: "off", target: "@9999" }, "No window @9999"],
        ["set_option", { name: "mouse", value: "off", target: "$9999" }, "No session $9999"],
        ["show_options", { scope: "session", target: "%9999" }, "No pane %9999"],
        ["show_options", { scope: "window", target: "%9999" }, "No pane %9999"]
      ] as const
    ) {
      const error = errorMeta(await runTool(layer, tool, args))
      expect({ tool, args, code: error.code, text: error.text.split(" exists")[0] }).toEqual({ tool, args, code: "not_found", text: named })
    }
  })
})
