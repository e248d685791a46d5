/**
 * What a tool is: a name, a tier, honest annotations, an input and an output schema, and a handler
 * that is an ordinary Effect over the services. Nothing here knows about MCP; the bridge in
 * `mcp/` turns these into tools/list entries and tools/call results.
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import type { InvocationContext } from "../context/InvocationContext.js"
import type { SocketResolver } from "../context/SocketResolver.js"
import type { SafetyLevel, TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import type { ToolError } from "../domain/Errors.js"
import type { Ownership } from "../services/Ownership.js"
import { makePolicy } from "../services/Policy.js"
import type { Tmux } from "../tmux/Tmux.js"

/** The tier a tool needs: readonly < mutating < destructive (LIBTMUX_SAFETY enables up to one). */
export type Tier = SafetyLevel

/**
 * The groups a tool set (LIBTMUX_MCP_TOOLS / --tools) can name: every tool is in exactly one.
 * context: where am I, which servers; read: the tree and what panes show; terminal: typing,
 * running and waiting; layout: renaming, selecting, resizing, moving; buffers; environment;
 * options: tmux options and hooks; lifecycle: starting and killing servers, sessions, windows and panes.
 */
export const TOOL_GROUPS = ["context", "read", "terminal", "layout", "buffers", "environment", "options", "lifecycle"] as const
export type ToolGroup = (typeof TOOL_GROUPS)[number]

/** The services every tool handler may use; embedders provide these layers. */
export type ToolServices = Tmux | TmuxMcpConfig | SocketResolver | InvocationContext | Ownership

/** What a tool's MCP annotations say beyond its tier. */
export interface ToolHints {
  /**
   * The tool runs other tools (run_batch): its annotations say the most a tool of the server's
   * safety level may do, read-only at readonly, not read-only, destructive and open world above.
   */
  readonly runsTools?: boolean
  /** The same call twice has the same effect as once. */
  readonly idempotent: boolean
  /** The tool may destroy or overwrite something (defaults to tier === "destructive"). */
  readonly destructive?: boolean
  /** The tool's effects reach beyond tmux objects (e.g. text typed into a shell). */
  readonly openWorld?: boolean
}

/**
 * A tool: its name, title, description, tier, hints, input and output schemas, and a handler over
 * `ToolServices`.
 */
export interface Tool<I, O> {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly tier: Tier
  /** Its group, for tool sets. */
  readonly group: ToolGroup
  readonly hints: ToolHints
  /**
   * One of the few tools an agent needs first: `_meta["anthropic/alwaysLoad"]`, so a client that
   * defers loading tool definitions keeps this one loaded.
   */
  readonly alwaysLoad?: boolean
  // The encoded side differs per tool and no caller reads it: any, not unknown, keeps Tool<I, O> assignable to AnyTool.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly input: Schema.Codec<I, any>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly output: Schema.Codec<O, any>
  /** Arguments whose values are payloads (text typed, secrets): the audit log keeps only length + hash. */
  readonly payloadArguments?: ReadonlyArray<string>
  /**
   * Arguments carrying text the tool bounds itself (text to paste or type, a command), exempt from
   * the common string limit of mcp/internal/ArgumentGuard.ts. `binary`: the text reaches tmux on standard
   * input as bytes, so it may hold NUL too.
   */
  readonly textArguments?: Readonly<Record<string, "text" | "binary">>
  /**
   * The tool looks at every host of the hosts file (list_servers). With a hosts file it takes
   * `host`, which narrows it to that host: the tools bridge checks the name and gives it to the
   * handler as `input.host` (absent: every host). A tool that targets a server takes `host` too,
   * but runs on that host instead (`targetsServer`).
   */
  readonly surveysHosts?: boolean
  readonly handler: (input: I) => Effect.Effect<O, ToolError, ToolServices>
}

/** A tool with its types erased, as the registry holds it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any, any>

export const defineTool = <I, O>(tool: Tool<I, O>): AnyTool => tool

/** The tools a safety level enables. Off-tier tools are absent from tools/list, not merely marked. */
export const visibleTools = (tools: ReadonlyArray<AnyTool>, safety: SafetyLevel): ReadonlyArray<AnyTool> => {
  const policy = makePolicy(safety)
  return tools.filter((tool) => policy.allows(tool.tier))
}

/**
 * An optional argument that, when given, must have exactly the stated type (no `undefined`).
 * The description sits on the property, so decode errors keep the schema's own precise message.
 */
export const optional = <S extends Schema.Top>(schema: S, description?: string) => {
  const property = Schema.optionalKey(schema)
  return description === undefined ? property : property.annotate({ description })
}

/**
 * Every tool that targets a server takes these; precedence is documented in SocketResolver. Their
 * meaning is said once, in the instructions and docs/tools.md, not in every tool's schema.
 */
export const socketArguments = {
  socket_name: optional(Schema.String),
  socket_path: optional(Schema.String)
}

/** The property signatures of a struct's AST (a tool's arguments); none for any other node. */
export const propertySignatures = (ast: AST.AST): ReadonlyArray<AST.PropertySignature> => AST.isObjects(ast) ? ast.propertySignatures : []

const serverTargeting = new WeakMap<AnyTool, boolean>()

/**
 * Whether a tool targets a server (it takes `socketArguments`): with a hosts file such a tool also
 * takes `host`, which the tools bridge reads before decoding (the call then runs on that host).
 */
export const targetsServer = (tool: AnyTool): boolean => {
  let targets = serverTargeting.get(tool)
  if (targets === undefined) {
    targets = propertySignatures(tool.input.ast).some((property) => property.name === "socket_name")
    serverTargeting.set(tool, targets)
  }
  return targets
}

/** Whether a tool takes `host` when a hosts file is configured: it targets a server, or surveys the hosts. */
export const takesHost = (tool: AnyTool): boolean => tool.surveysHosts === true || targetsServer(tool)

/** What a tool that surveys hosts gets besides its own input: the host it is narrowed to, if any. */
export interface HostChoice {
  readonly host?: string | undefined
}

export { Int, NonNegativeInt } from "../domain/Model.js"
