import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { VERSION } from "../../src/domain/Version.js"

describe("VERSION", () => {
  it("equals package.json's version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
    expect(VERSION).toBe(pkg.version)
  })
})
