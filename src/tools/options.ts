/** tmux options and hooks: show_options (hooks too, read only) and set_option (the allowlist only). */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { OptionEntry, OptionScope, OptionSet, setOption, showOptions } from "../operations/environment/Options.js"
import { generationArgument } from "./internal/Arguments.js"
import { callerPaneId } from "./internal/CallerTarget.js"
import { Page } from "./internal/Paging.js"
import { defineTool, Int, optional, socketArguments } from "./Tool.js"

/** A pane, window or session id; checked by the operation (the pattern would cost every tools/list its bytes). */
const Target = Schema.String

export const showOptionsTool = defineTool({
  name: "show_options",
  title: "Show tmux Options",
  description:
    "Options of the server, a session, window or pane (default the caller's session), inherited ones marked; hooks: true for hooks.",
  tier: "readonly",
  group: "options",
  hints: { idempotent: true },
  input: Schema.Struct({
    scope: optional(OptionScope),
    target: optional(Target),
    global: optional(Schema.Boolean),
    name: optional(Schema.String),
    hooks: optional(Schema.Boolean),
    // Pages of the default 100 (a scope has about 130 options); the bound is checked by showOptions.
    // A limit argument and the schema's bounds would cost every tools/list their bytes.
    offset: optional(Int),
    ...socketArguments
  }),
  output: Page(OptionEntry),
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      const scope = input.scope ?? "session"
      const global = scope === "server" || input.global === true
      const target = global ? undefined : input.target ?? (yield* callerPaneId(socket, "pane_id"))
      return yield* showOptions(socket, { ...input, scope, target })
    })
})

export const setOptionTool = defineTool({
  name: "set_option",
  title: "Set tmux Option",
  description:
    "Sets or unsets one allowlisted option (mouse, history-limit, remain-on-exit, …: see docs); returns the value tmux then holds.",
  tier: "mutating",
  group: "options",
  hints: { idempotent: true, destructive: true },
  input: Schema.Struct({
    name: Schema.String,
    value: optional(Schema.Union([Schema.String, Schema.Number, Schema.Boolean])),
    unset: optional(Schema.Boolean),
    target: optional(Target),
    global: optional(Schema.Boolean),
    generation: generationArgument,
    ...socketArguments
  }),
  output: OptionSet,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      return yield* setOption(socket, input, { generation: input.generation })
    })
})

export const optionTools = [showOptionsTool, setOptionTool]
