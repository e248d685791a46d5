/**
 * Issue 21 item 10: a `where` condition's errors name the field as the caller wrote it
 * (`where.session_name`, not `where.session_name[0]`) and what was matched (the field's values,
 * not "pane text"), whatever the listing.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { filterItems } from "../../src/operations/hierarchy/Filters.js"

describe("where's errors", () => {
  it.effect("name the field and what it matched, never an index or pane text", () =>
    Effect.gen(function*() {
      const text = new Set(["session_name"])
      const errors = [
        yield* Effect.flip(filterItems([{ session_name: "x" }], { where: { session_name: "(secret" }, regex: true }, text)),
        yield* Effect.flip(filterItems([{ session_name: "x" }], { where: { session_name: "" }, regex: true }, text)),
        yield* Effect.flip(
          filterItems([{ session_name: `${"a".repeat(40)}!` }], { where: { session_name: "^(a+)+$" }, regex: true }, text)
        )
      ]
      for (const error of errors) {
        expect(error.reason).toMatch(/\bwhere\.session_name /)
        expect(error.reason).not.toContain("[0]")
        expect(error.reason).not.toContain("pane text")
      }
      expect(errors[2]!.reason).toContain("on the session_name values")
    }))
})
