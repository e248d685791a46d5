/**
 * The era's wire rules (EraWire.ts): on 2026-07-28 a request naming another protocol version is
 * answered -32022 before the SDK sees it; on 2025-11-25 a resource-not-found error goes out -32002.
 */
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/server"
import { describe, expect, it } from "vitest"
import { makeEraWire, MODERN_PROTOCOL_VERSIONS } from "../../src/mcp/internal/EraWire.js"

const VERSION_KEY = "io.modelcontextprotocol/protocolVersion"

const request = (id: RequestId, method: string, version?: unknown): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  method,
  params: version === undefined ? { uri: "tmux://pane/%251/screen" } : { uri: "tmux://pane/%251/screen", _meta: { [VERSION_KEY]: version } }
})

const notFound = (id: RequestId): JSONRPCMessage => ({
  jsonrpc: "2.0",
  id,
  error: { code: -32602, message: "No pane %9 exists", data: { code: "not_found", uri: "tmux://pane/%259/screen" } }
})

const setup = () => {
  const sent: Array<JSONRPCMessage> = []
  const wire = makeEraWire((message) => void sent.push(message))
  return { wire, sent }
}

describe("era wire", () => {
  it("speaks 2026-07-28 only", () => {
    expect(MODERN_PROTOCOL_VERSIONS).toEqual(["2026-07-28"])
  })

  it("before the era is known, passes everything both ways", () => {
    const { wire, sent } = setup()
    expect(wire.era).toBeUndefined()
    expect(wire.inbound(request(1, "resources/read", "2025-06-18"))).toBe(false)
    const error = notFound(2)
    expect(wire.outbound(error)).toBe(error)
    expect(sent).toEqual([])
  })

  it("modern: a request naming another version is answered -32022 and taken", () => {
    const { wire, sent } = setup()
    wire.era = "modern"
    expect(wire.inbound(request(4, "resources/read", "2025-11-25"))).toBe(true)
    expect(wire.inbound(request("s", "tools/call", "2099-01-01"))).toBe(true)
    expect(sent).toEqual([
      {
        jsonrpc: "2.0",
        id: 4,
        error: {
          code: -32022,
          message: expect.stringContaining("2025-11-25"),
          data: { supported: ["2026-07-28"], requested: "2025-11-25" }
        }
      },
      {
        jsonrpc: "2.0",
        id: "s",
        error: {
          code: -32022,
          message: expect.stringContaining("2099-01-01"),
          data: { supported: ["2026-07-28"], requested: "2099-01-01" }
        }
      }
    ])
  })

  it("modern: a request naming 2026-07-28 passes", () => {
    const { wire, sent } = setup()
    wire.era = "modern"
    expect(wire.inbound(request(1, "resources/read", "2026-07-28"))).toBe(false)
    expect(sent).toEqual([])
  })

  it("modern: a request naming no version (no _meta, or a non-string) passes: the SDK refuses it", () => {
    const { wire, sent } = setup()
    wire.era = "modern"
    expect(wire.inbound(request(1, "resources/read"))).toBe(false)
    expect(wire.inbound(request(2, "resources/read", 20260728))).toBe(false)
    expect(wire.inbound({ jsonrpc: "2.0", id: 3, method: "tools/list" })).toBe(false)
    expect(sent).toEqual([])
  })

  it("modern: server/discover passes whatever version it names", () => {
    const { wire, sent } = setup()
    wire.era = "modern"
    expect(wire.inbound(request(1, "server/discover", "2025-11-25"))).toBe(false)
    expect(wire.inbound(request(2, "server/discover", "2026-07-28"))).toBe(false)
    expect(wire.inbound(request(3, "server/discover"))).toBe(false)
    expect(sent).toEqual([])
  })

  it("modern: notifications and responses pass, whatever version they name", () => {
    const { wire, sent } = setup()
    wire.era = "modern"
    expect(
      wire.inbound({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1, _meta: { [VERSION_KEY]: "2025-11-25" } } })
    )
      .toBe(false)
    expect(wire.inbound({ jsonrpc: "2.0", id: 1, result: { _meta: { [VERSION_KEY]: "2025-11-25" } } })).toBe(false)
    expect(sent).toEqual([])
  })

  it("modern: a -32602 not_found error goes out unchanged", () => {
    const { wire } = setup()
    wire.era = "modern"
    const error = notFound(1)
    expect(wire.outbound(error)).toBe(error)
  })

  it("legacy: a -32602 not_found error goes out -32002, the rest of it kept", () => {
    const { wire, sent } = setup()
    wire.era = "legacy"
    const error = notFound(9)
    expect(wire.outbound(error)).toEqual({
      jsonrpc: "2.0",
      id: 9,
      error: { code: -32002, message: "No pane %9 exists", data: { code: "not_found", uri: "tmux://pane/%259/screen" } }
    })
    // Not in place: the SDK's message is left as it was.
    expect((error as { error: { code: number } }).error.code).toBe(-32602)
    expect(sent).toEqual([])
  })

  it("legacy: other errors go out unchanged", () => {
    const { wire } = setup()
    wire.era = "legacy"
    const unchanged: ReadonlyArray<JSONRPCMessage> = [
      { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad", data: { code: "invalid_input", uri: "x" } } },
      { jsonrpc: "2.0", id: 2, error: { code: -32602, message: "bad" } },
      { jsonrpc: "2.0", id: 3, error: { code: -32602, message: "bad", data: { code: "not_found" } } },
      { jsonrpc: "2.0", id: 4, error: { code: -32603, message: "bad", data: { code: "not_found", uri: "x" } } },
      { jsonrpc: "2.0", id: 5, result: { code: -32602, data: { code: "not_found", uri: "x" } } },
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: "x" } }
    ]
    for (const message of unchanged) expect(wire.outbound(message)).toBe(message)
  })

  it("legacy: requests pass, whatever version they name", () => {
    const { wire, sent } = setup()
    wire.era = "legacy"
    expect(wire.inbound(request(1, "resources/read", "2099-01-01"))).toBe(false)
    expect(sent).toEqual([])
  })
})
