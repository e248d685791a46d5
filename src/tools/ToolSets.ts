/**
 * Tool sets: LIBTMUX_MCP_TOOLS / --tools names the tools to enable, by name or by group, with
 * `-name` to leave one out. The safety tier applies as well: a set never enables a tool above
 * the level. Unknown names stop start-up (`toolSelectionError`); past that check the selection is
 * applied as given.
 */
import type { SafetyLevel, ToolSelection } from "../context/TmuxMcpConfig.js"
import { type AnyTool, TOOL_GROUPS, visibleTools } from "./Tool.js"

export { TOOL_GROUPS, type ToolGroup } from "./Tool.js"

/** What the selection reads of the configuration. */
export interface ToolSetConfig {
  readonly safety: SafetyLevel
  readonly toolSelection: ToolSelection | undefined
}

const isGroup = (term: string): boolean => (TOOL_GROUPS as ReadonlyArray<string>).includes(term)

const matches = (tool: AnyTool, term: string): boolean => tool.name === term || tool.group === term

const included = (term: string): boolean => !term.startsWith("-")
const named = (term: string): string => (included(term) ? term : term.slice(1))

/**
 * The tools a selection keeps, whatever their tier, in registry order: those named (all, when only
 * exclusions are given), less those excluded. Calls to other tools are unknown-tool errors.
 */
export const selectedTools = (tools: ReadonlyArray<AnyTool>, selection: ToolSelection | undefined): ReadonlyArray<AnyTool> => {
  if (selection === undefined) return tools
  const wanted = selection.terms.filter(included)
  const excluded = selection.terms.filter((term) => !included(term)).map(named)
  return tools.filter((tool) =>
    (wanted.length === 0 || wanted.some((term) => matches(tool, term))) && !excluded.some((term) => matches(tool, term))
  )
}

/** The tools tools/list shows: the safety tier, then the tool set. */
export const enabledTools = (tools: ReadonlyArray<AnyTool>, config: ToolSetConfig): ReadonlyArray<AnyTool> =>
  visibleTools(selectedTools(tools, config.toolSelection), config.safety)

/** Why a selection cannot start a server (names no tool or group, or leaves nothing), or undefined. */
export const toolSelectionError = (tools: ReadonlyArray<AnyTool>, config: ToolSetConfig): string | undefined => {
  const selection = config.toolSelection
  if (selection === undefined) return undefined
  const unknown = selection.terms.map(named).filter((term) => !isGroup(term) && !tools.some((tool) => tool.name === term))
  if (unknown.length > 0) {
    const groups = TOOL_GROUPS.map((group) =>
      `${group} (${tools.filter((tool) => tool.group === group).map((tool) => tool.name).join(" ")})`
    )
    return `${selection.source} names no tool or group ${unknown.map((term) => JSON.stringify(term)).join(", ")}. ` +
      `Valid names: the groups ${groups.join("; ")}; any of these tools, or a group, with a leading - to leave it out.`
  }
  if (enabledTools(tools, config).length === 0) {
    return `${selection.source} leaves no tool enabled at the ${config.safety} safety level (a set never enables a tool above LIBTMUX_SAFETY).`
  }
  return undefined
}
