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
      "Where this MCP server runs and what its tools will touch: inside_tmux and, if so, the caller's live pane/window/session; the effective socket and the rule that chose it; whether a tmux server runs there (a real probe that never starts one); how many live servers exist; the safety level. Call it first when unsure which tmux server or pane to use.",
    tier: "readonly",
    group: "context",
    alwaysLoad: true,
    hints: { idempotent: true },
    input: Schema.Struct(socketArguments),
    output: Schema.Struct({ ...WhereAmI.fields, tools: Schema.Array(Schema.String) }),
    handler: (input) => whereAmIWithTools(registry(), input)
  })
