/**
 * The MCP tools as data, and running one exactly as the server does: decode, tier check, handler,
 * encode, audit, and every ordinary failure as an error result.
 */
export { callTool, ERROR_META_KEY, type ToolResult } from "../mcp/CallTool.js"
export { allTools } from "../tools/registry.js"
export type { AnyTool, Tier, Tool, ToolHints, ToolServices } from "../tools/Tool.js"
