/** where_am_i: the invocation context, the first call an agent should make. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { SocketSelector } from "../context/SocketResolver.js"
import { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { WhereAmI } from "../domain/Model.js"
import { whereAmI } from "../operations/servers/WhereAmI.js"
import { type AnyTool, defineTool, socketArguments } from "./Tool.js"
import { enabledTools } from "./ToolSets.js"

/** The where_am_i payload: the invocation context and the names of the tools enabled of `tools`. */
export const whereAmIWithTools = (tools: ReadonlyArray<AnyTool>, selectors: SocketSelector = {}) =>
  Effect.gen(function*() {
    const config = yield* TmuxMcpConfig
    const context = yield* whereAmI(selectors)
    return { ...context, tools: enabledTools(tools, config).map((tool) => tool.name) }
  })

/** where_am_i, which also names the tools enabled; `registry` is every tool (the registry holds this one too). */
export const makeWhereAmITool = (registry: () => ReadonlyArray<AnyTool>): AnyTool =>
  defineTool({
    name: "where_am_i",
    title: "Where Am I",
    description:
      "Call first: inside tmux or not (and the caller's pane), the socket the tools query and why, whether a server runs there, safety level, tools enabled.",
    tier: "readonly",
    group: "context",
    alwaysLoad: true,
    hints: { idempotent: true },
    input: Schema.Struct(socketArguments),
    output: Schema.Struct({ ...WhereAmI.fields, tools: Schema.Array(Schema.String) }),
    handler: (input) => whereAmIWithTools(registry(), input)
  })
