/**
 * send_keys on real tmux. A "recorder" pane puts its terminal in raw mode and copies every byte it
 * receives into a file, so the tests see exactly what reached the program: which keys, whether an
 * Enter (\r) followed, and text with quotes, `;`, `$` and unicode intact.
 */
import * as Effect from "effect/Effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { SocketResolver } from "../../src/context/SocketResolver.js"
import { Tmux } from "../../src/tmux/Tmux.js"
import { attachTerminalClient, callerEnv, useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"
import { testHost } from "../support/testHost.js"

const { world, defer } = useWorlds()

/** A session whose pane %0 records its input bytes in a file; resolves once raw mode is on. */
const recorder = async (w: PrivateTmux) => {
  const file = join(w.tmpdir, "received")
  const ready = join(w.tmpdir, "ready")
  w.tmuxOk("new-session", "-d", "-s", "rec", "-x", "200", "-y", "50", `stty raw -echo && touch ${ready} && exec cat > ${file}`)
  await waitFor("the recorder to switch to raw mode", () => existsSync(ready))
  const read = () => (existsSync(file) ? readFileSync(file, "utf8") : "")
  let expected = ""
  const layer = w.layer()
  return {
    layer,
    read,
    /**
     * Sends, then a "|" sentinel (literal, no Enter), waits for the sentinel, and checks the bytes
     * received so far are exactly the expected ones.
     */
    expectBytes: async (args: Record<string, unknown>, bytes: string) => {
      const sent = okResult(await runTool(layer, "send_keys", { pane_id: "%0", ...args }))
      okResult(await runTool(layer, "send_keys", { pane_id: "%0", keys: "|", literal: true, enter: false }))
      expected += `${bytes}|`
      const count = expected.split("|").length - 1
      await waitFor("the sentinel", () => read().split("|").length - 1 >= count)
      expect(read()).toBe(expected)
      return sent
    }
  }
}

describe("send_keys: what reaches the program", () => {
  it("types text and presses Enter by default", async () => {
    const rec = await recorder(world())
    const sent = await rec.expectBytes({ keys: "echo one  two" }, "echo one  two\r")
    expect(sent).toEqual({
      pane_id: "%0",
      literal: false,
      special_key: false,
      key: null,
      enter_sent: true,
      keys_length: 13,
      pane_in_mode: false,
      left_mode: false
    })
  })

  it("sends a lone control or special key without Enter, unless enter is given explicitly", async () => {
    const rec = await recorder(world())
    const cc = await rec.expectBytes({ keys: "C-c" }, "\x03")
    expect(cc).toMatchObject({ special_key: true, enter_sent: false, keys_length: 3 })
    await rec.expectBytes({ keys: "C-d" }, "\x04")
    await rec.expectBytes({ keys: "^z" }, "\x1a")
    await rec.expectBytes({ keys: "M-x" }, "\x1bx")
    await rec.expectBytes({ keys: "Escape" }, "\x1b")
    await rec.expectBytes({ keys: "Tab" }, "\t")
    await rec.expectBytes({ keys: "Enter" }, "\r")
    const up = await rec.expectBytes({ keys: "Up" }, "\x1b[A")
    expect(up.enter_sent).toBe(false)
    await rec.expectBytes({ keys: "C-c", enter: true }, "\x03\r")
    await rec.expectBytes({ keys: "echo x", enter: false }, "echo x")
    // A lone printable character is text: Enter follows (answering a y/N prompt).
    await rec.expectBytes({ keys: "y" }, "y\r")
  })

  it("sends keys in tmux's spelling or a common one as those keys, and says what was sent", async () => {
    const rec = await recorder(world())
    // tmux 3.3a types "S-Tab" as five letters, 3.5a and 3.8 send a plain Tab: BTab is sent instead.
    expect(await rec.expectBytes({ keys: "S-Tab" }, "\x1b[Z")).toMatchObject({ special_key: true, key: "BTab", enter_sent: false })
    expect(await rec.expectBytes({ keys: "Shift+Tab" }, "\x1b[Z")).toMatchObject({ key: "BTab" })
    expect(await rec.expectBytes({ keys: "Ctrl+C" }, "\x03")).toMatchObject({ key: "C-c", enter_sent: false })
    expect(await rec.expectBytes({ keys: "ctrl-d" }, "\x04")).toMatchObject({ key: "C-d" })
    expect(await rec.expectBytes({ keys: "Esc" }, "\x1b")).toMatchObject({ key: "Escape" })
    expect(await rec.expectBytes({ keys: "Return" }, "\r")).toMatchObject({ key: "Enter" })
    expect(await rec.expectBytes({ keys: "Alt+x" }, "\x1bx")).toMatchObject({ key: "M-x" })
    expect(await rec.expectBytes({ keys: "Ctrl+Shift+a" }, "\x01")).toMatchObject({ key: "C-a" })
    await rec.expectBytes({ keys: "Del" }, "\x1b[3~")
    await rec.expectBytes({ keys: "PgUp" }, "\x1b[5~")
    await rec.expectBytes({ keys: "C-S-Up" }, "\x1b[1;6A")
    await rec.expectBytes({ keys: "[ETX]" }, "\x03")
    // Words tmux would read as a name but not send as text stay text: "Any" sends nothing on 3.5a and 3.8 without -l.
    expect(await rec.expectBytes({ keys: "Any", enter: false }, "Any")).toMatchObject({ special_key: false, key: null })
    await rec.expectBytes({ keys: "Enter the code", enter: false }, "Enter the code")
  })

  it("refuses a key-like string tmux would not send as meant, before anything is sent", async () => {
    const rec = await recorder(world())
    for (const keys of ["C-Foo", "Ctrl+Shift+Banana", "Shift+Enter", "C-Tab"]) {
      const refused = errorMeta(await runTool(rec.layer, "send_keys", { pane_id: "%0", keys }))
      expect({ keys, code: refused.code, effects: refused.effects }).toEqual({ keys, code: "invalid_input", effects: "none" })
      expect(refused.text).toContain("literal: true")
    }
    expect(errorMeta(await runTool(rec.layer, "send_keys", { pane_id: "%0", keys: "Shift+Enter" })).text).toContain("send Enter.")
    // Nothing arrived: the next bytes are the first ones.
    await rec.expectBytes({ keys: "C-Foo", literal: true, enter: false }, "C-Foo")
  })

  it("sends a hex code as its character, and refuses one tmux would type as letters (issue 21 item 4)", async () => {
    const rec = await recorder(world())
    expect(await rec.expectBytes({ keys: "0x1b" }, "\x1b")).toMatchObject({ special_key: true, key: "0x1b", enter_sent: false })
    await rec.expectBytes({ keys: "0x20ac" }, "€")
    await rec.expectBytes({ keys: "0xe000" }, "\ue000")
    await rec.expectBytes({ keys: "0x10fffd" }, "\u{10fffd}")
    for (const keys of ["0xd800", "0x110000", "0x10ffff", "0xffff", "0x80", "0X1b"]) {
      const refused = errorMeta(await runTool(rec.layer, "send_keys", { pane_id: "%0", keys }))
      expect({ keys, code: refused.code, effects: refused.effects }).toEqual({ keys, code: "invalid_input", effects: "none" })
    }
    // Nothing arrived: the next bytes are the first ones.
    await rec.expectBytes({ keys: "after", literal: true, enter: false }, "after")
  })

  it("literal types key names, quotes, ;, $ and backslashes exactly, as one piece", async () => {
    const w = world()
    const rec = await recorder(w)
    const literal = await rec.expectBytes({ keys: "C-c", literal: true, enter: false }, "C-c")
    expect(literal).toMatchObject({ literal: true, special_key: false, enter_sent: false })
    await rec.expectBytes({ keys: "end", literal: true }, "end\r")
    const text = `a;b ; "dq" 'sq' $HOME \`id\` \\; x;`
    await rec.expectBytes({ keys: text, literal: true, enter: false }, text)
    await rec.expectBytes({ keys: ";", literal: true, enter: false }, ";")
    await rec.expectBytes({ keys: "ends with \\;", literal: true, enter: false }, "ends with \\;")
    await rec.expectBytes({ keys: "-l -t %9 --", literal: true, enter: false }, "-l -t %9 --")
    await rec.expectBytes({ keys: "ünï 日本 🙂\ttab", literal: true, enter: false }, "ünï 日本 🙂\ttab")
    // Without literal, text that is not a key name is typed the same way, also with a trailing ';' or a leading '-'.
    await rec.expectBytes({ keys: "x;", enter: false }, "x;")
    await rec.expectBytes({ keys: "-h", enter: false }, "-h")
    await rec.expectBytes({ keys: "a\nb", literal: true, enter: false }, "a\nb")
    // What tmux's command parser would read specially, and formats a command could expand, arrive as typed.
    const ran = join(w.tmpdir, "ran")
    const parsed = `~/x ~ "#{pane_id}" #(touch ${ran}) {a} %if 1 \\\\ \\" \\$ $$ \\042 \\n ' ; \\`
    await rec.expectBytes({ keys: parsed, literal: true, enter: false }, parsed)
    await rec.expectBytes({ keys: parsed, enter: false }, parsed)
    expect(existsSync(ran)).toBe(false)
  })

  it("empty keys with enter presses Enter only; nothing at all is refused", async () => {
    const rec = await recorder(world())
    const enter = await rec.expectBytes({ keys: "" }, "\r")
    expect(enter).toMatchObject({ enter_sent: true, keys_length: 0 })
    expect(errorMeta(await runTool(rec.layer, "send_keys", { pane_id: "%0", keys: "", enter: false })).code).toBe("invalid_input")
  })

  it("sends text longer than one tmux command allows in order and intact", async () => {
    const rec = await recorder(world())
    const unit = "0123456789abcdef ünï 日本 🙂 ;\"'$\n"
    const text = unit.repeat(Math.ceil(40_000 / Buffer.byteLength(unit)) + 1)
    expect(Buffer.byteLength(text)).toBeGreaterThan(40_000)
    const sent = await rec.expectBytes({ keys: text, literal: true }, `${text}\r`)
    expect(sent.keys_length).toBe([...text].length)
    // Also without literal: text that long cannot be a key name.
    await rec.expectBytes({ keys: text, enter: false }, text)
    const tooLong = errorMeta(await runTool(rec.layer, "send_keys", { pane_id: "%0", keys: "k".repeat(65_537) }))
    expect(tooLong.code).toBe("invalid_input")
  })
})

describe("send_keys in a shell", () => {
  it("runs a command typed with Enter", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "sh", "-x", "80", "-y", "24", "sh")
    const layer = w.layer()
    okResult(await runTool(layer, "send_keys", { pane_id: "%0", keys: "echo $((6*7))xyz" }))
    // Keys that beat the shell's first prompt are echoed by the terminal before it; the prompt then
    // precedes the output on its line ("$ 42xyz"). Only the shell can have printed the 42.
    const ran = (pane: string) =>
      waitFor("the command's output", () => {
        const text = w.tmuxOk("capture-pane", "-p", "-t", pane)
        return text.split("\n").some((line) => line.trimEnd().endsWith("42xyz")) ? text : undefined
      })
    expect(await ran("%0")).toContain("echo $((6*7))xyz")
    // A shell that starts only after the keys arrived still gets them, Enter included.
    w.tmuxOk("new-session", "-d", "-s", "late", "-x", "80", "-y", "24", "sleep 0.3; exec sh")
    okResult(await runTool(layer, "send_keys", { pane_id: "%1", keys: "echo $((6*7))xyz" }))
    expect(await ran("%1")).toContain("echo $((6*7))xyz")
  })
})

