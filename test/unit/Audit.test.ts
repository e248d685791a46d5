import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { redactArguments } from "../../src/services/Audit.js"

const short = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 12)

describe("redactArguments", () => {
  it("replaces payload values by length and hash, never the value", () => {
    const args = { pane_id: "%1", keys: "export TOKEN=sk-live-123", text: "hunter2", command: "curl -H secret", literal: true }
    const redacted = redactArguments(args)
    const json = JSON.stringify(redacted)
    for (const secret of ["sk-live-123", "hunter2", "curl -H secret"]) expect(json).not.toContain(secret)
    expect(redacted).toEqual({
      pane_id: "%1",
      keys: { length: 24, sha256: short("export TOKEN=sk-live-123") },
      text: { length: 7, sha256: short("hunter2") },
      command: { length: 14, sha256: short("curl -H secret") },
      literal: true
    })
  })

  it("keeps environment names and hashes their values", () => {
    const redacted = redactArguments({ environment: { API_KEY: "abc123secret", EMPTY: "" } }) as Record<string, any>
    expect(Object.keys(redacted.environment)).toEqual(["API_KEY", "EMPTY"])
    expect(redacted.environment.API_KEY).toEqual({ length: 12, sha256: short("abc123secret") })
    expect(JSON.stringify(redacted)).not.toContain("abc123secret")
  })

  it("honours a tool's own payload arguments", () => {
    const redacted = redactArguments({ pattern: "password=.*", pane_id: "%2" }, ["pattern"])
    expect(JSON.stringify(redacted)).not.toContain("password")
    expect(redacted).toMatchObject({ pane_id: "%2" })
  })

  it("cuts long strings and digests non-object arguments", () => {
    const long = "x".repeat(1000)
    expect(redactArguments({ session_name: long })).toEqual({ session_name: `${"x".repeat(200)}… (1000 chars)` })
    expect(redactArguments(undefined)).toEqual({})
    expect(redactArguments(["secret"])).toEqual({ length: 10, sha256: short("[\"secret\"]") })
  })
})
