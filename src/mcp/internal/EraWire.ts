/**
 * What an MCP era asks of the wire that the SDK's serveStdio leaves undone, as a filter between the
 * wire and the SDK (StdioTransport's WireFilter), once the connection's era is known:
 * - 2026-07-28: every request names its protocol version in `_meta`. The SDK checks it only on a
 *   connection's first message, so a later request naming another version would be served as if it
 *   named ours; it is answered UnsupportedProtocolVersion (-32022, the versions we speak in `data`)
 *   here. server/discover is left alone: it is how a client learns the versions.
 * - 2025-11-25: a resource that does not exist is -32002, that spec's code. The SDK sends -32602
 *   (2026-07-28's code) on both eras, so a 2025 connection gets -32002 back.
 */
import {
  type JSONRPCMessage,
  PROTOCOL_VERSION_META_KEY,
  ProtocolErrorCode,
  type RequestId,
  UnsupportedProtocolVersionError
} from "@modelcontextprotocol/server"
import { type Era, isResourceNotFound } from "./ResourceError.js"
import { isRecord, type WireFilter } from "./StdioTransport.js"

/** The 2026-era protocol versions this server speaks (the SDK's serveStdio offers these in server/discover). */
export const MODERN_PROTOCOL_VERSIONS: ReadonlyArray<string> = ["2026-07-28"]

export interface EraWire extends WireFilter {
  /** Set when the SDK builds the connection's instance (again, when a probe falls back to initialize). */
  era: Era | undefined
}

/** How much of a version we do not speak is said back (a version is 10 characters; a client's text is bounded). */
const MAX_ECHOED = 64

/** The protocol version a request's `_meta` names, when it names one as a string. */
const namedVersion = (params: unknown): string | undefined => {
  const meta = isRecord(params) ? params._meta : undefined
  const version = isRecord(meta) ? meta[PROTOCOL_VERSION_META_KEY] : undefined
  return typeof version === "string" ? version : undefined
}

export const makeEraWire = (send: (message: JSONRPCMessage) => void): EraWire => {
  const wire: EraWire = {
    era: undefined,
    inbound: (message) => {
      if (wire.era !== "modern" || !("method" in message) || !("id" in message)) return false
      if (message.method === "server/discover") return false
      const requested = namedVersion(message.params)
      // No version at all is the SDK's to refuse (a missing envelope is invalid params).
      if (requested === undefined || MODERN_PROTOCOL_VERSIONS.includes(requested)) return false
      const error = new UnsupportedProtocolVersionError({
        supported: [...MODERN_PROTOCOL_VERSIONS],
        requested: requested.length > MAX_ECHOED ? `${requested.slice(0, MAX_ECHOED)}…` : requested
      })
      send({ jsonrpc: "2.0", id: message.id as RequestId, error: { code: error.code, message: error.message, data: error.data } })
      return true
    },
    outbound: (message) =>
      wire.era === "legacy" && "error" in message && message.error.code === ProtocolErrorCode.InvalidParams &&
        isResourceNotFound(message.error.data)
        ? { ...message, error: { ...message.error, code: ProtocolErrorCode.ResourceNotFound } }
        : message
  }
  return wire
}