describe("send_keys refusals", () => {
  // The caller is a process of this machine: in remote mode its $TMUX cannot name the host's server.
  it.skipIf(testHost !== undefined)("refuses the caller's own pane unless force is true", async () => {
    const w = world()
    const rec = await recorder(w)
    const inside = w.layer({ env: callerEnv(w, "%0") })
    const denied = errorMeta(await runTool(inside, "send_keys", { pane_id: "%0", keys: "refused", literal: true }))
    expect(denied.code).toBe("denied")
    expect(denied.effects).toBe("none")
    expect(denied.text).toContain("force: true")
    okResult(await runTool(inside, "send_keys", { pane_id: "%0", keys: "forced", literal: true, enter: false, force: true }))
    await waitFor("the forced keys", () => rec.read().includes("forced"))
    expect(rec.read()).toBe("forced")
  })

  it.runIf(testHost !== undefined)(
    "takes no pane of a remote host for the caller's, even where $TMUX names its path and pane (remote mode)",
    async () => {
      const w = world()
      const rec = await recorder(w)
      const inside = w.layer({ env: callerEnv(w, "%0") })
      okResult(await runTool(inside, "send_keys", { pane_id: "%0", keys: "typed", literal: true, enter: false }))
      await waitFor("the keys", () => rec.read().includes("typed"))
      expect(rec.read()).toBe("typed")
    }
  )

  it("refuses a dead pane; a missing pane is not_found and a dead server no_server", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "s", "-x", "80", "-y", "24")
    w.tmuxOk("set-option", "-g", "remain-on-exit", "on")
    w.tmuxOk("new-window", "-t", "s", "true")
    const layer = w.layer()
    await waitFor("the pane to die", () => w.tmuxOk("display-message", "-p", "-t", "%1", "#{pane_dead}").trim() === "1")
    const dead = errorMeta(await runTool(layer, "send_keys", { pane_id: "%1", keys: "x" }))
    expect(dead.code).toBe("conflict")
    expect(dead.text).toContain("dead")
    expect(errorMeta(await runTool(layer, "send_keys", { pane_id: "%9", keys: "x" })).code).toBe("not_found")
    expect(errorMeta(await runTool(world().layer(), "send_keys", { pane_id: "%0", keys: "x" })).code).toBe("no_server")
  })

  it("a dead pane's copy mode gets nothing either: the keys go only to a live pane", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "s", "-x", "80", "-y", "24")
    w.tmuxOk("set-option", "-g", "remain-on-exit", "on")
    w.tmuxOk("new-window", "-t", "s", "printf 'line\\n'; exit 0")
    await waitFor("the pane to die", () => w.tmuxOk("display-message", "-p", "-t", "%1", "#{pane_dead}").trim() === "1")
    w.tmuxOk("copy-mode", "-t", "%1")
    const layer = w.layer()
    // q would end copy mode, were it sent.
    const dead = errorMeta(await runTool(layer, "send_keys", { pane_id: "%1", keys: "q", enter: false }))
    expect(dead.code).toBe("conflict")
    expect(w.tmuxOk("display-message", "-p", "-t", "%1", "#{pane_dead} #{pane_in_mode}").trim()).toBe("1 1")
  })

  it("says when the pane is in copy mode, where the keys go to the mode", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "s", "-x", "80", "-y", "24")
    w.tmuxOk("copy-mode", "-t", "%0")
    const layer = w.layer()
    const sent = okResult(await runTool(layer, "send_keys", { pane_id: "%0", keys: "q", enter: false }))
    expect(sent.pane_in_mode).toBe(true)
    // copy mode read the q and left.
    await waitFor("copy mode to end", () => w.tmuxOk("display-message", "-p", "-t", "%0", "#{pane_in_mode}").trim() === "0")
  })

  it("exit_mode leaves copy mode first, so the keys reach the program; a pane a person watches needs force", async () => {
    const w = world()
    const rec = await recorder(w)
    const inMode = () => w.tmuxOk("display-message", "-p", "-t", "%0", "#{pane_in_mode}").trim() === "1"
    w.tmuxOk("copy-mode", "-t", "%0")
    expect(inMode()).toBe(true)
    const sent = await rec.expectBytes({ keys: "Ctrl+C", exit_mode: true }, "\x03")
    expect(sent).toMatchObject({ key: "C-c", left_mode: true, pane_in_mode: false })
    expect(inMode()).toBe(false)
    // Only leaving: empty keys send nothing, not even an Enter.
    w.tmuxOk("copy-mode", "-t", "%0")
    const left = okResult(await runTool(rec.layer, "send_keys", { pane_id: "%0", keys: "", exit_mode: true }))
    expect(left).toMatchObject({ left_mode: true, enter_sent: false, keys_length: 0 })
    expect(inMode()).toBe(false)
    // Not in a mode: nothing to leave.
    expect(okResult(await runTool(rec.layer, "send_keys", { pane_id: "%0", keys: "", exit_mode: true })).left_mode).toBe(false)

    const client = await attachTerminalClient(w, "rec")
    defer(client.close)
    w.tmuxOk("copy-mode", "-t", "%0")
    const watched = errorMeta(await runTool(rec.layer, "send_keys", { pane_id: "%0", keys: "", exit_mode: true }))
    expect(watched).toMatchObject({ code: "denied", effects: "none" })
    expect(inMode()).toBe(true)
    okResult(await runTool(rec.layer, "send_keys", { pane_id: "%0", keys: "", exit_mode: true, force: true }))
    expect(inMode()).toBe(false)
    // Nothing but the keys ever reached the program.
    await rec.expectBytes({ keys: "z", literal: true, enter: false }, "z")
  })

  it("refuses NUL in keys without echoing them, and a stale generation before sending", async () => {
    const w = world()
    const rec = await recorder(w)
    const nul = errorMeta(await runTool(rec.layer, "send_keys", { pane_id: "%0", keys: "secret-\0-keys" }))
    expect(nul.code).toBe("invalid_input")
    expect(nul.text).not.toContain("secret")
    const stale = errorMeta(await runTool(rec.layer, "send_keys", { pane_id: "%0", keys: "stale", generation: "1.1" }))
    expect(stale.code).toBe("not_found")
    const { generation } = okResult(await runTool(rec.layer, "get_server_info"))
    okResult(await runTool(rec.layer, "send_keys", { pane_id: "%0", keys: "fresh", enter: false, generation }))
    await waitFor("the keys", () => rec.read().includes("fresh"))
    expect(rec.read()).toBe("fresh")
  })
})

