/**
 * subscriptions/listen (2026-07-28) on our subscription engine (Subscriptions.ts). The SDK's stdio
 * entry answers a listen itself: it acknowledges it, then hands each resources/updated the engine
 * sends to the listens that name its URI. So its instance, and the engine behind it, would never
 * learn which screens to watch. This filter (StdioTransport's WireFilter) sees each listen first:
 * - every resource URI it names is subscribed on the engine, held by that listen, before the SDK
 *   sees it; a URI the engine refuses (not a pane's screen, a missing pane, MAX_SUBSCRIPTIONS
 *   screens already watched) refuses the listen with the error a read of it gives, and the SDK
 *   never sees it;
 * - the SDK's own refusal (its cap on listens, a bad envelope) and a cancel let go of the URIs;
 * - a listen cancelled before it was acknowledged is dropped unanswered, as a cancelled request is.
 * Each refusal is said on stderr too: the SDK reports its own to no one.
 */
import { type JSONRPCMessage, ProtocolErrorCode, type RequestId } from "@modelcontextprotocol/server"
import type { ToolError } from "../domain/Errors.js"
import { resourceErrorFields } from "./internal/ResourceError.js"
import { isRecord, type WireFilter } from "./internal/StdioTransport.js"
import { MAX_SUBSCRIPTIONS } from "./Subscriptions.js"

export interface ListenDeps {
  /** Subscribes `uri` on the engine for `holder`; the error when it refuses. */
  readonly attach: (uri: string, holder: string) => Promise<ToolError | undefined>
  readonly detach: (uri: string, holder: string) => void
  /** Hands a message this filter took on to the SDK. */
  readonly deliver: (message: JSONRPCMessage) => void
  readonly send: (message: JSONRPCMessage) => void
  /** Whether the connection speaks 2025-11-25 (which has no listen: the SDK answers method not found). */
  readonly isLegacy: () => boolean
  /** Says a line on stderr, its controls escaped. */
  readonly log: (line: string) => void
}

/** The resource URIs a listen names, without repeats; undefined when it names none (the SDK answers it as it is). */
const resourceUris = (params: unknown): ReadonlyArray<string> | undefined => {
  const notifications = isRecord(params) ? params.notifications : undefined
  const uris = isRecord(notifications) ? notifications.resourceSubscriptions : undefined
  if (!Array.isArray(uris) || uris.length === 0 || !uris.every((uri) => typeof uri === "string")) return undefined
  return [...new Set(uris as ReadonlyArray<string>)]
}

/** A request id as a log line shows it: the client's text, bounded (`log` escapes the line). */
const shown = (id: RequestId): string => {
  const text = JSON.stringify(id)
  return text.length > 64 ? `${text.slice(0, 64)}…` : text
}

export const makeListens = (deps: ListenDeps): WireFilter => {
  /** Listens whose URIs are being subscribed; `cancelled` when a cancel came meanwhile. */
  const pending = new Map<RequestId, { cancelled: boolean }>()
  /** Listens handed to the SDK, with the URIs they hold. */
  const active = new Map<RequestId, ReadonlyArray<string>>()
  const holderOf = (id: RequestId) => `subscriptions/listen ${typeof id} ${String(id)}`
  const release = (id: RequestId, uris: ReadonlyArray<string>) => {
    for (const uri of uris) deps.detach(uri, holderOf(id))
  }
  const refuse = (id: RequestId, error: { code: number; message: string; data?: unknown }) => {
    deps.log(`subscriptions/listen ${shown(id)} refused: ${error.message.split("\n")[0]}`)
    deps.send({ jsonrpc: "2.0", id, error })
  }

  /** Subscribes the URIs one by one (a refusal lets go of those before it), then hands the listen on. */
  const open = async (message: JSONRPCMessage & { id: RequestId }, uris: ReadonlyArray<string>) => {
    const state = { cancelled: false }
    pending.set(message.id, state)
    const held: Array<string> = []
    try {
      for (const uri of uris) {
        if (state.cancelled) break
        const error = await deps.attach(uri, holderOf(message.id))
        if (error !== undefined) {
          release(message.id, held)
          if (!state.cancelled) refuse(message.id, resourceErrorFields(error, uri, "modern"))
          return
        }
        held.push(uri)
      }
    } finally {
      pending.delete(message.id)
    }
    if (state.cancelled) return release(message.id, held)
    active.set(message.id, held)
    deps.deliver(message)
  }

  return {
    inbound: (message) => {
      if ("method" in message && message.method === "subscriptions/listen" && "id" in message && !deps.isLegacy()) {
        const uris = resourceUris(message.params)
        // A listen naming no resource, or reusing a listen's id, is the SDK's to answer.
        if (uris === undefined || pending.has(message.id) || active.has(message.id)) return false
        if (uris.length > MAX_SUBSCRIPTIONS) {
          refuse(message.id, {
            code: ProtocolErrorCode.InvalidParams,
            message: `A listen names at most ${MAX_SUBSCRIPTIONS} resources (this one names ${uris.length}).`
          })
          return true
        }
        void open(message as JSONRPCMessage & { id: RequestId }, uris)
        return true
      }
      if ("method" in message && message.method === "notifications/cancelled" && !("id" in message)) {
        const id = isRecord(message.params) ? message.params.requestId as RequestId | undefined : undefined
        if (id === undefined) return false
        const opening = pending.get(id)
        if (opening !== undefined) {
          opening.cancelled = true
          return true
        }
        const uris = active.get(id)
        if (uris !== undefined) {
          active.delete(id)
          release(id, uris)
        }
      }
      return false
    },
    outbound: (message) => {
      // The SDK answers a listen only to end it: refused (an error) or closed by the server (a result).
      if (("error" in message || "result" in message) && message.id !== null && active.has(message.id as RequestId)) {
        const id = message.id as RequestId
        release(id, active.get(id)!)
        active.delete(id)
        if ("error" in message) deps.log(`subscriptions/listen ${shown(id)} refused: ${message.error.message}`)
      }
      return message
    }
  }
}
