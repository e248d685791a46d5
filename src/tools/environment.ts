/** The tmux environment: set_environment, unset_environment, show_environment. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type ResolvedSocket, resolveSocket } from "../context/SocketResolver.js"
import { InvalidInput, type ToolError } from "../domain/Errors.js"
import { SessionId } from "../domain/Ids.js"
import {
  DEFAULT_ENVIRONMENT_MAX_BYTES,
  EnvironmentListing,
  EnvironmentSet,
  type EnvironmentTarget,
  EnvironmentUnset,
  MAX_ENVIRONMENT_VALUE_BYTES,
  setEnvironment,
  showEnvironment,
  unsetEnvironment
} from "../operations/environment/Environment.js"
import { ENVIRONMENT_NAME } from "../operations/lifecycle/Spawn.js"
import { generationArgument } from "./internal/Arguments.js"
import { callerPaneId } from "./internal/CallerTarget.js"
import { defineTool, Int, optional, socketArguments, type ToolServices } from "./Tool.js"

const EnvironmentName = Schema.String.pipe(
  Schema.pattern(ENVIRONMENT_NAME, {
    message: () => "must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)",
    description: "Variable name: a letter or _, then letters, digits or _."
  })
)

const scopeArguments = {
  session_id: optional(SessionId, "The session whose environment to use."),
  session_name: optional(Schema.String, "The session, by exact name (no prefix matching)."),
  global: optional(Schema.Boolean, "true: the global environment, which every session inherits.")
}

interface ScopeInput {
  readonly session_id?: string
  readonly session_name?: string
  readonly global?: boolean
}

/** The explicit scope, or none; more than one is an error. */
const explicitScope = (input: ScopeInput): Effect.Effect<EnvironmentTarget | undefined, InvalidInput> => {
  const given: Array<EnvironmentTarget> = []
  if (input.session_id !== undefined) given.push({ session_id: input.session_id })
  if (input.session_name !== undefined) given.push({ session_name: input.session_name })
  if (input.global === true) given.push({ global: true })
  return given.length > 1
    ? Effect.fail(new InvalidInput({ reason: "Pass one scope: session_id, session_name or global: true." }))
    : Effect.succeed(given[0])
}

/** Mutations never guess a scope. */
const requiredScope = (input: ScopeInput): Effect.Effect<EnvironmentTarget, InvalidInput> =>
  Effect.flatMap(explicitScope(input), (scope) =>
    scope !== undefined
      ? Effect.succeed(scope)
      : Effect.fail(
        new InvalidInput({ reason: "Pass session_id, session_name or global: true; the scope is never guessed for a change." })
      ))

/** Reads default to the caller's own session (only inside tmux, on that server). */
const readScope = (socket: ResolvedSocket, input: ScopeInput): Effect.Effect<EnvironmentTarget, ToolError, ToolServices> =>
  Effect.flatMap(explicitScope(input), (scope) =>
    scope !== undefined
      ? Effect.succeed(scope)
      : Effect.map(callerPaneId(socket, "session_id"), (paneId): EnvironmentTarget => ({ pane_id: paneId })))

const PROPAGATION_WARNING =
  "Warning: values set here propagate into every shell tmux later spawns in that scope, including panes the user opens by hand, not only panes you drive. Writing PATH, LD_PRELOAD, BASH_ENV, ENV, PROMPT_COMMAND or AWS_* can change commands the user types later, and the change lasts until it is unset or the tmux server exits. To override a variable for one command, prefer `env VAR=value command` via send_keys."

export const setEnvironmentTool = defineTool({
  name: "set_environment",
  title: "Set tmux Environment Variable",
  description:
    `Sets a variable in the tmux environment of one session (session_id or exact session_name) or the global one (global: true); one scope is required. New panes, windows and sessions started afterwards inherit it; running processes do not change. ${PROPAGATION_WARNING} The value is never returned, logged or echoed in errors: the result carries value_length.`,
  tier: "mutating",
  group: "environment",
  hints: { idempotent: true, destructive: true, openWorld: true },
  input: Schema.Struct({
    name: EnvironmentName,
    value: Schema.String.annotations({
      description: `The value (at most ${MAX_ENVIRONMENT_VALUE_BYTES} bytes). Kept out of the audit log and of results.`
    }),
    ...scopeArguments,
    generation: generationArgument,
    ...socketArguments
  }),
  output: EnvironmentSet,
  payloadArguments: ["value"],
  handler: (input) =>
    Effect.gen(function*() {
      const scope = yield* requiredScope(input)
      const socket = yield* resolveSocket(input)
      return yield* setEnvironment(socket, scope, input.name, input.value, { generation: input.generation })
    })
})

export const unsetEnvironmentTool = defineTool({
  name: "unset_environment",
  title: "Unset tmux Environment Variable",
  description:
    "Takes a variable out of the tmux environment of one session (session_id or exact session_name) or the global one (global: true); one scope is required. Default: the entry is deleted, so in a session the global value applies again. remove: true instead marks it removed (tmux's -r), so new processes in the scope start without the variable even when the global environment sets it. Running processes do not change.",
  tier: "mutating",
  group: "environment",
  hints: { idempotent: true, destructive: true, openWorld: true },
  input: Schema.Struct({
    name: EnvironmentName,
    remove: optional(
      Schema.Boolean,
      "true: keep the variable out of new processes in this scope even when a wider scope sets it (tmux's -r). Default false."
    ),
    ...scopeArguments,
    generation: generationArgument,
    ...socketArguments
  }),
  output: EnvironmentUnset,
  handler: (input) =>
    Effect.gen(function*() {
      const scope = yield* requiredScope(input)
      const socket = yield* resolveSocket(input)
      return yield* unsetEnvironment(socket, scope, input.name, input.remove === true ? "removed" : "unset", {
        generation: input.generation
      })
    })
})

export const showEnvironmentTool = defineTool({
  name: "show_environment",
  title: "Show tmux Environment",
  description:
    `The tmux environment of one session (session_id or exact session_name; default: the caller's own session when this MCP server runs inside tmux on that server) or the global one (global: true): variables by name, plus removed names (entries that keep a global variable out of the session's new processes). A session lists only its own entries; new processes there get the global ones overlaid with these. name reads one variable (an unset name gives an empty result). Values are exact, newlines included, and may hold secrets from the user's environment: ask for one name when that is all you need. At most max_bytes (default ${DEFAULT_ENVIRONMENT_MAX_BYTES}) of names and values; variables left out are named in omitted_names. A dead server is no_server.`,
  tier: "readonly",
  group: "environment",
  hints: { idempotent: true },
  input: Schema.Struct({
    ...scopeArguments,
    name: optional(EnvironmentName, "Only this variable."),
    max_bytes: optional(
      Int.pipe(Schema.between(1, 1_048_576)),
      `At most this many bytes of names and values (default ${DEFAULT_ENVIRONMENT_MAX_BYTES}).`
    ),
    ...socketArguments
  }),
  output: EnvironmentListing,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      const scope = yield* readScope(socket, input)
      return yield* showEnvironment(socket, scope, { name: input.name, maxBytes: input.max_bytes })
    })
})

export const environmentTools = [setEnvironmentTool, unsetEnvironmentTool, showEnvironmentTool]
