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
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { Failed, InvalidInput, NotFound, type TmuxError } from "../../domain/Errors.js"
import { SessionId } from "../../domain/Ids.js"
import { NonNegativeInt } from "../../domain/Model.js"
import * as Format from "../../tmux/Format.js"
import { decode, type QueryTarget, runTree } from "../../tmux/Query.js"
import { paneIdsRecord } from "../../tmux/Records.js"
import { Tmux, type TmuxCommand } from "../../tmux/Tmux.js"
import { getSession, type SessionTarget } from "../hierarchy/Hierarchy.js"
import { ENVIRONMENT_NAME } from "../lifecycle/Spawn.js"
import { ensureGeneration, type GenerationCheck } from "../servers/Servers.js"

/**
 * Where a variable lives: the global environment, or one session's (by id, by exact name, or the
 * session holding a pane).
 */
export type EnvironmentTarget = { readonly global: true } | SessionTarget

/** tmux refuses a command line longer than about 16 KiB ("command too long"). */
export const MAX_ENVIRONMENT_VALUE_BYTES = 12_288
/** How many bytes of values `showEnvironment` returns unless told otherwise. */
export const DEFAULT_ENVIRONMENT_MAX_BYTES = 65_536

const ScopeFields = {
  scope: Schema.Literals(["global", "session"]),
  session_id: Schema.NullOr(SessionId).annotate({ description: "The session, for session scope; null for global." })
}

/** A variable was set (its value is never returned). */
export const EnvironmentSet = Schema.Struct({
  name: Schema.String,
  status: Schema.Literal("set"),
  ...ScopeFields,
  value_length: NonNegativeInt.annotate({ description: "Characters in the value that was set (the value itself is never returned)." })
})
export type EnvironmentSet = typeof EnvironmentSet.Type

/** A variable was unset or removed. */
export const EnvironmentUnset = Schema.Struct({
  name: Schema.String,
  ...ScopeFields,
  mode: Schema.Literals(["unset", "removed"]).annotate({
    description:
      "unset: the entry is gone (in a session, the global value applies again); removed: new processes in the scope start without the variable."
  })
})
export type EnvironmentUnset = typeof EnvironmentUnset.Type

