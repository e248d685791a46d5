import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { callTool } from "../../src/mcp/CallTool.js"
import { renderResultText } from "../../src/mcp/internal/ResultText.js"
import { FakeTmux } from "../../src/testing/FakeTmux.js"
import { defineTool } from "../../src/tools/Tool.js"
import { call, fakeLayer, fakeState, resultText, socketPathFor } from "../support/fakeWorld.js"
import { errorMeta, okResult } from "../support/runTool.js"

const SECRET = "sk-live-51HxSECRETvalue"
const live = () =>
  new Map([[socketPathFor(), FakeTmux.server({ sessions: [{ name: "main", windows: [{ panes: [{ lines: ["hello"] }] }] }] })]])

describe("callTool over FakeTmux", () => {
  it.effect("turns a decode failure into invalid_input without echoing the value, and sends nothing to tmux", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(live())
      for (
        const args of [
          { pane_id: "%0", max_lines: SECRET },
          { pane_id: SECRET },
          { pane_id: "%0", start: SECRET },
          { pane_id: "%0", socket_name: 12345 }
        ]
      ) {
        const result = yield* call(layer, "capture_pane", args)
        const meta = errorMeta(result)
        expect(meta.code).toBe("invalid_input")
        expect(meta.effects).toBe("none")
        expect(meta.retryable).toBe(false)
        expect(meta.text).toMatch(/^Invalid arguments: /)
        expect(JSON.stringify(result)).not.toContain(SECRET)
        expect(JSON.stringify(result)).not.toContain("12345")
      }
      expect(errorMeta(yield* call(layer, "capture_pane", { pane_id: "bad" })).text).toContain("pane_id: must be a pane id such as %3")
      expect(errorMeta(yield* call(layer, "capture_pane", {})).text).toContain("pane_id")
      expect(errorMeta(yield* call(layer, "list_sessions", "not an object")).text).toContain("arguments: must be an object")
      expect((yield* fakeState(layer)).invocations).toEqual([])
    }))

  it.effect("rejects excess properties by name", () =>
    Effect.gen(function*() {
      const result = yield* call(fakeLayer(live()), "list_sessions", { limit: 5, sesion_id: "$0" })
      expect(errorMeta(result).code).toBe("invalid_input")
      expect(errorMeta(result).text).toContain("sesion_id")
    }))

  it.effect("denies a tool above the safety level, naming the tier, with effects none", () =>
    Effect.gen(function*() {
      const readonly = fakeLayer(new Map(), { flags: { safety: "readonly" } })
      const denied = errorMeta(yield* call(readonly, "start_server"))
      expect(denied).toMatchObject({ code: "denied", effects: "none", retryable: false })
      expect(denied.text).toContain("start_server is a mutating tool")
      expect(denied.hint).toContain("LIBTMUX_SAFETY=mutating")
      expect((yield* fakeState(readonly)).world.size).toBe(0)

      const killDenied = errorMeta(yield* call(fakeLayer(live()), "kill_server"))
      expect(killDenied.code).toBe("denied")
      expect(killDenied.hint).toContain("LIBTMUX_SAFETY=destructive")
    }))

  it.effect("reports a missing server as no_server with the recovery hint", () =>
    Effect.gen(function*() {
      const result = yield* call(fakeLayer(new Map()), "list_sessions")
      const meta = errorMeta(result)
      expect(meta.code).toBe("no_server")
      expect(meta.hint).toContain("list_servers")
      expect(meta.hint).toContain("start_server")
      expect(meta.text).toContain(`No tmux server is running on socket default (${socketPathFor()}).`)
      expect(meta.text).toContain(`\nHint: ${meta.hint}`)
    }))

  it.effect("returns the typed JSON as structuredContent and its compact rendering as text", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(live())
      for (
        const [name, args] of [
          ["list_sessions", {}],
          ["list_panes", {}],
          ["get_server_info", {}],
          ["capture_pane", { pane_id: "%0" }],
          ["where_am_i", {}]
        ] as const
      ) {
        const result = yield* call(layer, name, args)
        expect(result.isError).toBeUndefined()
        expect(resultText(result)).toBe(renderResultText(result.structuredContent))
      }
      expect(okResult(yield* call(layer, "capture_pane", { pane_id: "%0" })).content).toBe("hello")
      expect(resultText(yield* call(layer, "capture_pane", { pane_id: "%0" }))).toContain("content: hello")
    }))

  it.effect("a handler that breaks its output schema's promise is a defect result, not a sent value", () =>
    Effect.gen(function*() {
      const broken = defineTool({
        name: "broken_promise",
        title: "Broken",
        description: "Returns what its schema refuses.",
        tier: "readonly",
        group: "read",
        hints: { idempotent: true },
        input: Schema.Struct({}),
        output: Schema.Struct({ count: Schema.Number.pipe(Schema.check(Schema.isInt())) }),
        handler: () => Effect.succeed({ count: 1.5 })
      })
      const result = yield* callTool(broken, {}).pipe(Effect.provide(fakeLayer(live())))
      expect(result.isError).toBe(true)
      expect(resultText(result)).toContain("Internal error in broken_promise")
      expect(result.structuredContent).toBeUndefined()
    }))
})
