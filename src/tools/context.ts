/** where_am_i: the invocation context, the first call an agent should make. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { SocketSelector } from "../context/SocketResolver.js"
import { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { NonNegativeInt, WhereAmI } from "../domain/Model.js"
import { whereAmI } from "../operations/servers/WhereAmI.js"
import { type AnyTool, defineTool, socketArguments } from "./Tool.js"
import { enabledTools, type ToolSetConfig } from "./ToolSets.js"

/**
 * The tool set as configured (`LIBTMUX_MCP_TOOLS=context,capture_pane`), which the safety level
 * still caps; undefined without one (every tool of the safety level). The names themselves are
 * tools/list's.
 */
export const toolSetOf = (config: ToolSetConfig): string | undefined =>
  config.toolSelection === undefined ? undefined : `${config.toolSelection.source}=${config.toolSelection.terms.join(",")}`

/** What where_am_i adds to the invocation context: the tool set and how many tools it enables. */
const ToolSetFields = {
  tool_set: Schema.optionalKey(Schema.String).annotate({
    description: "Only with a LIBTMUX_MCP_TOOLS / --tools set (capped by safety_level); absent: every tool of safety_level."
  }),
  tool_count: NonNegativeInt.annotate({ description: "How many tools are enabled (tools/list names them)." })
}

/** The where_am_i payload: the invocation context, the tool set and how many of `tools` it enables. */
export const whereAmIWithTools = (tools: ReadonlyArray<AnyTool>, selectors: SocketSelector = {}) =>
  Effect.gen(function*() {
    const config = yield* TmuxMcpConfig
    const context = yield* whereAmI(selectors)
    const toolSet = toolSetOf(config)
    // Said only when a set narrows the tools: the usual first call stays short.
    return { ...context, ...(toolSet === undefined ? {} : { tool_set: toolSet }), tool_count: enabledTools(tools, config).length }
  })

/** where_am_i, which also says the tool set; `registry` is every tool (the registry holds this one too). */
export const makeWhereAmITool = (registry: () => ReadonlyArray<AnyTool>): AnyTool =>
  defineTool({
    name: "where_am_i",
    title: "Where Am I",
    description:
      "Call first: inside tmux or not (and the caller's pane), the socket the tools query and why, whether a server runs there, safety level, tool set.",
    tier: "readonly",
    group: "context",
    alwaysLoad: true,
    hints: { idempotent: true },
    input: Schema.Struct(socketArguments),
    output: Schema.Struct({ ...WhereAmI.fields, ...ToolSetFields }),
    handler: (input) => whereAmIWithTools(registry(), input)
  })