/** An environment's variables and removed names, bounded by bytes. */
export const EnvironmentListing = Schema.Struct({
  ...ScopeFields,
  variables: Schema.Record(Schema.String, Schema.String).annotate({
    description: "Variables set in this scope, by name."
  }),
  removed: Schema.Array(Schema.String).annotate({
    description: "Names removed in this scope (tmux's -NAME entries): new processes here start without them."
  }),
  total: NonNegativeInt.annotate({ description: "Entries in the scope (variables and removed names)." }),
  returned: NonNegativeInt,
  truncated: Schema.Boolean.annotate({ description: "Some variables were left out to stay within max_bytes." }),
  omitted_names: Schema.Array(Schema.String).annotate({
    description: "Names of variables left out (ask for one by name to read it), at most 200."
  }),
  bytes: NonNegativeInt.annotate({ description: "UTF-8 bytes of the names and values returned." })
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
export const parseShellEnvironment = (output: string): Result.Result<ParsedEnvironment, string> => {
  const variables: Array<readonly [string, string]> = []
  const removed: Array<string> = []
  let at = 0
  while (at < output.length) {
    if (output.startsWith("unset ", at)) {
      const end = output.indexOf(";\n", at)
      if (end < 0) return Result.fail(`an unterminated unset entry at offset ${at}`)
      removed.push(output.slice(at + "unset ".length, end))
      at = end + 2
      continue
    }
    const open = output.indexOf("=\"", at)
    const name = open < 0 ? "" : output.slice(at, open)
    if (name === "" || name.includes("\n")) return Result.fail(`an entry without NAME=" at offset ${at}`)
    const parts: Array<string> = []
    let cursor = open + 2
    for (;;) {
      const quote = output.indexOf("\"", cursor)
      const escape = output.indexOf("\\", cursor)
      if (quote < 0) return Result.fail(`an unterminated value for ${name}`)
      if (escape >= 0 && escape < quote) {
        // tmux escapes exactly $ ` " and \ with a backslash; the next character is literal.
        if (escape + 1 >= output.length) return Result.fail(`a dangling escape in the value of ${name}`)
        parts.push(output.slice(cursor, escape), output[escape + 1]!)
        cursor = escape + 2
        continue
      }
      parts.push(output.slice(cursor, quote))
      cursor = quote
      break
    }
    const tail = `"; export ${name};\n`
    if (!output.startsWith(tail, cursor)) return Result.fail(`an unexpected ending after the value of ${name}`)
    variables.push([name, parts.join("")])
    at = cursor + tail.length
  }
  return Result.succeed({ variables, removed })
}

/** A key that JSON objects decoded by Effect Schema cannot carry as data; never set, never listed. */
const UNREPRESENTABLE_NAME = "__proto__"

const checkName = (name: string): Effect.Effect<void, InvalidInput> =>
  !ENVIRONMENT_NAME.test(name)
    ? Effect.fail(new InvalidInput({ reason: "name must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)." }))
    : name === UNREPRESENTABLE_NAME
    ? Effect.fail(new InvalidInput({ reason: `${UNREPRESENTABLE_NAME} is not supported as a variable name.` }))
    : Effect.void

/** A session's id and name, from the session a `-t` target resolves to. */
const sessionNameRecord = Format.record("snm", {
  session_id: Format.string("session_id"),
  session_name: Format.string("session_name")
})

/**
 * How one invocation addresses the scope: the environment command's flags and, for a session not
 * given by id, a lookup that runs first in the same command list and names the session.
 */
interface ScopePlan {
  readonly scope: "global" | "session"
  readonly flags: ReadonlyArray<string>
  /** The session's id when the target gives it (null for the global scope or a lookup). */
  readonly sessionId: string | null
  readonly lookup?: Lookup
}

interface Lookup {
  /** Commands that print the session's records; they fail (NotFound) when the target does not exist. */
  readonly commands: (marks: Format.Marks) => ReadonlyArray<TmuxCommand>
  /** The object the target names, for the errors of the command list. */
  readonly target: QueryTarget
  /** The session's id, from the records. */
  readonly sessionId: (output: Format.ParsedOutput) => Effect.Effect<string, NotFound | Failed>
}

const GLOBAL: ScopePlan = { scope: "global", flags: ["-g"], sessionId: null }

const byId = (id: string): ScopePlan => ({ scope: "session", flags: ["-t", id], sessionId: id })

/** The session of a pane: tmux resolves `-t %N` the same way in the lookup and in the environment command. */
const byPane = (socket: ResolvedSocket, paneId: string): ScopePlan => ({
  scope: "session",
  flags: ["-t", paneId],
  sessionId: null,
  lookup: {
    commands: (m) => [["list-panes", "-t", paneId, "-F", paneIdsRecord.format(m)]],
    target: { kind: "pane", id: paneId },
    sessionId: (output) =>
      Effect.flatMap(decode(paneIdsRecord, output), (rows) => {
        const row = rows.find((r) => r.pane_id === paneId)
        return row === undefined
          ? Effect.fail(new NotFound({ kind: "pane", target: paneId, socket: socket.label }))
          : Effect.succeed(row.session_id)
      })
  }
})

/**
 * Whether `-t =name` can find a session of this name. `=` makes tmux match the name exactly (no
 * prefix or pattern match), but tmux never stores ':' or '.' in a session name (a target splits
 * there into window and pane), reads a target starting with '$' as a session id even after '=',
 * and takes a lone `=` for the mouse target.
 */
const addressableByName = (name: string): boolean => name !== "" && !name.startsWith("$") && !/[:.]/.test(name)

/**
 * A session by exact name, for a read. When no session has the name, tmux tries it as a client's
 * name (`client-123`, `pts/3`) and takes that client's session; the lookup prints the session's own
 * name, and any other name than the one asked for is NotFound (what was read with it is dropped).
 * `list-windows -f '#{window_active}'` prints one record per session.
 */
const byName = (socket: ResolvedSocket, name: string): ScopePlan => ({
  scope: "session",
  flags: ["-t", `=${name}`],
  sessionId: null,
  lookup: {
    commands: (m) => [["list-windows", "-t", `=${name}`, "-f", "#{window_active}", "-F", sessionNameRecord.format(m)]],
    target: { kind: "session", id: name },
    sessionId: (output) =>
      Effect.flatMap(decode(sessionNameRecord, output), (rows) =>
        rows[0] !== undefined && rows[0].session_name === name
          ? Effect.succeed(rows[0].session_id)
          : Effect.fail(new NotFound({ kind: "session", target: name, socket: socket.label })))
  }
})

/**
 * The plan for a change: a session name is first looked up in the session list (a second
 * invocation), because `-t =name` would change a client's session when no session has the name.
 */
const planChange = (socket: ResolvedSocket, target: EnvironmentTarget): Effect.Effect<ScopePlan, TmuxError, Tmux> =>
  "global" in target
    ? Effect.succeed(GLOBAL)
    : "session_id" in target
    ? Effect.succeed(byId(target.session_id))
    : "pane_id" in target
    ? Effect.succeed(byPane(socket, target.pane_id))
    : Effect.map(getSession(socket, target), (session) => byId(session.session_id))

/** The plan for a read: one invocation, except for a session name `-t =name` cannot address (see `addressableByName`). */
const planRead = (socket: ResolvedSocket, target: EnvironmentTarget): Effect.Effect<ScopePlan, TmuxError, Tmux> =>
  "session_name" in target && addressableByName(target.session_name)
    ? Effect.succeed(byName(socket, target.session_name))
    : planChange(socket, target)

const run = (socket: ResolvedSocket, commands: ReadonlyArray<TmuxCommand>) => Effect.flatMap(Tmux, (tmux) => tmux.run(socket, commands))

/** Printed between the lookup's records and the environment command's plain text. */
const textMark = (marks: Format.Marks): string => `${marks.record}txt`

/**
 * Runs the plan's lookup (if any), then `command`, in one invocation. Returns the session id and
 * what `command` printed.
 */
const runPlan = (
  socket: ResolvedSocket,
  plan: ScopePlan,
  command: TmuxCommand
): Effect.Effect<{ readonly sessionId: string | null; readonly text: string }, TmuxError, Tmux> =>
  Effect.gen(function*() {
    const lookup = plan.lookup
    if (lookup === undefined) return { sessionId: plan.sessionId, text: yield* run(socket, [command]) }
    const { kind, id } = lookup.target
    const marks = Format.newMarks()
    const raw = yield* runTree(socket, [...lookup.commands(marks), ["display-message", "-p", textMark(marks)], command], lookup.target)
      .pipe(
        // tmux words a missing target its own way (a name may come back trimmed): name it as asked.
        Effect.catchTag("NotFound", (error) => Effect.fail(new NotFound({ kind, target: id, socket: error.socket }))),
        Effect.map((printed) => Format.withRawMarks(printed, marks))
      )
    const mark = `${textMark(marks)}\n`
    const at = raw.indexOf(mark)
    if (at < 0) return yield* Effect.fail(Format.unreadable("show-environment", "tmux printed no text mark"))
    return {
      sessionId: yield* lookup.sessionId(Format.parseOutput(raw.slice(0, at), marks)),
      text: raw.slice(at + mark.length)
    }
  })

/**
 * Sets a variable for processes tmux starts later in the scope. The value reaches tmux as one argv
 * element and is never echoed: errors name the command, not the arguments.
 */
export const setEnvironment = Effect.fn("Environment.setEnvironment")((
  socket: ResolvedSocket,
  target: EnvironmentTarget,
  name: string,
  value: string,
  options: GenerationCheck = {}
): Effect.Effect<EnvironmentSet, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    yield* checkName(name)
    // Node refuses argv with NUL bytes in an exception that quotes the argument.
    if (value.includes("\0")) return yield* Effect.fail(new InvalidInput({ reason: "value must not contain NUL characters." }))
    if (Buffer.byteLength(value, "utf8") > MAX_ENVIRONMENT_VALUE_BYTES) {
      return yield* Effect.fail(
        new InvalidInput({
          reason: `value must be at most ${MAX_ENVIRONMENT_VALUE_BYTES} bytes (tmux limits one command to about 16 KiB).`
        })
      )
    }
    const plan = yield* planChange(socket, target)
    // `--` keeps a value that starts with "-" from reading as a flag.
    const { sessionId } = yield* runPlan(socket, plan, ["set-environment", ...plan.flags, "--", name, value])
    return { name, status: "set" as const, scope: plan.scope, session_id: sessionId, value_length: [...value].length }
  })
)

