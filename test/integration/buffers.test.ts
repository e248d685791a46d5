/**
 * The buffer tools on real tmux: text round-trips exactly (on every transport), show_buffer is
 * bounded, every name lives under `etm.` so other programs' buffers are never listed, read, pasted or
 * deleted, and the text reaches tmux only on stdin.
 */
import { describe, expect, it } from "vitest"
import type { TmuxCommand } from "../../src/tmux/Tmux.js"
import { bufferNames, callerEnv, rawRecorder as recorder, useWorlds, waitFor } from "../support/liveTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"
import { tappedTmux } from "../support/TappedTmux.js"

const { world } = useWorlds()

const TRICKY = "line one\n\ttab \x1b[31mred\x1b[0m \\ back\\slash \"dq\" 'sq' $HOME `id`; x;\nünï 日本 🙂\n%end 1 2 3\n"

describe("load_buffer and show_buffer", () => {
  it("round-trips text exactly, escapes and control characters included; replaced says whether it existed", async () => {
    const w = world()
    await recorder(w)
    const layer = w.layer()
    const loaded = okResult(await runTool(layer, "load_buffer", { name: "notes", text: TRICKY }))
    expect(loaded).toEqual({ name: "notes", tmux_buffer: "etm.notes", bytes: Buffer.byteLength(TRICKY), replaced: false })
    expect(bufferNames(w)).toEqual(["etm.notes"])
    const shown = okResult(await runTool(layer, "show_buffer", { name: "notes" }))
    expect(shown).toEqual({
      name: "notes",
      tmux_buffer: "etm.notes",
      content: TRICKY,
      bytes: Buffer.byteLength(TRICKY),
      returned_bytes: Buffer.byteLength(TRICKY),
      truncated: false
    })
    expect(okResult(await runTool(layer, "load_buffer", { name: "notes", text: "v2" })).replaced).toBe(true)
    expect(okResult(await runTool(layer, "show_buffer", { name: "notes" })).content).toBe("v2")
  })

  it("works on a server without sessions", async () => {
    const w = world()
    w.tmuxOk("start-server", ";", "set-option", "-g", "exit-empty", "off")
    const layer = w.layer()
    okResult(await runTool(layer, "load_buffer", { name: "a", text: "x" }))
    expect(okResult(await runTool(layer, "show_buffer", { name: "a" })).content).toBe("x")
    expect(okResult(await runTool(layer, "list_buffers", {})).total).toBe(1)
  })

  it("show_buffer keeps at most max_bytes, cut at a character boundary, and says so", async () => {
    const w = world()
    await recorder(w)
    const layer = w.layer()
    const text = "é".repeat(100)
    okResult(await runTool(layer, "load_buffer", { name: "wide", text }))
    const shown = okResult(await runTool(layer, "show_buffer", { name: "wide", max_bytes: 5 }))
    expect(shown).toMatchObject({ content: "éé", bytes: 200, returned_bytes: 4, truncated: true })
    const big = "0123456789".repeat(100_000)
    okResult(await runTool(layer, "load_buffer", { name: "big", text: big }))
    const defaulted = okResult(await runTool(layer, "show_buffer", { name: "big" }))
    expect(defaulted).toMatchObject({ bytes: 1_000_000, returned_bytes: 65_536, truncated: true })
    expect(defaulted.content).toBe(big.slice(0, 65_536))
  })

  it("refuses empty and oversized text and bad names; a missing buffer is invalid_input naming load_buffer", async () => {
    const w = world()
    await recorder(w)
    const layer = w.layer()
    expect(errorMeta(await runTool(layer, "load_buffer", { name: "e", text: "" })).code).toBe("invalid_input")
    expect(errorMeta(await runTool(layer, "load_buffer", { name: "e", text: "x".repeat(1_048_577) })).code).toBe("invalid_input")
    for (const name of ["", "a b", "../x", "x;", "#{pid}", "n".repeat(65)]) {
      expect(errorMeta(await runTool(layer, "load_buffer", { name, text: "x" })).code, name).toBe("invalid_input")
    }
    const missing = errorMeta(await runTool(layer, "show_buffer", { name: "nothing" }))
    expect(missing.code).toBe("invalid_input")
    expect(missing.text).toContain("load_buffer")
    expect(bufferNames(w)).toEqual([])
  })

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
    okResult(await runTool(layer, "load_buffer", { name: "secret", text: "s3cret-payload-9c2d" }))
    expect(seen.flatMap((run) => run.commands.flat()).filter((arg) => arg.includes("s3cret"))).toEqual([])
    expect(seen.map((run) => run.stdin)).toEqual(["s3cret-payload-9c2d"])
  })
})

