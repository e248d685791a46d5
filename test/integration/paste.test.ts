/**
 * paste_text on real tmux. A "recorder" pane copies every byte its program receives into a file (raw
 * mode, optionally with bracketed paste turned on as shells do), so the tests see exactly what arrived.
 * The paste's own buffer must be gone afterwards on every path, and the text must reach tmux only on
 * stdin.
 */
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { callTool } from "../../src/mcp/CallTool.js"
import type { TmuxCommand } from "../../src/tmux/Tmux.js"
import { bufferNames, callerEnv, rawRecorder as recorder, useWorlds, waitFor } from "../support/liveTmux.js"
import { errorMeta, okResult, runTool, toolNamed } from "../support/runTool.js"
import { tappedTmux } from "../support/TappedTmux.js"
import { tmuxAtLeast } from "../support/tmuxVersion.js"

const { world } = useWorlds()

const START = "\x1b[200~"
const END = "\x1b[201~"

const TRICKY = `echo "dq" 'sq' $HOME \`id\` ; rm -rf / \\; x;\nsecond line\ttab ünï 日本 🙂\n-t %9 -- C-c`

describe("paste_text: what reaches the program", () => {
  it("pastes the text exactly (newlines as carriage returns), no Enter by default, and leaves no buffer", async () => {
    const w = world()
    const rec = await recorder(w)
    const pasted = okResult(await runTool(w.layer(), "paste_text", { pane_id: "%0", text: TRICKY }))
    expect(pasted).toEqual({ pane_id: "%0", bytes: Buffer.byteLength(TRICKY), bracketed: true, enter_sent: false, pane_in_mode: false })
    const expected = TRICKY.replace(/\n/g, "\r")
    expect(await rec.received(expected)).toBe(expected)
    expect(bufferNames(w)).toEqual([])
  })

  it("adds paste brackets only when the program asked for them and bracketed is not false; enter presses Enter after", async () => {
    const w = world()
    const rec = await recorder(w, { bracketed: true })
    const layer = w.layer()
    okResult(await runTool(layer, "paste_text", { pane_id: "%0", text: "a\nb" }))
    await rec.received(`${START}a\rb${END}`)
    const entered = okResult(await runTool(layer, "paste_text", { pane_id: "%0", text: "c", enter: true }))
    expect(entered.enter_sent).toBe(true)
    await rec.received(`${START}a\rb${END}${START}c${END}\r`)
    okResult(await runTool(layer, "paste_text", { pane_id: "%0", text: "d", bracketed: false }))
    const all = `${START}a\rb${END}${START}c${END}\rd`
    expect(await rec.received(all)).toBe(all)
    expect(bufferNames(w)).toEqual([])
  })

  it("pastes past copy mode to the program, but refuses enter there (the Enter would go to the mode)", async () => {
    const w = world()
    const rec = await recorder(w)
    w.tmuxOk("copy-mode", "-t", "%0")
    const layer = w.layer()
    const refused = errorMeta(await runTool(layer, "paste_text", { pane_id: "%0", text: "not run", enter: true }))
    expect(refused.code).toBe("conflict")
    expect(refused.text).toContain("copy mode")
    const pasted = okResult(await runTool(layer, "paste_text", { pane_id: "%0", text: "in mode" }))
    expect(pasted.pane_in_mode).toBe(true)
    expect(await rec.received("in mode")).toBe("in mode")
    expect(w.tmuxOk("display-message", "-p", "-t", "%0", "#{pane_in_mode}").trim()).toBe("1")
  })

  it("pastes 300 KB in one call, intact", async () => {
    const w = world()
    const rec = await recorder(w)
    const unit = "0123456789abcdef ünï 日本 🙂 ;\"'$\\\n"
    const text = unit.repeat(Math.ceil(300_000 / Buffer.byteLength(unit)))
    okResult(await runTool(w.layer(), "paste_text", { pane_id: "%0", text }))
    const expected = text.replace(/\n/g, "\r")
    expect(await waitFor("the whole paste", () => rec.read().length >= expected.length && rec.read(), 20_000)).toBe(expected)
  })
})

describe("paste_text in a shell", () => {
  it("a multi-line paste sits in bash's line editor until Enter, then runs", async () => {
    const w = world()
    // No history file: bash would write one into the world's directory as the server kills it.
    w.tmuxOk("new-session", "-d", "-s", "sh", "-x", "100", "-y", "30", "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile")
    await waitFor("the prompt", () => w.tmuxOk("capture-pane", "-p", "-t", "%0").startsWith("$"))
    const layer = w.layer()
    okResult(await runTool(layer, "paste_text", { pane_id: "%0", text: "echo $((6*7))x\necho $((6*8))y" }))
    await waitFor("the pasted text on screen", () => w.tmuxOk("capture-pane", "-p", "-t", "%0").includes("echo $((6*8))y"))
    const screen = () => w.tmuxOk("capture-pane", "-p", "-t", "%0").split("\n").map((line) => line.trimEnd())
    expect(screen().filter((line) => line === "42x" || line === "48y")).toEqual([])
    okResult(await runTool(layer, "send_keys", { pane_id: "%0", keys: "Enter" }))
    await waitFor("both lines to run", () => screen().includes("48y"))
    expect(screen()).toContain("42x")
  })
})

