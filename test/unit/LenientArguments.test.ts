/**
 * Issue 14 item 12: a value that arrives as a string where the schema wants an integer, a boolean,
 * an object or an array is accepted when the string is exactly that value's JSON; anything else
 * stays invalid_input, and the coerced value passes the argument guard like any other.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { lenientArguments } from "../../src/mcp/internal/LenientArguments.js"
import { FakeTmux } from "../../src/testing/FakeTmux.js"
import { call, fakeLayer, fakeState, socketPathFor } from "../support/fakeWorld.js"
import { errorMeta, okResult } from "../support/runTool.js"

const live = () =>
  new Map([[socketPathFor(), FakeTmux.server({ sessions: [{ name: "main", windows: [{ panes: [{ lines: ["hello"] }] }] }] })]])

const Example = Schema.Struct({
  count: Schema.optional(Schema.Int),
  flag: Schema.optional(Schema.Boolean),
  name: Schema.optional(Schema.String),
  env: Schema.optional(Schema.Record(Schema.String, Schema.String)),
  list: Schema.optional(Schema.Array(Schema.String)),
  steps: Schema.optional(Schema.Array(Schema.Struct({ keys: Schema.String, enter: Schema.optional(Schema.Boolean) }))),
  line: Schema.optional(Schema.Union([Schema.Int, Schema.Literal("-")])),
  size: Schema.optional(Schema.Union([Schema.Int, Schema.String.pipe(Schema.check(Schema.isPattern(/^\d+%$/)))]))
})

describe("lenientArguments", () => {
  it("turns a string that is exactly the wanted value's JSON into that value", () => {
    expect(lenientArguments(Example, { count: "10", flag: "true", env: "{\"a\":\"b\"}", list: "[\"x\"]" })).toEqual({
      count: 10,
      flag: true,
      env: { a: "b" },
      list: ["x"]
    })
    expect(lenientArguments(Example, { flag: "false", count: "-3" })).toEqual({ flag: false, count: -3 })
  })

  it("coerces inside what it decoded, and inside objects and arrays that came as JSON already", () => {
    expect(lenientArguments(Example, { steps: "[{\"keys\":\"a\",\"enter\":\"false\"}]" })).toEqual({
      steps: [{ keys: "a", enter: false }]
    })
    expect(lenientArguments(Example, { steps: [{ keys: "a", enter: "true" }] })).toEqual({ steps: [{ keys: "a", enter: true }] })
  })

  it("leaves a string alone where the schema takes it as a string, and everything not exactly JSON", () => {
    const kept = [
      { name: "10" },
      { line: "-" },
      { size: "30%" },
      { count: " 10" },
      { count: "10 " },
      { count: "1e1" },
      { count: "010" },
      { count: "0x10" },
      { count: "" },
      { flag: "yes" },
      { flag: "True" },
      { flag: "1" },
      { env: "[\"x\"]" },
      { env: " {\"a\":\"b\"}" },
      { list: "{\"a\":\"b\"}" },
      { list: "x" },
      { env: { a: 1 } }
    ]
    for (const args of kept) expect(lenientArguments(Example, args)).toEqual(args)
    expect(lenientArguments(Example, { line: "12", size: "40" })).toEqual({ line: 12, size: 40 })
    // Not an integer: coerced to the number it is, which the schema then refuses as it would 1.5.
    expect(lenientArguments(Example, { count: "1.5" })).toEqual({ count: 1.5 })
  })

  it("returns the arguments themselves when nothing changes, and anything that is not an object as it is", () => {
    const args = { name: "x", count: 3 }
    expect(lenientArguments(Example, args)).toBe(args)
    expect(lenientArguments(Example, "not an object")).toBe("not an object")
    expect(lenientArguments(Example, undefined)).toBe(undefined)
  })
})

describe("lenient arguments at tools/call", () => {
  it.effect("accepts \"10\" for an integer and \"true\" for a boolean; refuses \"1.5\", \" 10\" and \"yes\"", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(live())
      expect(okResult(yield* call(layer, "capture_pane", { pane_id: "%0", max_lines: "10", start: "-1" }))).toMatchObject({
        pane_id: "%0"
      })
      expect(okResult(yield* call(layer, "search_panes", { patterns: "[\"hello\"]", regex: "false" }))).toMatchObject({})
      for (const args of [{ max_lines: "1.5" }, { max_lines: " 10" }, { join_wrapped: "yes" }]) {
        const meta = errorMeta(yield* call(layer, "capture_pane", { pane_id: "%0", ...args }))
        expect(meta.code).toBe("invalid_input")
      }
    }))

  it.effect("ids a client sends unquoted arrive as strings and pass as they are", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(live())
      expect(okResult(yield* call(layer, "get_session_info", { session_id: "$0" }))).toMatchObject({ session_id: "$0" })
      expect(okResult(yield* call(layer, "get_pane_info", { pane_id: "%0" }))).toMatchObject({ pane_id: "%0" })
      expect(errorMeta(yield* call(layer, "get_session_info", { session_id: "$10" })).code).toBe("not_found")
    }))

  it.effect("checks the decoded value with the argument guard: NUL, depth and __proto__ inside it are refused", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(live())
      const deep = `${"[".repeat(12)}"x"${"]".repeat(12)}`
      for (
        const [args, problem] of [
          [{ patterns: "[\"a\\u0000b\"]" }, "patterns.0: must not contain NUL"],
          [{ patterns: deep }, "nests deeper"],
          [{ patterns: "[{\"__proto__\":{}}]" }, "__proto__"]
        ] as const
      ) {
        const meta = errorMeta(yield* call(layer, "search_panes", args))
        expect(meta.code).toBe("invalid_input")
        expect(meta.text).toContain(problem)
      }
      expect((yield* fakeState(layer)).invocations).toEqual([])
    }))

  it.effect("an object a schema also takes as JSON text (environment) is guarded as decoded, as when passed directly", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(live())
      for (
        const [environment, problem] of [
          ["{\"__proto__\":\"x\",\"A\":\"b\"}", "__proto__"],
          ["{\"A\":\"a\\u0000b\"}", "environment.A: must not contain NUL"]
        ] as const
      ) {
        for (const [tool, target] of [["create_session", {}], ["create_window", { session_id: "$0" }]] as const) {
          const meta = errorMeta(yield* call(layer, tool, { ...target, environment }))
          expect({ tool, environment, code: meta.code }).toEqual({ tool, environment, code: "invalid_input" })
          expect(meta.text).toContain(problem)
        }
      }
      expect((yield* fakeState(layer)).invocations).toEqual([])
      expect(okResult(yield* call(layer, "create_window", { session_id: "$0", environment: "{\"A\":\"b\"}" }))).toMatchObject({})
    }))
})
