/**
 * Issue 10 items 16 and 17 at the bridge: what no tool can take is refused before decoding, named
 * by argument, never echoed, and nothing reaches tmux; error messages and audit lines stay bounded
 * whatever a caller sends.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { makeSocketResolver } from "../../src/context/SocketResolver.js"
import { InvalidInput, NotFound } from "../../src/domain/Errors.js"
import { errorResult } from "../../src/mcp/CallTool.js"
import { checkArguments, MAX_ARGUMENT_BYTES, MAX_ARGUMENT_DEPTH, withProtoKey } from "../../src/mcp/internal/ArgumentGuard.js"
import { redactArguments } from "../../src/services/Audit.js"
import { FakeTmux } from "../../src/testing/FakeTmux.js"
import { call, fakeConfig, fakeLayer, fakeState, socketPathFor } from "../support/fakeWorld.js"
import { errorMeta, toolNamed } from "../support/runTool.js"

const reason = (outcome: Result.Result<void, InvalidInput>): string =>
  Result.match(outcome, { onFailure: (error) => error.reason, onSuccess: () => "accepted" })

const nested = (depth: number): unknown => {
  let value: unknown = "leaf"
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

const live = () =>
  new Map([[socketPathFor(), FakeTmux.server({ sessions: [{ name: "main", windows: [{ panes: [{ lines: ["hello"] }] }] }] })]])

describe("checkArguments", () => {
  const listSessions = toolNamed("list_sessions")

  it("refuses NUL, over-long strings and deep nesting, naming the argument", () => {
    expect(reason(checkArguments(listSessions, { socket_name: "a\0b" }))).toBe("socket_name: must not contain NUL characters.")
    expect(reason(checkArguments(listSessions, { socket_name: "x".repeat(MAX_ARGUMENT_BYTES + 1) }))).toContain(
      "socket_name: must be at most 16384 bytes"
    )
    expect(reason(checkArguments(listSessions, { socket_name: "x".repeat(MAX_ARGUMENT_BYTES) }))).toBe("accepted")
    // Bytes, not characters: 4-byte characters reach the limit four times sooner.
    expect(reason(checkArguments(listSessions, { socket_name: "🙂".repeat(MAX_ARGUMENT_BYTES / 4 + 1) }))).toContain("at most")
    expect(reason(checkArguments(listSessions, { socket_name: nested(MAX_ARGUMENT_DEPTH) }))).toBe("accepted")
    expect(reason(checkArguments(listSessions, { socket_name: nested(100_000) }))).toBe(
      "socket_name: nests deeper than 8 levels; no argument does."
    )
    expect(reason(checkArguments(listSessions, { list: [[[[[[[[[[["x"]]]]]]]]]]] }))).toContain("list: nests deeper")
  })

  it("names list items and map entries by position, a caller's odd or long key not at all", () => {
    const createSession = toolNamed("create_session")
    expect(reason(checkArguments(createSession, { environment: { GOOD_NAME: "a\0" } }))).toBe(
      "environment.GOOD_NAME: must not contain NUL characters."
    )
    expect(reason(checkArguments(createSession, { command: ["sh", "a\0"] }))).toBe("command.1: must not contain NUL characters.")
    const oddKey = reason(checkArguments(createSession, { environment: { ["k".repeat(500)]: "\0", "a\u001b]0;x": 1 } }))
    expect(oddKey).toBe("environment.[key]: must not contain NUL characters.")
  })

  it("lets a tool's own text arguments be longer, and its binary ones hold NUL", () => {
    const pasteText = toolNamed("paste_text")
    expect(reason(checkArguments(pasteText, { pane_id: "%0", text: "a\0b".repeat(100_000) }))).toBe("accepted")
    expect(reason(checkArguments(pasteText, { pane_id: "%0\0", text: "x" }))).toContain("pane_id")
    const runCommand = toolNamed("run_command")
    expect(reason(checkArguments(runCommand, { pane_id: "%0", command: "x".repeat(100_000) }))).toBe("accepted")
    expect(reason(checkArguments(runCommand, { pane_id: "%0", command: "a\0b" }))).toBe("command: must not contain NUL characters.")
    const batch = toolNamed("send_keys_batch")
    expect(reason(checkArguments(batch, { pane_id: "%0", operations: [{ keys: "k".repeat(40_000) }] }))).toBe("accepted")
  })

  it("refuses a __proto__ key, own (nested objects keep one) or put back by the bridge", () => {
    const startServer = toolNamed("start_server")
    const parsed = JSON.parse("{\"environment\":{\"__proto__\":\"x\"}}")
    expect(reason(checkArguments(toolNamed("create_session"), parsed))).toBe(
      "environment: holds the key __proto__, which is not an argument."
    )
    expect(reason(checkArguments(startServer, withProtoKey({ socket_name: "x" })))).toBe(
      "arguments: holds the key __proto__, which is not an argument."
    )
    expect(reason(checkArguments(startServer, withProtoKey(undefined)))).toContain("__proto__")
    // A computed key is an own one; a literal one sets the prototype (as a parser copying keys would).
    expect(reason(checkArguments(startServer, { socket_name: "x", ["__proto__"]: {} }))).toContain("__proto__")
    expect(reason(checkArguments(startServer, Object.setPrototypeOf({ socket_name: "x" }, { socket_path: "/x" })))).toContain("__proto__")
  })
})

describe("callTool refuses before decoding and before tmux", () => {
  it.effect("NUL, size, depth and __proto__ are invalid_input with effects none, and no tmux invocation", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(live())
      for (
        const [tool, args] of [
          ["list_sessions", { socket_name: "a\0b" }],
          ["get_session_info", { session_name: "s".repeat(1_000_000) }],
          ["list_sessions", { socket_name: nested(100_000) }],
          ["start_server", withProtoKey({})],
          ["send_keys", { pane_id: "%0", keys: "x", generation: nested(20) }]
        ] as const
      ) {
        const meta = errorMeta(yield* call(layer, tool, args))
        expect(meta).toMatchObject({ code: "invalid_input", effects: "none" })
        expect(meta.text.length).toBeLessThan(2048)
        expect(meta.text).not.toContain("sss")
      }
      expect((yield* fakeState(layer)).invocations).toEqual([])
    }))

  it.effect("an excess key is named only when it is short and plain", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(live())
      const long = errorMeta(yield* call(layer, "list_sessions", { ["z".repeat(10_000)]: 1 }))
      expect(long.code).toBe("invalid_input")
      expect(long.text).not.toContain("zzz")
      expect(long.text).toContain("[key]")
    }))
})

describe("bounded error messages", () => {
  it("not_found names caller text by a short prefix and its length", () => {
    const target = "q".repeat(1_000_000)
    const message = new NotFound({ kind: "session", target, socket: "s" }).message
    expect(message.length).toBeLessThan(200)
    expect(message).toContain("(1000000 characters)")
    expect(new NotFound({ kind: "server", target, socket: "s" }).message.length).toBeLessThan(300)
    expect(new NotFound({ kind: "pane", target: "%3", socket: "s" }).message).toBe("No pane %3 exists on the tmux server at socket s.")
  })

  it("no error result carries more than 1600 characters of message, whatever the error holds", () => {
    const result = errorResult(toolNamed("list_sessions"), new InvalidInput({ reason: "r".repeat(50_000) }))
    const text = result.content[0]!.type === "text" ? result.content[0]!.text : ""
    expect(text.length).toBeLessThan(2048)
    expect(text).toContain("characters cut")
  })

  it("socket arguments fit a Unix socket address and hold no NUL; the value is not echoed", () => {
    const resolver = makeSocketResolver(fakeConfig())
    const refused = (selector: { socket_name?: string; socket_path?: string }) =>
      Effect.runSync(Effect.flip(resolver.resolve(selector))).reason
    expect(refused({ socket_path: `/tmp/${"p".repeat(200)}` })).toMatch(/^socket_path makes a socket path of 205 bytes; .* at most 107\.$/)
    expect(refused({ socket_name: "n".repeat(100) })).toContain("socket_name makes a socket path of")
    expect(refused({ socket_name: "a\0b" })).toBe("socket_name must not contain NUL characters.")
    expect(refused({ socket_path: "/tmp/a\0b" })).toBe("socket_path must not contain NUL characters.")
    expect(Effect.runSync(resolver.resolve({ socket_path: `/${"p".repeat(106)}` })).path).toHaveLength(107)
  })
})

describe("audit lines are bounded", () => {
  it("cuts nested strings, elides deep and long structures, and digests payloads too deep to serialize", () => {
    const redacted = redactArguments({
      extra_socket_paths: ["/".repeat(10_000)],
      socket_name: nested(100_000),
      operations: nested(100_000),
      many: Array.from({ length: 1000 }, (_, i) => i)
    }, ["operations"])
    const line = JSON.stringify(redacted)
    expect(line.length).toBeLessThan(2000)
    expect(line).toContain("(10000 chars)")
    expect(line).toContain("… (1000 items)")
    // A payload object keeps its keys, each value digested, even one too deep to serialize.
    expect((redacted as Record<string, unknown>).operations).toEqual({ a: { length: expect.any(Number), sha256: expect.any(String) } })
  })
})