/**
 * `unset` deletes the entry (in a session the global value then applies again); `removed` makes new
 * processes in the scope start without the variable even when a wider scope sets it.
 */
export const unsetEnvironment = Effect.fn("Environment.unsetEnvironment")((
  socket: ResolvedSocket,
  target: EnvironmentTarget,
  name: string,
  mode: "unset" | "removed",
  options: GenerationCheck = {}
): Effect.Effect<EnvironmentUnset, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    yield* checkName(name)
    const plan = yield* planChange(socket, target)
    const { sessionId } = yield* runPlan(socket, plan, ["set-environment", ...plan.flags, mode === "unset" ? "-u" : "-r", "--", name])
    return { name, scope: plan.scope, session_id: sessionId, mode }
  })
)

const isUnknownVariable = (error: TmuxError): boolean =>
  error._tag === "Failed" && error.reason === "exit" && /unknown variable/.test(error.stderr)

/**
 * The scope's entries (a session's own entries only, not the global ones it inherits), or the one
 * named; a name that is not set is an empty listing. Values are returned whole or not at all:
 * variables that do not fit within `maxBytes` are named in `omitted_names`.
 */
export const showEnvironment = Effect.fn("Environment.showEnvironment")((
  socket: ResolvedSocket,
  target: EnvironmentTarget,
  options: { readonly name?: string | undefined; readonly maxBytes?: number | undefined } = {}
): Effect.Effect<EnvironmentListing, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    if (options.name !== undefined) yield* checkName(options.name)
    const plan = yield* planRead(socket, target)
    // After a lookup the whole scope is read and the name picked here: tmux fails on a name that is
    // not set, and the failure would take the lookup's records with it.
    const asked = plan.lookup === undefined ? options.name : undefined
    const command = ["show-environment", "-s", ...plan.flags, ...(asked === undefined ? [] : ["--", asked])]
    const { sessionId, text } = yield* runPlan(socket, plan, command).pipe(
      Effect.catchIf(
        (error) => asked !== undefined && isUnknownVariable(error),
        () => Effect.succeed({ sessionId: plan.sessionId, text: "" })
      )
    )
    const parsed = parseShellEnvironment(text)
    if (Result.isFailure(parsed)) {
      return yield* Effect.fail(
        new Failed({ command: "show-environment", reason: "unparseable", exitCode: null, stderr: parsed.failure })
      )
    }
    const wanted = (name: string) => options.name === undefined || name === options.name
    const entries = parsed.success.variables.filter(([name]) => wanted(name))
    const removedNames = parsed.success.removed.filter(wanted)
    const budget = options.maxBytes ?? DEFAULT_ENVIRONMENT_MAX_BYTES
    const variables: Array<readonly [string, string]> = []
    const omitted: Array<string> = []
    let bytes = 0
    for (const [name, value] of entries) {
      const size = Buffer.byteLength(name, "utf8") + Buffer.byteLength(value, "utf8")
      if (bytes + size > budget || name === UNREPRESENTABLE_NAME) {
        omitted.push(name)
        continue
      }
      bytes += size
      variables.push([name, value])
    }
    const removed: Array<string> = []
    for (const name of removedNames) {
      const size = Buffer.byteLength(name, "utf8")
      if (bytes + size > budget) {
        omitted.push(name)
        continue
      }
      bytes += size
      removed.push(name)
    }
    const total = entries.length + removedNames.length
    return {
      scope: plan.scope,
      session_id: sessionId,
      variables: Object.fromEntries(variables),
      removed,
      total,
      returned: total - omitted.length,
      truncated: omitted.length > 0,
      omitted_names: omitted.slice(0, MAX_OMITTED_NAMES),
      bytes
    }
  })
)