describe("the etm. namespace", () => {
  it("lists, shows, pastes and deletes only this server's buffers, never another program's", async () => {
    const w = world()
    const rec = await recorder(w)
    w.tmuxOk("set-buffer", "-b", "other", "a person's copy")
    w.tmuxOk("set-buffer", "-b", "etmx", "not ours either")
    const layer = w.layer()
    okResult(await runTool(layer, "load_buffer", { name: "mine", text: "ours" }))
    okResult(await runTool(layer, "load_buffer", { name: "second.one", text: "ours too" }))
    const listed = okResult(await runTool(layer, "list_buffers", {}))
    expect(listed).toMatchObject({ total: 2, truncated: false })
    expect(listed.items.map((item: { name: string }) => item.name).sort()).toEqual(["mine", "second.one"])
    expect(listed.items.find((item: { name: string }) => item.name === "mine")).toMatchObject({ tmux_buffer: "etm.mine", bytes: 4 })
    expect(errorMeta(await runTool(layer, "show_buffer", { name: "other" })).code).toBe("invalid_input")
    expect(errorMeta(await runTool(layer, "paste_buffer", { name: "other", pane_id: "%0" })).code).toBe("invalid_input")
    expect(okResult(await runTool(layer, "delete_buffer", { name: "other" }))).toEqual({ name: "other", deleted: false })
    expect(bufferNames(w)).toEqual(["etm.mine", "etm.second.one", "etmx", "other"])
    expect(rec.read()).toBe("")
  })
})

describe("paste_buffer and delete_buffer", () => {
  it("pastes exactly, keeps the buffer unless delete_after; delete_buffer is idempotent", async () => {
    const w = world()
    const rec = await recorder(w)
    const layer = w.layer()
    okResult(await runTool(layer, "load_buffer", { name: "p", text: "a;b\nc" }))
    const pasted = okResult(await runTool(layer, "paste_buffer", { name: "p", pane_id: "%0" }))
    expect(pasted).toEqual({ name: "p", pane_id: "%0", bracketed: true, deleted: false, pane_in_mode: false })
    await rec.received("a;b\rc")
    expect(bufferNames(w)).toEqual(["etm.p"])
    okResult(await runTool(layer, "paste_buffer", { name: "p", pane_id: "%0", delete_after: true }))
    expect(await rec.received("a;b\rca;b\rc")).toBe("a;b\rca;b\rc")
    expect(bufferNames(w)).toEqual([])
    okResult(await runTool(layer, "load_buffer", { name: "d", text: "x" }))
    expect(okResult(await runTool(layer, "delete_buffer", { name: "d" }))).toEqual({ name: "d", deleted: true })
    expect(okResult(await runTool(layer, "delete_buffer", { name: "d" }))).toEqual({ name: "d", deleted: false })
    expect(bufferNames(w)).toEqual([])
  })

  it("pastes control characters exactly without brackets too (paste-buffer -S on tmux 3.7 and later)", async () => {
    const w = world()
    const rec = await recorder(w)
    const layer = w.layer()
    const text = "a\x1b[31mb\x07c\x7fd"
    okResult(await runTool(layer, "load_buffer", { name: "ctl", text }))
    okResult(await runTool(layer, "paste_buffer", { name: "ctl", pane_id: "%0", bracketed: false }))
    expect(await rec.received(text)).toBe(text)
  })

  it("refuses the caller's own pane unless force, dead and missing panes", async () => {
    const w = world()
    const rec = await recorder(w)
    okResult(await runTool(w.layer(), "load_buffer", { name: "p", text: "x" }))
    const inside = w.layer({ env: callerEnv(w, "%0") })
    const denied = errorMeta(await runTool(inside, "paste_buffer", { name: "p", pane_id: "%0" }))
    expect(denied).toMatchObject({ code: "denied", effects: "none" })
    expect(denied.text).toContain("force: true")
    okResult(await runTool(inside, "paste_buffer", { name: "p", pane_id: "%0", force: true }))
    expect(await rec.received("x")).toBe("x")

    w.tmuxOk("set-option", "-g", "remain-on-exit", "on")
    w.tmuxOk("new-window", "-d", "-t", "rec:", "true")
    await waitFor("the pane to die", () => w.tmuxOk("display-message", "-p", "-t", "%1", "#{pane_dead}").trim() === "1")
    const dead = errorMeta(await runTool(w.layer(), "paste_buffer", { name: "p", pane_id: "%1" }))
    expect(dead.code).toBe("conflict")
    expect(dead.text).toContain("dead")
    expect(errorMeta(await runTool(w.layer(), "paste_buffer", { name: "p", pane_id: "%9" })).code).toBe("not_found")
    expect(errorMeta(await runTool(world().layer(), "load_buffer", { name: "p", text: "x" })).code).toBe("no_server")
    expect(rec.read()).toBe("x")
  })
})
