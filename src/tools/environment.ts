/** The tmux environment: set_environment, unset_environment, show_environment. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type ResolvedSocket, resolveSocket } from "../context/SocketResolver.js"
import { InvalidInput, type ToolError } from "../domain/Errors.js"
import { SessionId } from "../domain/Ids.js"
import {
  EnvironmentListing,
  EnvironmentSet,
  type EnvironmentTarget,
  EnvironmentUnset,
  setEnvironment,
  showEnvironment,
  unsetEnvironment
} from "../operations/environment/Environment.js"
import { ENVIRONMENT_NAME } from "../operations/lifecycle/Spawn.js"
import { generationArgument } from "./internal/Arguments.js"
import { callerPaneId } from "./internal/CallerTarget.js"
import { defineTool, Int, optional, socketArguments, type ToolServices } from "./Tool.js"

const EnvironmentName = Schema.String.pipe(
  Schema.check(Schema.isPattern(ENVIRONMENT_NAME, {
    message: "must be an environment variable name ([A-Za-z_][A-Za-z0-9_]*)"
  }))
)

const scopeArguments = {
  session_id: optional(SessionId),
  session_name: optional(Schema.String),
  global: optional(Schema.Boolean)
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

export const setEnvironmentTool = defineTool({
  name: "set_environment",
  title: "Set tmux Environment Variable",
  description:
    "Sets a variable in a session's or the global tmux environment; new panes inherit it, the user's too. Returns value_length, never the value.",
  tier: "mutating",
  group: "environment",
  hints: { idempotent: true, destructive: true, openWorld: true },
  input: Schema.Struct({
    name: EnvironmentName,
    value: Schema.String,
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
  description: "Removes a variable from a session's or the global tmux environment.",
  tier: "mutating",
  group: "environment",
  hints: { idempotent: true, destructive: true, openWorld: true },
  input: Schema.Struct({
    name: EnvironmentName,
    remove: optional(
      Schema.Boolean,
      "tmux's -r."
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
  description: "A session's (default the caller's) or the global tmux environment. Values may be secrets: ask for one name.",
  tier: "readonly",
  group: "environment",
  hints: { idempotent: true },
  input: Schema.Struct({
    ...scopeArguments,
    name: optional(EnvironmentName),
    max_bytes: optional(
      Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 1_048_576 })))
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
