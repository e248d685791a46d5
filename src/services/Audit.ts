/**
 * One JSON line per tool call on stderr (stdout belongs to the protocol). Payload arguments — text
 * typed into panes, commands, environment values — are recorded as length + short hash only.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createHash } from "node:crypto"
import type { ErrorCode } from "../domain/Errors.js"

export interface AuditRecord {
  readonly tool: string
  readonly outcome: "ok" | "error"
  readonly error_code: ErrorCode | null
  readonly duration_ms: number
  readonly arguments: unknown
}

export interface AuditShape {
  readonly record: (record: AuditRecord) => Effect.Effect<void>
}

export class Audit extends Context.Tag("effect-tmux-mcp/Audit")<Audit, AuditShape>() {
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

const digest = (value: unknown) => {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? ""
  return { length: text.length, sha256: createHash("sha256").update(text).digest("hex").slice(0, 12) }
}

/** A copy of the arguments safe to log: payloads become `{ length, sha256 }`, long strings are cut. */
export const redactArguments = (args: unknown, payloadArguments: ReadonlyArray<string> = []): unknown => {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args === undefined ? {} : digest(args)
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(args)) {
    if (ALWAYS_PAYLOAD.includes(key) || payloadArguments.includes(key)) {
      // For an environment object the names are useful and not secret; the values are.
      out[key] =
        typeof value === "object" && value !== null && !Array.isArray(value)
          ? Object.fromEntries(Object.entries(value).map(([name, v]) => [name, digest(v)]))
          : digest(value)
    } else if (typeof value === "string" && value.length > 200) {
      out[key] = `${value.slice(0, 200)}… (${value.length} chars)`
    } else {
      out[key] = value
    }
  }
  return out
}
