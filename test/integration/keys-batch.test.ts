/**
 * send_keys_batch on real tmux: a recorder pane (raw mode, every byte copied into a file) shows that
 * the operations arrive in order with send_keys' own rules, in one round trip when there is no delay,
 * that one bad operation sends nothing, and that a failure mid-batch is reported per operation.
 */
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { callerEnv, rawRecorder as recorder, useWorlds, waitFor } from "../support/liveTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"
import { tappedTmux } from "../support/TappedTmux.js"

const { world } = useWorlds()

describe("send_keys_batch", () => {
  it("sends every operation in order with send_keys' rules, in one invocation", async () => {
    const w = world()
    const rec = await recorder(w)
    const sent = okResult(
      await runTool(w.layer(), "send_keys_batch", {
        pane_id: "%0",
        operations: [
          { keys: "echo one" },
          { keys: "C-c" },
          { keys: "end", literal: true, enter: false },
          { keys: "Up" },
          { keys: "C-c", enter: true },
          { keys: `a;b "q" $X ;`, literal: true, enter: false },
          { keys: "" }
        ]
      })
    )
    const expected = `echo one\r\x03end\x1b[A\x03\ra;b "q" $X ;\r`
    expect(await rec.received(expected)).toBe(expected)
    expect(sent).toMatchObject({
      pane_id: "%0",
      pane_in_mode: false,
      operations_total: 7,
      operations_sent: 7,
      operations_failed: 0,
      operations_skipped: 0,
      invocations: 1
    })
    expect(sent.results.map((r: any) => [r.index, r.status, r.ok, r.special_key, r.enter_sent, r.keys_length, r.error])).toEqual([
      [0, "sent", true, false, true, 8, null],
      [1, "sent", true, true, false, 3, null],
      [2, "sent", true, false, false, 3, null],
      [3, "sent", true, true, false, 2, null],
      [4, "sent", true, true, true, 3, null],
      [5, "sent", true, false, false, 12, null],
      [6, "sent", true, false, true, 0, null]
    ])
  })

  it("sends long text in pieces, in order and intact, between short operations", async () => {
    const w = world()
    const rec = await recorder(w)
    const long = "0123456789abcdef ünï 日本 🙂 ;\"'$\n".repeat(800)
    const sent = okResult(
      await runTool(w.layer(), "send_keys_batch", {
        pane_id: "%0",
        operations: [{ keys: "<", enter: false }, { keys: long, literal: true, enter: false }, { keys: ">", enter: false }]
      })
    )
    const expected = `<${long}>`
    expect(await waitFor("all bytes", () => rec.read().length >= expected.length && rec.read(), 10_000)).toBe(expected)
    expect(sent.operations_sent).toBe(3)
    expect(sent.invocations).toBeGreaterThan(2)
  })

  it("one bad operation sends nothing", async () => {
    const w = world()
    const rec = await recorder(w)
    const layer = w.layer()
    const bad = errorMeta(
      await runTool(layer, "send_keys_batch", { pane_id: "%0", operations: [{ keys: "first" }, { keys: "", enter: false }] })
    )
    expect(bad).toMatchObject({ code: "invalid_input", effects: "none" })
    expect(bad.text).toContain("operations[1]")
    okResult(await runTool(layer, "send_keys", { pane_id: "%0", keys: "|", literal: true, enter: false }))
    expect(await rec.received("|")).toBe("|")
  })

  it("reads each operation's keys as send_keys does: common spellings sent as keys, a key-like string tmux would not take refused", async () => {
    const w = world()
    const rec = await recorder(w)
    const layer = w.layer()
    const refused = errorMeta(
      await runTool(layer, "send_keys_batch", { pane_id: "%0", operations: [{ keys: "Shift+Tab" }, { keys: "C-Foo" }] })
    )
    expect(refused).toMatchObject({ code: "invalid_input", effects: "none" })
    expect(refused.text).toContain("operations[1]")
    const sent = okResult(
      await runTool(layer, "send_keys_batch", { pane_id: "%0", operations: [{ keys: "Shift+Tab" }, { keys: "Ctrl+C" }, { keys: "Esc" }] })
    )
    expect(sent.results.map((r: any) => r.key)).toEqual(["BTab", "C-c", "Escape"])
    expect(await rec.received("\x1b[Z\x03\x1b")).toBe("\x1b[Z\x03\x1b")
  })

  it("reports a failure per operation: the rest skipped with stop_on_error, attempted without it", async () => {
    for (const stopOnError of [true, false]) {
      const w = world()
      const rec = await recorder(w)
      w.tmuxOk("new-window", "-d", "-t", "rec:", "cat")
      const layer = w.layer()
      const batch = runTool(layer, "send_keys_batch", {
        pane_id: "%1",
        operations: [{ keys: "one" }, { keys: "two" }, { keys: "three" }],
        delay_ms: 1500,
        stop_on_error: stopOnError
      })
      await waitFor("the first operation", () => w.tmuxOk("capture-pane", "-p", "-t", "%1").includes("one"))
      w.tmuxOk("kill-pane", "-t", "%1")
      const sent = okResult(await batch)
      expect(sent.results.map((r: any) => [r.status, r.error?.code ?? null])).toEqual([
        ["sent", null],
        ["failed", "not_found"],
        stopOnError ? ["skipped", null] : ["failed", "not_found"]
      ])
      expect(sent).toMatchObject({ operations_sent: 1, operations_failed: stopOnError ? 1 : 2, operations_skipped: stopOnError ? 1 : 0 })
      expect(rec.read()).toBe("")
    }
  })

  it("refuses the caller's pane unless force, a dead or missing pane, an empty batch, pauses beyond the wait ceiling", async () => {
    const w = world()
    const rec = await recorder(w)
    const inside = w.layer({ env: callerEnv(w, "%0") })
    const denied = errorMeta(await runTool(inside, "send_keys_batch", { pane_id: "%0", operations: [{ keys: "x" }] }))
    expect(denied).toMatchObject({ code: "denied", effects: "none" })
    okResult(await runTool(inside, "send_keys_batch", { pane_id: "%0", operations: [{ keys: "ok", enter: false }], force: true }))
    expect(await rec.received("ok")).toBe("ok")
    const layer = w.layer({ flags: { waitMaxSeconds: "5" } })
    const operations = Array.from({ length: 4 }, () => ({ keys: "x" }))
    const long = errorMeta(await runTool(layer, "send_keys_batch", { pane_id: "%0", operations, delay_ms: 2000 }))
    expect(long.code).toBe("invalid_input")
    expect(long.text).toContain("ceiling")
    expect(errorMeta(await runTool(layer, "send_keys_batch", { pane_id: "%0", operations: [] })).code).toBe("invalid_input")
    expect(errorMeta(await runTool(layer, "send_keys_batch", { pane_id: "%9", operations })).code).toBe("not_found")
    w.tmuxOk("set-option", "-g", "remain-on-exit", "on")
    w.tmuxOk("new-window", "-d", "-t", "rec:", "true")
    await waitFor("the pane to die", () => w.tmuxOk("display-message", "-p", "-t", "%1", "#{pane_dead}").trim() === "1")
    expect(errorMeta(await runTool(layer, "send_keys_batch", { pane_id: "%1", operations })).code).toBe("conflict") // issue 10 item 19: a dead pane is a state, not bad arguments
    expect(rec.read()).toBe("ok")
  })

  it("fails as a whole when no operation could be sent (the pane went away after the check)", async () => {
    const w = world()
    await recorder(w)
    w.tmuxOk("new-window", "-d", "-t", "rec:", "cat")
    const layer = w.layer(
      {},
      tappedTmux((run) =>
        run.commands[0]?.[0] === "send-keys"
          ? Effect.sync(() => w.tmuxOk("kill-pane", "-t", "%1")).pipe(Effect.andThen(run.proceed()))
          : run.proceed()
      )
    )
    const failed = errorMeta(await runTool(layer, "send_keys_batch", { pane_id: "%1", operations: [{ keys: "a" }, { keys: "b" }] }))
    expect(failed).toMatchObject({ code: "not_found", effects: "possible" })
  })
})

