/**
 * The tools/list entries for the tools this safety level enables.
 */
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import type { SafetyLevel } from "../context/Config.js"
import { makePolicy } from "../services/Policy.js"
import type { AnyTool } from "../tools/Tool.js"
import { toolJsonSchema } from "./JsonSchema.js"

export const describeTool = (tool: AnyTool): McpTool => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: toolJsonSchema(tool.input),
  outputSchema: toolJsonSchema(tool.output),
  annotations: {
    title: tool.title,
    readOnlyHint: tool.tier === "readonly",
    destructiveHint: tool.hints.destructive ?? tool.tier === "destructive",
    idempotentHint: tool.hints.idempotent,
    openWorldHint: tool.hints.openWorld ?? false
  }
})

/** Off-tier tools are absent, not merely marked. */
export const visibleTools = (tools: ReadonlyArray<AnyTool>, safety: SafetyLevel): ReadonlyArray<AnyTool> => {
  const policy = makePolicy(safety)
  return tools.filter((tool) => policy.allows(tool.tier))
}
