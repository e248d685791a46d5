/**
 * Issue 21 item 10: run_batch's own audit record says when operations failed (outcome `partial`,
 * how many), rather than `ok` because the batch itself ran.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { callTool } from "../../src/mcp/CallTool.js"
import { Audit, type AuditRecord } from "../../src/services/Audit.js"
import { FakeTmux } from "../../src/testing/FakeTmux.js"
import { fakeLayer, socketPathFor } from "../support/fakeWorld.js"
import { toolNamed } from "../support/runTool.js"

const live = () =>
  new Map([[socketPathFor(), FakeTmux.server({ sessions: [{ name: "main", windows: [{ panes: [{ lines: ["hello"] }] }] }] })]])

const batchRecord = (operations: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const records: Array<AuditRecord> = []
    const audit = { record: (record: AuditRecord) => Effect.sync(() => void records.push(record)) }
    yield* callTool(toolNamed("run_batch"), { operations, ...extra }).pipe(
      Effect.provideService(Audit, audit),
      Effect.provide(fakeLayer(live()))
    )
    return records.find((record) => record.tool === "run_batch")!
  })

describe("run_batch's audit record", () => {
  it.effect("is partial, with the count, when operations failed or were skipped; ok when all succeeded", () =>
    Effect.gen(function*() {
      const fine = { tool: "list_panes" }
      const missing = { tool: "capture_pane", arguments: { pane_id: "%99" } }
      expect(yield* batchRecord([fine, fine])).toMatchObject({ outcome: "ok", error_code: null })
      expect(yield* batchRecord([fine, missing, fine])).toMatchObject({ outcome: "partial", error_code: null, failed_operations: 2 })
      expect(yield* batchRecord([missing, fine, missing], { stop_on_error: false })).toMatchObject({
        outcome: "partial",
        failed_operations: 2
      })
      expect(yield* batchRecord([fine])).not.toHaveProperty("failed_operations")
    }))
})