describe("send_keys_batch on several panes (issue 14 item 4)", () => {
  /** A recorder in %0 and `cat` in %1. */
  const twoPanes = async () => {
    const w = world()
    const rec = await recorder(w)
    w.tmuxOk("new-window", "-d", "-t", "rec:", "cat")
    return { w, rec }
  }

  it("sends each operation to the pane it names (else the batch's), packed in one invocation; each result says its pane", async () => {
    const { w, rec } = await twoPanes()
    const sent = okResult(
      await runTool(w.layer(), "send_keys_batch", {
        pane_id: "%0",
        operations: [{ keys: "a", enter: false }, { pane_id: "%1", keys: "to-one" }, { keys: "b", enter: false }]
      })
    )
    expect(await rec.received("ab")).toBe("ab")
    await waitFor("the second pane's program to echo", () => w.tmuxOk("capture-pane", "-p", "-t", "%1").includes("to-one"))
    expect(sent.results.map((r: any) => [r.pane_id, r.status])).toEqual([["%0", "sent"], ["%1", "sent"], ["%0", "sent"]])
    expect(sent).toMatchObject({ pane_id: "%0", operations_sent: 3, invocations: 1 })
  })

  it("checks every pane before anything is sent: a missing one is not_found, the caller's is denied unless force", async () => {
    const { w, rec } = await twoPanes()
    const missing = errorMeta(
      await runTool(w.layer(), "send_keys_batch", {
        pane_id: "%0",
        operations: [{ keys: "x", enter: false }, { pane_id: "%9", keys: "y" }]
      })
    )
    expect(missing).toMatchObject({ code: "not_found" })
    const inside = w.layer({ env: callerEnv(w, "%1") })
    const operations = [{ keys: "x", enter: false }, { pane_id: "%1", keys: "y" }]
    const denied = errorMeta(await runTool(inside, "send_keys_batch", { pane_id: "%0", operations }))
    expect(denied).toMatchObject({ code: "denied", effects: "none" })
    expect(denied.text).toContain("%1")
    // The caller's pane as the batch's default is not guarded when every operation names another.
    okResult(await runTool(inside, "send_keys_batch", { pane_id: "%1", operations: [{ pane_id: "%0", keys: "z", enter: false }] }))
    expect(await rec.received("z")).toBe("z")
    okResult(await runTool(inside, "send_keys_batch", { pane_id: "%0", operations, force: true }))
    expect(await rec.received("zx")).toBe("zx")
  })
})