/**
 * A wait regex that backtracks catastrophically (issue 30 item 2). What a test line shows is
 * refused before anything is typed; what only the pane's text shows is found after the keys went,
 * and the result says they went: never invalid_input with effects none after typing.
 */
describe("send_keys and paste_text with a runaway wait regex", () => {
  const RUNAWAYS = [
    { patterns: ["^(a+)+$"], regex: true, timeout: 1 },
    { patterns: ["never"], stop_patterns: ["(x+x+)+y"], regex: true, timeout: 1 },
    { settle_ms: 100, ignore_patterns: ["^(\\d|\\d\\d)+$"], regex: true, timeout: 1 }
  ]

  it("refuses one a test line shows before anything is typed, in patterns, stop_patterns and ignore_patterns", async () => {
    const rec = await recorder(world())
    for (const wait of RUNAWAYS) {
      const keys = errorMeta(await runTool(rec.layer, "send_keys", { pane_id: "%0", keys: "typed", wait }))
      expect(keys).toMatchObject({ code: "invalid_input", effects: "none" })
      expect(keys.text).toContain("catastrophic")
      expect(keys.text).toContain("Nothing was sent")
      const pasted = errorMeta(await runTool(rec.layer, "paste_text", { pane_id: "%0", text: "pasted", enter: true, wait }))
      expect(pasted).toMatchObject({ code: "invalid_input", effects: "none" })
    }
    // The pane received nothing before these keys (expectBytes checks every byte it got).
    await rec.expectBytes({ keys: "after", literal: true, enter: false }, "after")
  })

  it("one only the pane's answer shows: the keys were sent, and the result says so (outcome missed, wait_missed, a cursor)", async () => {
    const w = world()
    const ready = join(w.tmpdir, "answerer-ready")
    // Answers each line without echoing it, once its echo is off.
    w.tmuxOk(
      "new-session",
      "-d",
      "-s",
      "ans",
      "-x",
      "120",
      "-y",
      "24",
      `stty -echo; touch ${ready}; while IFS= read -r line; do printf 'ANSWER:%s\\n' "$line"; done`
    )
    await waitFor("the answerer to turn its echo off", () => existsSync(ready))
    const layer = w.layer()
    // A test line of one repeated character does not start with ANSWER: only the answer runs away.
    const wait = { patterns: ["^ANSWER:MARK (a+)+$"], regex: true, timeout: 5 }
    const line = `MARK ${"a".repeat(40)}!`
    for (const [tool, args] of [["send_keys", { keys: line }], ["paste_text", { text: line, enter: true }]] as const) {
      const result = okResult(await runTool(layer, tool, { pane_id: "%0", ...args, wait }))
      expect(result.outcome).toBe("missed")
      expect(result.wait_missed).toContain("catastrophic")
      expect(result.wait_missed).toContain("was sent")
      expect(result.cursor).toEqual(expect.any(String))
      expect(result.matched_lines).toEqual([])
      // Read on from the cursor: what the pane printed since the keys.
      const since = okResult(await runTool(layer, "capture_since", { pane_id: "%0", cursor: result.cursor }))
      expect(since.content).toContain(`ANSWER:${line}`)
    }
    const sent = okResult(await runTool(layer, "send_keys", { pane_id: "%0", keys: "again", wait: { patterns: ["ANSWER:again"] } }))
    expect(sent).toMatchObject({ enter_sent: true, outcome: "matched" })
  })
})

describe("the tmux transport", () => {
  it("refuses a NUL in any argument of any tool without quoting the argument (Node's own error would)", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "s")
    const run = Effect.gen(function*() {
      const socket = yield* (yield* SocketResolver).resolve()
      return yield* (yield* Tmux).run(socket, [["set-environment", "-g", "X", "secret-\0-value"]])
    })
    const error = await Effect.runPromise(Effect.flip(run).pipe(Effect.provide(w.layer())))
    expect(error).toMatchObject({ _tag: "Failed", reason: "spawn" })
    expect(error.message).toContain("NUL")
    expect(error.message).not.toContain("secret")
  })
})
