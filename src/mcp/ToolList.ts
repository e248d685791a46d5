/**
 * A tool as a tools/list entry (which tools a safety level lists is `visibleTools`, in tools/Tool.ts).
 */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import type { AnyTool } from "../tools/Tool.js"
import { toolJsonSchema } from "./internal/JsonSchema.js"

/** The `_meta` key that asks a client deferring tool loading to keep a tool loaded (Claude Code reads it). */
export const ALWAYS_LOAD_META_KEY = "anthropic/alwaysLoad"

export const describeTool = (tool: AnyTool): McpTool => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: toolJsonSchema(tool.input),
  outputSchema: toolJsonSchema(tool.output, "output"),
  annotations: {
    readOnlyHint: tool.hints.readOnly ?? tool.tier === "readonly",
    destructiveHint: tool.hints.destructive ?? tool.tier === "destructive",
    idempotentHint: tool.hints.idempotent,
    openWorldHint: tool.hints.openWorld ?? false
  },
  ...(tool.alwaysLoad === true ? { _meta: { [ALWAYS_LOAD_META_KEY]: true } } : {})
})