describe("paste_text: the buffer and the payload", () => {
  it("gives the text to tmux on stdin only: no argv carries it", async () => {
    const w = world()
    await recorder(w)
    const seen: Array<{ commands: ReadonlyArray<TmuxCommand>; stdin: string | undefined }> = []
    const layer = w.layer(
      {},
      tappedTmux((run) => {
        seen.push({ commands: run.commands, stdin: run.options.stdin })
        return run.proceed()
      })
    )
    const secret = "s3cret-payload-7f1e"
    okResult(await runTool(layer, "paste_text", { pane_id: "%0", text: secret, enter: true }))
    expect(seen.flatMap((run) => run.commands.flat()).filter((arg) => arg.includes("s3cret"))).toEqual([])
    const paste = seen.find((run) => run.commands.some((command) => command[0] === "load-buffer"))
    expect(paste?.stdin).toBe(secret)
    expect(paste?.commands.map((command) => command[0])).toEqual(["load-buffer", "paste-buffer", "send-keys"])
    const buffer = paste!.commands[0]![2]!
    expect(buffer).toMatch(/^etm\.paste\.[0-9a-f]{16}$/)
    // -S on tmux 3.7 and later, whose paste-buffer escapes control characters without it; older ones refuse the flag.
    const unescaped = tmuxAtLeast("3.7") ? ["-S"] : []
    expect(paste!.commands[1]).toEqual(["paste-buffer", "-d", "-p", ...unescaped, "-b", buffer, "-t", "%0"])
  })

  it("removes its buffer when the paste fails (the pane is killed after the check)", async () => {
    const w = world()
    await recorder(w)
    w.tmuxOk("new-window", "-d", "-t", "rec:", "cat")
    const layer = w.layer(
      {},
      tappedTmux((run) =>
        run.commands[0]?.[0] === "load-buffer"
          ? Effect.sync(() => w.tmuxOk("kill-pane", "-t", "%1")).pipe(Effect.andThen(run.proceed()))
          : run.proceed()
      )
    )
    const failed = errorMeta(await runTool(layer, "paste_text", { pane_id: "%1", text: "never pasted" }))
    expect(failed.code).toBe("not_found")
    expect(bufferNames(w)).toEqual([])
  })

  it("removes its buffer when the call is interrupted after the text was loaded", async () => {
    const w = world()
    await recorder(w)
    let loaded = false
    const layer = w.layer(
      {},
      tappedTmux((run) =>
        run.commands[0]?.[0] === "load-buffer"
          ? run.proceed(run.commands.slice(0, 1)).pipe(
            Effect.tap(() => Effect.sync(() => (loaded = true))),
            Effect.andThen(Effect.never)
          )
          : run.proceed()
      )
    )
    const outcome = await Effect.runPromise(
      callTool(toolNamed("paste_text"), { pane_id: "%0", text: "interrupted" }).pipe(
        Effect.timeout("1500 millis"),
        Effect.result,
        Effect.provide(layer)
      )
    )
    expect(outcome._tag).toBe("Failure")
    expect(loaded).toBe(true)
    expect(bufferNames(w)).toEqual([])
  })
})

describe("paste_text refusals", () => {
  it("refuses the caller's own pane unless force, dead panes, missing panes, empty and oversized text", async () => {
    const w = world()
    const rec = await recorder(w)
    const inside = w.layer({ env: callerEnv(w, "%0") })
    const denied = errorMeta(await runTool(inside, "paste_text", { pane_id: "%0", text: "refused" }))
    expect(denied).toMatchObject({ code: "denied", effects: "none" })
    expect(denied.text).toContain("force: true")
    okResult(await runTool(inside, "paste_text", { pane_id: "%0", text: "forced", force: true }))
    expect(await rec.received("forced")).toBe("forced")

    w.tmuxOk("set-option", "-g", "remain-on-exit", "on")
    w.tmuxOk("new-window", "-d", "-t", "rec:", "true")
    await waitFor("the pane to die", () => w.tmuxOk("display-message", "-p", "-t", "%1", "#{pane_dead}").trim() === "1")
    const layer = w.layer()
    const dead = errorMeta(await runTool(layer, "paste_text", { pane_id: "%1", text: "x" }))
    expect(dead.code).toBe("conflict")
    expect(dead.text).toContain("dead")
    expect(errorMeta(await runTool(layer, "paste_text", { pane_id: "%9", text: "x" })).code).toBe("not_found")
    expect(errorMeta(await runTool(layer, "paste_text", { pane_id: "%0", text: "" })).code).toBe("invalid_input")
    const big = errorMeta(await runTool(layer, "paste_text", { pane_id: "%0", text: "x".repeat(1_048_577) }))
    expect(big.code).toBe("invalid_input")
    expect(big.text).toContain("1048576")
    expect(rec.read()).toBe("forced")
    expect(bufferNames(w)).toEqual([])
  })
})
