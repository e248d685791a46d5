/**
 * A resource request's failure (resources/read, resources/subscribe, subscriptions/listen) as a
 * JSON-RPC error: bad input is invalid params, the rest internal, and a missing object "resource
 * not found", whose code each era names: -32002 in 2025-11-25, -32602 in 2026-07-28. The message
 * and hint are a tool's; `data` has our error code and the URI asked for.
 */
import { ProtocolErrorCode } from "@modelcontextprotocol/server"
import { errorCode, resourceHint, type ToolError } from "../../domain/Errors.js"

export type Era = "legacy" | "modern"

export interface ResourceErrorFields {
  readonly code: number
  readonly message: string
  readonly data: { readonly code: string; readonly uri: string }
}

export const resourceErrorFields = (error: ToolError, uri: string, era: Era): ResourceErrorFields => ({
  code: error._tag === "InvalidInput"
    ? ProtocolErrorCode.InvalidParams
    : error._tag === "NotFound"
    ? era === "legacy" ? ProtocolErrorCode.ResourceNotFound : ProtocolErrorCode.InvalidParams
    : ProtocolErrorCode.InternalError,
  message: `${error.message}\nHint: ${resourceHint(error)}`,
  data: { code: errorCode(error), uri }
})

/** Whether an error's fields say "resource not found" (by our error code, whatever the JSON-RPC code). */
export const isResourceNotFound = (data: unknown): boolean =>
  typeof data === "object" && data !== null && (data as { code?: unknown }).code === "not_found" &&
  typeof (data as { uri?: unknown }).uri === "string"
