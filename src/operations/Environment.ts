/**
 * The tmux environment: the variables that processes tmux starts later (new sessions, windows,
 * panes, respawns) begin with, globally or per session. A session's own entries override the
 * global ones; a removed entry (`-NAME`) keeps a global variable out of that scope's new processes.
 *
 * Reading uses `show-environment -s`. The plain form prints `NAME=value` with the value raw, so a
 * value holding a newline reads as two entries; `-s` prints `NAME="value"; export NAME;` with
 * `$ \` " \\` escaped inside the quotes (and `unset NAME;` for a removed one), which parses without
 * ambiguity whatever the value holds.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { Failed, InvalidInput, type TmuxError } from "../domain/Errors.js"
import { SessionId } from "../domain/Ids.js"
import type { ResolvedSocket } from "../services/SocketResolver.js"
import { Tmux, type TmuxCommand } from "../tmux/Tmux.js"
import { getSession, type SessionTarget } from "./Hierarchy.js"
import { ENVIRONMENT_NAME } from "./Spawn.js"

/** Where a variable lives: the global environment, or one session's (by id or exact name). */
export type EnvironmentTarget = { readonly global: true } | SessionTarget

/** tmux refuses a command line longer than about 16 KiB ("command too long"). */
export const MAX_ENVIRONMENT_VALUE_BYTES = 12_288
export const DEFAULT_ENVIRONMENT_MAX_BYTES = 65_536

const NonNegativeInt = Schema.Number.pipe(Schema.int(), Schema.nonNegative())

const ScopeFields = {
  scope: Schema.Literal("global", "session"),
  session_id: Schema.NullOr(SessionId).annotations({ description: "The session, for session scope; null for global." })
}

export const EnvironmentSet = Schema.Struct({
  name: Schema.String,
  ...ScopeFields,
  value_length: NonNegativeInt.annotations({ description: "Characters in the value that was set (the value itself is never returned)." })
})
export type EnvironmentSet = typeof EnvironmentSet.Type

export const EnvironmentUnset = Schema.Struct({
  name: Schema.String,
  ...ScopeFields,
  mode: Schema.Literal("unset", "removed").annotations({
    description:
      "unset: the entry is gone (in a session, the global value applies again); removed: new processes in the scope start without the variable."
  })
})
export type EnvironmentUnset = typeof EnvironmentUnset.Type

export const EnvironmentListing = Schema.Struct({
  ...ScopeFields,
  variables: Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
    description: "Variables set in this scope, by name."
  }),
  removed: Schema.Array(Schema.String).annotations({
    description: "Names removed in this scope (tmux's -NAME entries): new processes here start without them."
  }),
  total: NonNegativeInt.annotations({ description: "Entries in the scope (variables and removed names)." }),
  returned: NonNegativeInt,
  truncated: Schema.Boolean.annotations({ description: "Some variables were left out to stay within max_bytes." }),
  omitted_names: Schema.Array(Schema.String).annotations({
    description: "Names of variables left out (ask for one by name to read it), at most 200."
  }),
  bytes: NonNegativeInt.annotations({ description: "UTF-8 bytes of the names and values returned." })
})
export type EnvironmentListing = typeof EnvironmentListing.Type

const MAX_OMITTED_NAMES = 200

export interface ParsedEnvironment {
  /** In tmux's order (sorted by name). */
  readonly variables: ReadonlyArray<readonly [name: string, value: string]>
  readonly removed: ReadonlyArray<string>
}

/**
 * Parses `show-environment -s` output. Fails (with a description, never the values) on anything
 * that does not follow the format exactly, rather than guess.
 */
export const parseShellEnvironment = (output: string): Either.Either<ParsedEnvironment, string> => {
  const variables: Array<readonly [string, string]> = []
  const removed: Array<string> = []
  let at = 0
  while (at < output.length) {
    if (output.startsWith("unset ", at)) {
      const end = output.indexOf(";\n", at)
      if (end < 0) return Either.left(`an unterminated unset entry at offset ${at}`)
      removed.push(output.slice(at + "unset ".length, end))
      at = end + 2
      continue
    }
    const open = output.indexOf('="', at)
    const name = open < 0 ? "" : output.slice(at, open)
    if (name === "" || name.includes("\n")) return Either.left(`an entry without NAME=" at offset ${at}`)
    const parts: Array<string> = []
    let cursor = open + 2
    for (;;) {
      const quote = output.indexOf('"', cursor)
      const escape = output.indexOf("\\", cursor)
      if (quote < 0) return Either.left(`an unterminated value for ${name}`)
      if (escape >= 0 && escape < quote) {
        // tmux escapes exactly $ ` " and \ with a backslash; the next character is literal.
        if (escape + 1 >= output.length) return Either.left(`a dangling escape in the value of ${name}`)
        parts.push(output.slice(cursor, escape), output[escape + 1]!)
        cursor = escape + 2
        continue
      }
      parts.push(output.slice(cursor, quote))
      cursor = quote
      break
    }
    const tail = `"; export ${name};\n`
    if (!output.startsWith(tail, cursor)) return Either.left(`an unexpected ending after the value of ${name}`)
    variables.push([name, parts.join("")])
    at = cursor + tail.length
  }
  return Either.right({ variables, removed })
}

/** A key that JSON objects decoded by Effect Schema cannot carry as data; never set, never listed. */
const UNREPRESENTABLE_NAME = "__proto__"

