/**
 * Issue 10 item 9: a bracketed paste must never carry the paste-end sequence (ESC [ 2 0 1 ~). In a
 * paste it ends bash's paste mode early, and what follows a newline after it runs at once, although
 * the caller asked for the text not to be run (`enter: false`). Real tmux, real bash.
 */
import { randomBytes } from "node:crypto"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { bufferNames, rawRecorder as recorder, useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"

const { world } = useWorlds()

const START = "\x1b[200~"
const END = "\x1b[201~"

/** A bash at its prompt in session "sh" (bash turns bracketed paste on for its line editor). */
const bash = async (w: PrivateTmux): Promise<string> => {
  w.tmuxOk("new-session", "-d", "-s", "sh", "-x", "100", "-y", "30", "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile")
  await waitFor("the prompt", () => w.tmuxOk("capture-pane", "-p", "-t", "sh").startsWith("$"))
  return w.tmuxOk("display-message", "-p", "-t", "sh", "#{pane_id}").trim()
}

/** Text that leaves paste mode and then asks bash to create `marker`. */
const breakout = (marker: string) => `echo a${END}\ntouch ${marker}\n`

/** Gives bash time to run what a breakout would have let through, then says whether it did. */
const ran = async (marker: string): Promise<boolean> => {
  await new Promise((resolve) => setTimeout(resolve, 700))
  return existsSync(marker)
}

describe("bracketed paste cannot be ended by the text", () => {
  it("paste_text refuses text holding the paste-end sequence, names it, and pastes nothing", async () => {
    const w = world()
    const pane = await bash(w)
    const marker = join(w.tmpdir, `pwned-${randomBytes(4).toString("hex")}`)
    const refused = errorMeta(await runTool(w.layer(), "paste_text", { pane_id: pane, text: breakout(marker), enter: false }))
    expect(refused).toMatchObject({ code: "invalid_input", effects: "none" })
    expect(refused.text).toContain("ESC [ 2 0 1 ~")
    expect(refused.text).not.toContain(marker)
    expect(await ran(marker)).toBe(false)
    expect(w.tmuxOk("capture-pane", "-p", "-t", pane)).not.toContain("touch")
    expect(bufferNames(w)).toEqual([])
  })

  it("paste_buffer refuses a buffer holding it, loaded by load_buffer or by a script, and pastes nothing", async () => {
    const w = world()
    const pane = await bash(w)
    const marker = join(w.tmpdir, `pwned-${randomBytes(4).toString("hex")}`)
    const layer = w.layer()
    okResult(await runTool(layer, "load_buffer", { name: "evil", text: breakout(marker) }))
    const refused = errorMeta(await runTool(layer, "paste_buffer", { name: "evil", pane_id: pane, delete_after: true }))
    expect(refused).toMatchObject({ code: "invalid_input" })
    expect(refused.text).toContain("ESC [ 2 0 1 ~")
    // A script in a pane can fill our namespace too: the check reads what tmux holds.
    w.tmuxOk("set-buffer", "-b", "etm.script", `echo b${END}\rtouch ${marker}\r`)
    expect(errorMeta(await runTool(layer, "paste_buffer", { name: "script", pane_id: pane })).code).toBe("invalid_input")
    expect(await ran(marker)).toBe(false)
    // Refused means untouched: the buffers are still there (delete_after did not run), and no copy is left.
    expect(bufferNames(w)).toEqual(["etm.evil", "etm.script"])
  })

  // On tmux 3.7 and later too, where the paste goes with -S (else ESC would arrive as "^[").
  it("the 8-bit form (C1 CSI, U+009B) is refused too; without bracketed the text is typed as given", async () => {
    const w = world()
    const rec = await recorder(w, { bracketed: true })
    const layer = w.layer()
    const c1 = errorMeta(await runTool(layer, "paste_text", { pane_id: "%0", text: "a\u009b201~b" }))
    expect(c1.code).toBe("invalid_input")
    // bracketed: false adds no brackets, so there is no paste to end: the caller types what it gives.
    okResult(await runTool(layer, "paste_text", { pane_id: "%0", text: `x${END}y`, bracketed: false }))
    expect(await rec.received(`x${END}y`)).toBe(`x${END}y`)
  })

  it("paste_buffer refuses a bracketed paste of bytes it cannot check exactly (not UTF-8); bracketed: false pastes them", async () => {
    const w = world()
    const rec = await recorder(w, { bracketed: true })
    const file = join(w.tmpdir, "binary")
    // A lone 0x9b is C1 CSI to a program reading 8-bit controls; as UTF-8 it is no character at all.
    const bytes = Buffer.from([0x61, 0x9b, 0x32, 0x30, 0x31, 0x7e, 0x62])
    writeFileSync(file, bytes)
    w.tmuxOk("load-buffer", "-b", "etm.bin", file)
    const layer = w.layer()
    const refused = errorMeta(await runTool(layer, "paste_buffer", { name: "bin", pane_id: "%0" }))
    expect(refused.code).toBe("invalid_input")
    expect(refused.text).toContain("not UTF-8")
    expect(rec.read()).toBe("")
    okResult(await runTool(layer, "paste_buffer", { name: "bin", pane_id: "%0", bracketed: false }))
    await waitFor("the raw bytes", () => rec.read().length > 0)
    // Byte for byte, on tmux 3.7 and later too (where paste-buffer -S keeps vis(3) from escaping 0x9b).
    expect(readFileSync(join(w.tmpdir, "received"))).toEqual(bytes)
    expect(bufferNames(w)).toEqual(["etm.bin"])
  })

  it("a clean buffer is still pasted exactly, bracketed, and delete_after removes it; no private copy is left", async () => {
    const w = world()
    const rec = await recorder(w, { bracketed: true })
    const layer = w.layer()
    const text = `a;b\nc ${START}nested start is harmless\x1b[31m`
    okResult(await runTool(layer, "load_buffer", { name: "p", text }))
    const pasted = okResult(await runTool(layer, "paste_buffer", { name: "p", pane_id: "%0" }))
    expect(pasted).toEqual({ name: "p", pane_id: "%0", bracketed: true, deleted: false, pane_in_mode: false })
    const once = `${START}${text.replace(/\n/g, "\r")}${END}`
    expect(await rec.received(once)).toBe(once)
    expect(bufferNames(w)).toEqual(["etm.p"])
    okResult(await runTool(layer, "paste_buffer", { name: "p", pane_id: "%0", delete_after: true }))
    expect(await rec.received(once + once)).toBe(once + once)
    expect(bufferNames(w)).toEqual([])
    expect(errorMeta(await runTool(layer, "paste_buffer", { name: "p", pane_id: "%0" })).code).toBe("invalid_input")
  })
})
