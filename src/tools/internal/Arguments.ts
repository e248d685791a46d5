/**
 * Argument schemas shared by tools: those that create and change tmux objects, and those that wait,
 * match text or bound output.
 */
import * as Schema from "effect/Schema"
import { DEFAULT_WAIT_SECONDS } from "../../operations/bounds/Waiting.js"
import { Int, optional } from "../Tool.js"

const MAX_ARGV_ITEMS = 32
const MAX_ARGV_ITEM_BYTES = 1024

/** A program and its arguments, run with no shell (so `$HOME`, `;` and quotes arrive as typed). */
export const CommandArgv = Schema.Array(
  Schema.String.pipe(
    Schema.check(Schema.makeFilter((item: string) => Buffer.byteLength(item, "utf8") <= MAX_ARGV_ITEM_BYTES, {
      message: `each argv item must be at most ${MAX_ARGV_ITEM_BYTES} bytes`
    }))
  )
).pipe(
  Schema.check(Schema.isMinLength(1)),
  Schema.check(Schema.isMaxLength(MAX_ARGV_ITEMS)),
  // Effect 4 runs every check even after one failed: an empty argv is the length check's to refuse.
  Schema.check(Schema.makeFilter((argv: ReadonlyArray<string>) => argv.length === 0 || (argv[0] !== "" && !argv[0]!.startsWith("-")), {
    message: "argv[0] must name a program (not empty, not starting with '-')"
  }))
)

export const commandArgument = optional(
  CommandArgv,
  "argv, no shell."
)

/**
 * Variables as an object of strings. The same object as a JSON string (some clients can only send
 * strings) is read by tools/call's lenient pass, which the argument guard checks again, so the
 * schema takes no string of its own: a string it decoded itself would skip the guard.
 */
export const EnvironmentValue = Schema.Record(Schema.String, Schema.String).annotate({
  message: "an object of strings, or that object as JSON text"
})

/**
 * Undescribed in tools/list, which has no bytes to spare: docs/tools.md says what it takes and that
 * it is visible to anyone (no secrets).
 */
export const environmentArgument = optional(EnvironmentValue)

/** The start directory argument; `fallback` says where the process starts when it is omitted. */
export const startDirectoryArgument = (fallback: string) =>
  optional(
    Schema.String,
    `Default: ${fallback}.`
  )

export const suppressHistoryArgument = optional(
  Schema.Boolean
)

/** What generation means is said once, in the instructions and docs/tools.md. */
export const generationArgument = optional(Schema.String)

/** What force does (act on the caller's pane, or a watched one) is said once, in the instructions and docs/tools.md. */
export const forceArgument = optional(Schema.Boolean)

/** A wait's timeout in seconds. */
export const TimeoutSeconds = Schema.Number.pipe(Schema.check(Schema.isGreaterThan(0)), Schema.check(Schema.isFinite()))

/** The `timeout` argument every waiting tool takes. */
export const timeoutArgument = optional(TimeoutSeconds, `Seconds, default ${DEFAULT_WAIT_SECONDS}.`)

/** Texts to match, as the waiting and searching tools take them. */
export const PatternList = Schema.Array(Schema.String)

/** The arguments that describe patterns, shared by every tool that searches or waits for text. */
export const patternArguments = {
  regex: optional(Schema.Boolean),
  ignore_case: optional(Schema.Boolean)
}

/** run_command's output budget, in lines (head and tail kept) and bytes. */
export const MaxOutputLines = Int.pipe(Schema.check(Schema.isBetween({ minimum: 2, maximum: 10_000 })))
export const MaxOutputBytes = Int.pipe(Schema.check(Schema.isBetween({ minimum: 256, maximum: 1_048_576 })))
