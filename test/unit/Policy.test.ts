import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { makePolicy } from "../../src/services/Policy.js"

describe("Policy", () => {
  it("enables every tier up to the safety level", () => {
    expect(["readonly", "mutating", "destructive"].map((t) => makePolicy("readonly").allows(t as never))).toEqual([true, false, false])
    expect(["readonly", "mutating", "destructive"].map((t) => makePolicy("mutating").allows(t as never))).toEqual([true, true, false])
    expect(["readonly", "mutating", "destructive"].map((t) => makePolicy("destructive").allows(t as never))).toEqual([true, true, true])
  })

  it.effect("denies a tool above the level, naming the tier it needs", () =>
    Effect.gen(function*() {
      const denied = yield* Effect.flip(makePolicy("mutating").check({ name: "kill_server", tier: "destructive" }))
      expect(denied).toMatchObject({ _tag: "Denied", kind: "tier", requiredTier: "destructive" })
      expect(denied.message).toContain("kill_server")
      expect(denied.message).toContain("mutating")
      yield* makePolicy("mutating").check({ name: "start_server", tier: "mutating" })
    }))
})