const checkName = (name: string): Effect.Effect<void, InvalidInput> =>
  !ENVIRONMENT_NAME.test(name)
    ? Effect.fail(new InvalidInput({ reason: "name must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)." }))
    : name === UNREPRESENTABLE_NAME
      ? Effect.fail(new InvalidInput({ reason: `${UNREPRESENTABLE_NAME} is not supported as a variable name.` }))
      : Effect.void

interface ResolvedScope {
  readonly flags: ReadonlyArray<string>
  readonly scope: "global" | "session"
  readonly session_id: string | null
}

/** A session name is matched exactly here; tmux's own `-t name` would also accept a prefix. */
const resolveScope = (socket: ResolvedSocket, target: EnvironmentTarget): Effect.Effect<ResolvedScope, TmuxError, Tmux> => {
  if ("global" in target) return Effect.succeed({ flags: ["-g"], scope: "global", session_id: null })
  const byId = (id: string): ResolvedScope => ({ flags: ["-t", id], scope: "session", session_id: id })
  return "session_id" in target
    ? Effect.succeed(byId(target.session_id))
    : Effect.map(getSession(socket, target), (session) => byId(session.session_id))
}

const run = (socket: ResolvedSocket, commands: ReadonlyArray<TmuxCommand>) =>
  Effect.flatMap(Tmux, (tmux) => tmux.run(socket, commands))

/**
 * Sets a variable for processes tmux starts later in the scope. The value reaches tmux as one argv
 * element and is never echoed: errors name the command, not the arguments.
 */
export const setEnvironment = (
  socket: ResolvedSocket,
  target: EnvironmentTarget,
  name: string,
  value: string
): Effect.Effect<EnvironmentSet, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function* () {
    yield* checkName(name)
    // Node refuses argv with NUL bytes in an exception that quotes the argument.
    if (value.includes("\0")) return yield* Effect.fail(new InvalidInput({ reason: "value must not contain NUL characters." }))
    if (Buffer.byteLength(value, "utf8") > MAX_ENVIRONMENT_VALUE_BYTES) {
      return yield* Effect.fail(
        new InvalidInput({ reason: `value must be at most ${MAX_ENVIRONMENT_VALUE_BYTES} bytes (tmux limits one command to about 16 KiB).` })
      )
    }
    const scope = yield* resolveScope(socket, target)
    // `--` keeps a value that starts with "-" from reading as a flag.
    yield* run(socket, [["set-environment", ...scope.flags, "--", name, value]])
    return { name, scope: scope.scope, session_id: scope.session_id, value_length: [...value].length }
  })

/**
 * `unset` deletes the entry (in a session the global value then applies again); `removed` makes new
 * processes in the scope start without the variable even when a wider scope sets it.
 */
export const unsetEnvironment = (
  socket: ResolvedSocket,
  target: EnvironmentTarget,
  name: string,
  mode: "unset" | "removed"
): Effect.Effect<EnvironmentUnset, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function* () {
    yield* checkName(name)
    const scope = yield* resolveScope(socket, target)
    yield* run(socket, [["set-environment", ...scope.flags, mode === "unset" ? "-u" : "-r", "--", name]])
    return { name, scope: scope.scope, session_id: scope.session_id, mode }
  })

const isUnknownVariable = (error: TmuxError): boolean =>
  error._tag === "Failed" && error.reason === "exit" && /unknown variable/.test(error.stderr)

/**
 * The scope's entries (a session's own entries only, not the global ones it inherits), or the one
 * named; a name that is not set is an empty listing. Values are returned whole or not at all:
 * variables that do not fit within `maxBytes` are named in `omitted_names`.
 */
export const showEnvironment = (
  socket: ResolvedSocket,
  target: EnvironmentTarget,
  options: { readonly name?: string | undefined; readonly maxBytes?: number | undefined } = {}
): Effect.Effect<EnvironmentListing, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function* () {
    if (options.name !== undefined) yield* checkName(options.name)
    const scope = yield* resolveScope(socket, target)
    const command = ["show-environment", "-s", ...scope.flags, ...(options.name === undefined ? [] : ["--", options.name])]
    const output = yield* run(socket, [command]).pipe(
      Effect.catchIf(
        (error) => options.name !== undefined && isUnknownVariable(error),
        () => Effect.succeed("")
      )
    )
    const parsed = parseShellEnvironment(output)
    if (Either.isLeft(parsed)) {
      return yield* Effect.fail(
        new Failed({ command: "show-environment", reason: "unparseable", exitCode: null, stderr: parsed.left })
      )
    }
    const budget = options.maxBytes ?? DEFAULT_ENVIRONMENT_MAX_BYTES
    const variables: Array<readonly [string, string]> = []
    const omitted: Array<string> = []
    let bytes = 0
    for (const [name, value] of parsed.right.variables) {
      const size = Buffer.byteLength(name, "utf8") + Buffer.byteLength(value, "utf8")
      if (bytes + size > budget || name === UNREPRESENTABLE_NAME) {
        omitted.push(name)
        continue
      }
      bytes += size
      variables.push([name, value])
    }
    const removed: Array<string> = []
    for (const name of parsed.right.removed) {
      const size = Buffer.byteLength(name, "utf8")
      if (bytes + size > budget) {
        omitted.push(name)
        continue
      }
      bytes += size
      removed.push(name)
    }
    const total = parsed.right.variables.length + parsed.right.removed.length
    return {
      scope: scope.scope,
      session_id: scope.session_id,
      variables: Object.fromEntries(variables),
      removed,
      total,
      returned: total - omitted.length,
      truncated: omitted.length > 0,
      omitted_names: omitted.slice(0, MAX_OMITTED_NAMES),
      bytes
    }
  })
