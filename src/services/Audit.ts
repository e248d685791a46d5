/**
 * One JSON line per tool call on stderr (stdout belongs to the protocol). Payload arguments — text
 * typed into panes, commands, environment values — are recorded as length + short hash only.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createHash } from "node:crypto"
import type { ErrorCode } from "../domain/Errors.js"

/**
 * One tool call: the tool, its outcome and error code, how long it took, and its arguments with
 * payloads reduced to length and hash. A call that runs others (run_batch) is `partial` when it
 * ran but some of its operations failed or were skipped (each has its own record too).
 */
export interface AuditRecord {
  readonly tool: string
  readonly outcome: "ok" | "error" | "partial"
  readonly error_code: ErrorCode | null
  /** With `partial`: how many operations failed or were skipped. */
  readonly failed_operations?: number
  readonly duration_ms: number
  readonly arguments: unknown
}

/** Where records go. */
export interface AuditShape {
  readonly record: (record: AuditRecord) => Effect.Effect<void>
}

/** The audit log of tool calls: `layer` writes JSON lines to stderr, `silent` drops them. */
export class Audit extends Context.Service<Audit, AuditShape>()("effect-tmux-mcp/Audit") {
  /** Writes to the process's stderr. */
  static readonly layer: Layer.Layer<Audit> = Layer.succeed(Audit, {
    record: (record) =>
      Effect.sync(() => {
        process.stderr.write(`${JSON.stringify({ audit: true, time: new Date().toISOString(), ...record })}\n`)
      })
  })
  /** Drops records (embedders that keep their own log). */
  static readonly silent: Layer.Layer<Audit> = Layer.succeed(Audit, { record: () => Effect.void })
}

/** Arguments whose values are payloads in every tool, beyond what a tool declares itself. */
const ALWAYS_PAYLOAD = ["keys", "text", "command", "value", "content", "shell", "environment"]

/** JSON for hashing; a value too deep to serialize (a refused call's) still gets a digest. */
const serialized = (value: unknown): string => {
  try {
    return JSON.stringify(value) ?? ""
  } catch {
    return "(too deep to serialize)"
  }
}

const digest = (value: unknown) => {
  const text = typeof value === "string" ? value : serialized(value)
  return { length: text.length, sha256: createHash("sha256").update(text).digest("hex").slice(0, 12) }
}

const MAX_LOGGED_CHARS = 200
/** Levels of nested objects and lists logged below an argument, and entries logged per level. */
const MAX_LOGGED_DEPTH = 4
const MAX_LOGGED_ENTRIES = 32

const cutString = (text: string) => (text.length > MAX_LOGGED_CHARS ? `${text.slice(0, MAX_LOGGED_CHARS)}… (${text.length} chars)` : text)

/** A bounded copy of a non-payload value: long strings cut, deep or long structures elided. */
const bounded = (value: unknown, depth: number): unknown => {
  if (typeof value === "string") return cutString(value)
  if (typeof value !== "object" || value === null) return value
  if (depth >= MAX_LOGGED_DEPTH) return "…"
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value)
  const kept = entries.slice(0, MAX_LOGGED_ENTRIES).map(([key, item]) => [cutString(key), bounded(item, depth + 1)] as const)
  if (Array.isArray(value)) {
    return entries.length > MAX_LOGGED_ENTRIES
      ? [...kept.map(([, item]) => item), `… (${entries.length} items)`]
      : kept.map(([, item]) => item)
  }
  return Object.fromEntries(entries.length > MAX_LOGGED_ENTRIES ? [...kept, ["…", `${entries.length} keys`]] : kept)
}

/**
 * A copy of the arguments safe to log: payloads become `{ length, sha256 }`, long strings are cut,
 * and deep or long structures are elided, so a line stays short whatever a caller sent.
 */
export const redactArguments = (args: unknown, payloadArguments: ReadonlyArray<string> = []): unknown => {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args === undefined ? {} : digest(args)
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(args).slice(0, MAX_LOGGED_ENTRIES)) {
    if (ALWAYS_PAYLOAD.includes(key) || payloadArguments.includes(key)) {
      // For an environment object the names are useful and not secret; the values are.
      out[cutString(key)] = typeof value === "object" && value !== null && !Array.isArray(value)
        ? Object.fromEntries(Object.entries(value).slice(0, MAX_LOGGED_ENTRIES).map(([name, v]) => [cutString(name), digest(v)]))
        : digest(value)
    } else {
      out[cutString(key)] = bounded(value, 0)
    }
  }
  return out
}
