/**
 * Argument schemas shared by tools: those that create and change tmux objects, and those that wait,
 * match text or bound output.
 */
import * as Schema from "effect/Schema"
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from "../../operations/bounds/OutputBudget.js"
import { DEFAULT_WAIT_SECONDS } from "../../operations/bounds/Waiting.js"
import { Int, optional } from "../Tool.js"

const MAX_ARGV_ITEMS = 32
const MAX_ARGV_ITEM_BYTES = 1024

/** A program and its arguments, run with no shell (so `$HOME`, `;` and quotes arrive as typed). */
export const CommandArgv = Schema.Array(
  Schema.String.pipe(
    Schema.filter((item) => Buffer.byteLength(item, "utf8") <= MAX_ARGV_ITEM_BYTES, {
      message: () => `each argv item must be at most ${MAX_ARGV_ITEM_BYTES} bytes`
    })
  )
).pipe(
  Schema.minItems(1),
  Schema.maxItems(MAX_ARGV_ITEMS),
  Schema.filter((argv) => argv[0] !== "" && !argv[0]!.startsWith("-"), {
    message: () => "argv[0] must name a program (not empty, not starting with '-')"
  })
)

export const commandArgument = optional(
  CommandArgv,
  `argv to run instead of the default shell, e.g. ["htop"] or ["sh","-c","make; read"]: no shell of ours parses it. 1-${MAX_ARGV_ITEMS} items, each at most ${MAX_ARGV_ITEM_BYTES} bytes.`
)

const EnvironmentObject = Schema.Record({ key: Schema.String, value: Schema.String })

/** Variables as an object, or the same object as a JSON string (some clients can only send strings). */
export const EnvironmentValue = Schema.Union(
  EnvironmentObject,
  // JSON.parse errors quote the input; the input may hold secrets.
  Schema.parseJson(EnvironmentObject).annotations({
    message: () => ({ message: "a JSON string holding an object of strings", override: true })
  })
)

export const environmentArgument = optional(
  EnvironmentValue,
  "Environment variables for the new process, as an object of strings (or that object as a JSON string). Values are visible to anyone who can inspect processes or run show-environment: pass references to secrets, not secrets."
)

/** The start directory argument; `fallback` says where the process starts when it is omitted. */
export const startDirectoryArgument = (fallback: string) =>
  optional(
    Schema.String,
    `Directory to start in; must exist. \`~\` expands; a relative path resolves against the MCP server's working directory. Default: ${fallback}.`
  )

export const suppressHistoryArgument = optional(
  Schema.Boolean,
  "Keep the new shell's history out of its history file (sets HISTFILE empty, fish private mode). Default false."
)

/** What generation means is said once, in the instructions and docs/tools.md. */
export const generationArgument = optional(Schema.String)

export const forceArgument = optional(
  Schema.Boolean,
  "Act even on the pane this MCP server runs in. Default false."
)

/** The `timeout` argument every waiting tool takes. */
export const timeoutArgument = optional(
  Schema.Number.pipe(Schema.positive(), Schema.finite()),
  `Seconds to wait (default ${DEFAULT_WAIT_SECONDS}). Clamped to the server's ceiling (LIBTMUX_MCP_WAIT_MAX_SECONDS, 30 unless the user set it); the value used is returned as effective_timeout.`
)

/** The arguments that describe patterns, shared by every tool that searches or waits for text. */
export const patternArguments = {
  regex: optional(Schema.Boolean, "Read the patterns as JavaScript regular expressions. Default false: literal text."),
  ignore_case: optional(Schema.Boolean, "Match regardless of letter case. Default false.")
}

/** run_command's output budget. */
export const budgetArguments = {
  max_lines: optional(
    Int.pipe(Schema.between(2, 10_000)),
    `At most this many output lines: the first half and the last half are kept, the middle is elided and counted. Default ${DEFAULT_MAX_LINES}.`
  ),
  max_bytes: optional(
    Int.pipe(Schema.between(256, 1_048_576)),
    `At most this many bytes of output (UTF-8), split the same way. Default ${DEFAULT_MAX_BYTES}.`
  )
}
