/**
 * The one codec of the opaque strings handed to callers (operations/internal/OpaqueToken.ts):
 * capture_since's cursor and run_command's signed handle. Tokens written before the codec existed
 * must still be read: a caller may hold one across an upgrade.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { type CommandHandle, decodeHandle, encodeHandle } from "../../src/operations/commands/CommandHandle.js"
import { opaqueToken } from "../../src/operations/internal/OpaqueToken.js"

const Fields = Schema.Struct({ a: Schema.String, n: Schema.Number.pipe(Schema.check(Schema.isInt())) })
const token = opaqueToken("t1.", Fields)
const KEY = Buffer.alloc(32, 7)

describe("opaqueToken", () => {
  it("round-trips plain and signed tokens behind their prefix", () => {
    const value = { a: "x", n: 3 }
    expect(token.encode(value)).toMatch(/^t1\.[A-Za-z0-9_-]+$/)
    expect(token.decode(token.encode(value))).toEqual(Result.succeed(value))
    expect(token.decodeSigned(KEY, token.encodeSigned(KEY, value))).toEqual(Result.succeed(value))
  })

  it("refuses another prefix, broken JSON, a wrong field, a changed field, another key and a missing signature", () => {
    const signed = token.encodeSigned(KEY, { a: "x", n: 3 })
    const json = JSON.parse(Buffer.from(signed.slice(3), "base64url").toString("utf8"))
    const wrap = (value: unknown) => `t1.${Buffer.from(JSON.stringify(value)).toString("base64url")}`
    for (const text of ["", "t2.e30", "t1.!!!", wrap({ a: "x", n: 1.5 })]) expect(Result.isFailure(token.decode(text))).toBe(true)
    for (const text of [wrap({ ...json, n: 4 }), wrap({ a: "x", n: 3 }), token.encodeSigned(Buffer.alloc(32, 8), { a: "x", n: 3 })]) {
      expect(Result.isFailure(token.decodeSigned(KEY, text))).toBe(true)
    }
  })

  it("reads a run_command handle signed before the codec existed", async () => {
    // Written by CommandHandle.encodeHandle at ec9e221 (Schema.StringFromBase64Url over parseJson), key 32 × 0x07.
    const earlier =
      "cmd1.eyJpZCI6IjAxMjM0NTY3ODlhYmNkZWYiLCJzZWNyZXQiOiIwMDExMjIzMzQ0NTU2Njc3ODg5OWFhYmJjY2RkZWVmZiIsInNvY2tldCI6Ii90bXAvdG11eC0wL2RlZmF1bHQiLCJnZW5lcmF0aW9uIjoiMTAwLjE3MDAwMDAwMDAiLCJwYW5lX2lkIjoiJTMiLCJwYW5lX3BpZCI6NDI0Miwic2hlbGwiOiJiYXNoIiwic291cmNlIjoicGlwZSIsIm9mZnNldCI6MTIsInN0YXJ0ZWQiOnRydWUsImZldGNoZWRfYnkiOm51bGwsInJldHVybmVkX2xpbmVzIjozLCJ0eXBlZF9hdCI6MTcwMDAwMDAwMDEyMywibWFjIjoidHloZ0tvTk9vZ2pOODhleE45d0hMblNVUV9hRVFzVjZnVlZWb1FjcEVsRSJ9"
    const handle: CommandHandle = {
      id: "0123456789abcdef",
      secret: "00112233445566778899aabbccddeeff",
      socket: "/tmp/tmux-0/default",
      generation: "100.1700000000",
      pane_id: "%3",
      pane_pid: 4242,
      shell: "bash",
      source: "pipe",
      offset: 12,
      started: true,
      fetched_by: null,
      returned_lines: 3,
      typed_at: 1700000000123
    }
    expect(await Effect.runPromise(decodeHandle(KEY, earlier))).toEqual(handle)
    // And the same handle is written the same way now.
    expect(encodeHandle(KEY, handle)).toBe(earlier)
  })
})
