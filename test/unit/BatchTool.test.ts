/**
 * Issue 14 item 4, run_batch over FakeTmux: every operation is checked (tool set, tier, guard,
 * schema) before any runs; then they run in order as their own calls, stop_on_error by default,
 * each result bounded and a cut said, never silent.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { callTool } from "../../src/mcp/CallTool.js"
import { Audit, type AuditRecord } from "../../src/services/Audit.js"
import { FakeTmux } from "../../src/testing/FakeTmux.js"
import { MAX_BATCH_RESULT_BYTES, MAX_OPERATION_RESULT_BYTES } from "../../src/tools/batch.js"
import { call, fakeLayer, fakeState, socketPathFor } from "../support/fakeWorld.js"
import { errorMeta, okResult, toolNamed } from "../support/runTool.js"

const live = (lines: ReadonlyArray<string> = ["hello"]) =>
  new Map([
    [socketPathFor(), FakeTmux.server({ sessions: [{ name: "main", windows: [{ panes: [{ lines: [...lines] }, { lines: ["two"] }] }] }] })]
  ])

const batch = (operations: ReadonlyArray<{ tool: string; arguments?: unknown }>, extra: Record<string, unknown> = {}) => ({
  operations,
  ...extra
})

describe("run_batch", () => {
  it.effect("runs the operations in order and returns each one's own result", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(live())
      const ran = okResult(
        yield* call(
          layer,
          "run_batch",
          batch([
            { tool: "list_panes", arguments: { window_id: "@0" } },
            { tool: "capture_pane", arguments: { pane_id: "%0" } },
            { tool: "send_keys", arguments: { pane_id: "%1", keys: "echo hi" } }
          ])
        )
      )
      expect(ran).toMatchObject({ ok: true, truncated: false })
      expect(ran.results.map((result: { tool: string }) => result.tool)).toEqual(["list_panes", "capture_pane", "send_keys"])
      expect(ran.results[0].result.total).toBe(2)
      expect(ran.results[1].result.pane_id).toBe("%0")
      expect(ran.results[2].result).toMatchObject({ pane_id: "%1", enter_sent: true })
      expect(okResult(yield* call(layer, "run_batch", batch([])))).toEqual({ ok: true, truncated: false, results: [] })
      // The same result as the tool called alone.
      expect(ran.results[1].result).toEqual(okResult(yield* call(layer, "capture_pane", { pane_id: "%0" })))
    }))

  it.effect("checks every operation before running any: an invalid one fails the batch with its index, nothing sent", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(live())
      const cases: ReadonlyArray<[unknown, string]> = [
        [
          batch([{ tool: "send_keys", arguments: { pane_id: "%1", keys: "x" } }, { tool: "capture_pane", arguments: {} }]),
          "operations.1: capture_pane: pane_id"
        ],
        [
          batch([{ tool: "send_keys", arguments: { pane_id: "%1", keys: "x" } }, { tool: "no_such_tool" }]),
          "operations.1: tool: names no tool"
        ],
        [
          batch([{ tool: "send_keys", arguments: { pane_id: "%1", keys: "x" } }, {
            tool: "run_batch",
            arguments: batch([{ tool: "list_panes" }])
          }]),
          "operations.1: a batch cannot hold another batch"
        ],
        [
          batch([{ tool: "list_panes", arguments: { socket_name: "a\0b" } }]),
          "operations.0: list_panes: socket_name: must not contain NUL"
        ],
        [batch([{ tool: "list_panes", arguments: { limit: "1.5" } }]), "operations.0: list_panes: limit"],
        [batch(Array.from({ length: 33 }, () => ({ tool: "list_panes" }))), "operations: at most 32"],
        [batch([{ tool: "list_panes", arguments: "not an object" }]), "operations.0: list_panes: arguments: must be an object"]
      ]
      for (const [args, problem] of cases) {
        const meta = errorMeta(yield* call(layer, "run_batch", args))
        expect(meta.code).toBe("invalid_input")
        expect(meta.effects).toBe("none")
        expect(meta.text).toContain(problem)
      }
      expect((yield* fakeState(layer)).invocations).toEqual([])
    }))

  it.effect("refuses an operation above the safety tier up front, naming it, and sends nothing", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(live(), { flags: { safety: "readonly" } })
      const meta = errorMeta(
        yield* call(layer, "run_batch", batch([{ tool: "list_panes" }, { tool: "send_keys", arguments: { pane_id: "%1", keys: "x" } }]))
      )
      expect(meta).toMatchObject({ code: "denied", effects: "none" })
      expect(meta.text).toContain("operations.1: send_keys is a mutating tool")
      expect((yield* fakeState(layer)).invocations).toEqual([])
      const mutating = fakeLayer(live())
      expect(errorMeta(yield* call(mutating, "run_batch", batch([{ tool: "kill_pane", arguments: { pane_id: "%1" } }]))).text).toContain(
        "operations.0: kill_pane is a destructive tool"
      )
    }))

  it.effect("knows only the tools of the server's tool set", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(live(), { flags: { tools: "read,run_batch" } })
      expect(okResult(yield* call(layer, "run_batch", batch([{ tool: "list_panes" }]))).results[0].ok).toBe(true)
      const meta = errorMeta(yield* call(layer, "run_batch", batch([{ tool: "send_keys", arguments: { pane_id: "%1", keys: "x" } }])))
      expect(meta.code).toBe("invalid_input")
      expect(meta.text).toContain("operations.0: tool: names no tool of this server's tool set")
    }))

  it.effect("stops at the first failure by default, the rest skipped; stop_on_error false runs them all", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(live())
      const operations = [
        { tool: "capture_pane", arguments: { pane_id: "%9" } },
        { tool: "send_keys", arguments: { pane_id: "%1", keys: "x" } }
      ]
      const stopped = okResult(yield* call(layer, "run_batch", batch(operations)))
      expect(stopped.ok).toBe(false)
      expect(stopped.results[0]).toMatchObject({ tool: "capture_pane", ok: false, error: { code: "not_found" } })
      expect(stopped.results[0].error.hint).toContain("list_panes")
      expect(stopped.results[1]).toEqual({ tool: "send_keys", ok: false, skipped: true })
      expect(
        (yield* fakeState(layer)).invocations.flatMap((invocation) => invocation.commands).some((command) => command[0] === "send-keys")
      ).toBe(false)

      const all = okResult(yield* call(layer, "run_batch", batch(operations, { stop_on_error: false })))
      expect(all.ok).toBe(false)
      expect(all.results[1]).toMatchObject({ tool: "send_keys", ok: true })
    }))

  it.effect("leaves out a result over its bound or over the batch's, saying so with its size", () =>
    Effect.gen(function*() {
      const line = "x".repeat(180)
      const layer = fakeLayer(live(Array.from({ length: 40 }, () => line)))
      const one = okResult(yield* call(layer, "capture_pane", { pane_id: "%0", start: "-" }))
      const size = Buffer.byteLength(JSON.stringify(one))
      expect(size).toBeGreaterThan(MAX_BATCH_RESULT_BYTES / 10)
      const count = Math.ceil(MAX_BATCH_RESULT_BYTES / size) + 1
      const ran = okResult(
        yield* call(
          layer,
          "run_batch",
          batch(Array.from({ length: count }, () => ({ tool: "capture_pane", arguments: { pane_id: "%0", start: "-" } })))
        )
      )
      expect(ran.truncated).toBe(true)
      expect(ran.results.length).toBe(count)
      expect(ran.ok).toBe(true)
      const kept = ran.results.filter((result: { result?: unknown }) => result.result !== undefined)
      expect(kept.length).toBe(Math.floor(MAX_BATCH_RESULT_BYTES / size))
      expect(ran.results.at(-1)).toEqual({ tool: "capture_pane", ok: true, truncated: true, result_bytes: size })

      const big = fakeLayer(live(Array.from({ length: 300 }, () => line)))
      const alone = Buffer.byteLength(
        JSON.stringify(okResult(yield* call(big, "capture_pane", { pane_id: "%0", start: "-", max_lines: 1000 })))
      )
      expect(alone).toBeGreaterThan(MAX_OPERATION_RESULT_BYTES)
      const cut = okResult(
        yield* call(big, "run_batch", batch([{ tool: "capture_pane", arguments: { pane_id: "%0", start: "-", max_lines: 1000 } }]))
      )
      expect(cut.results[0]).toEqual({ tool: "capture_pane", ok: true, truncated: true, result_bytes: alone })
    }))

  it.effect("logs each operation as its own call, and the batch's own record keeps only a digest of them", () =>
    Effect.gen(function*() {
      const records: Array<AuditRecord> = []
      const audit = { record: (record: AuditRecord) => Effect.sync(() => void records.push(record)) }
      const args = batch([{ tool: "list_panes" }, { tool: "send_keys", arguments: { pane_id: "%1", keys: "SECRET-KEYS" } }])
      yield* callTool(toolNamed("run_batch"), args).pipe(Effect.provideService(Audit, audit), Effect.provide(fakeLayer(live())))
      expect(records.map((record) => [record.tool, record.outcome])).toEqual([["list_panes", "ok"], ["send_keys", "ok"], [
        "run_batch",
        "ok"
      ]])
      expect(JSON.stringify(records)).not.toContain("SECRET-KEYS")
    }))

  it.effect("reads lenient strings inside operations as a call would", () =>
    Effect.gen(function*() {
      const ran = okResult(
        yield* call(fakeLayer(live()), "run_batch", {
          operations: "[{\"tool\":\"capture_pane\",\"arguments\":{\"pane_id\":\"%0\",\"max_lines\":\"1\"}}]",
          stop_on_error: "true"
        })
      )
      expect(ran.results[0].result.lines_returned).toBe(1)
    }))
})
