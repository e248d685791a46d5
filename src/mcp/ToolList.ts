/**
 * A tool as a tools/list entry (which tools a safety level lists is `visibleTools`, in tools/Tool.ts).
 */
import type { Tool as McpTool } from "@modelcontextprotocol/server"
import { LOCAL_HOST } from "../context/HostsConfig.js"
import type { SafetyLevel } from "../context/TmuxMcpConfig.js"
import { HOST_FIELDS } from "../domain/Model.js"
import { type AnyTool, takesHost } from "../tools/Tool.js"
import { toolJsonSchema, withoutProperties } from "./internal/JsonSchema.js"

/** The `_meta` key that asks a client deferring tool loading to keep a tool loaded (Claude Code reads it). */
export const ALWAYS_LOAD_META_KEY = "anthropic/alwaysLoad"

/** A tool's MCP annotations; a tool that runs other tools is annotated as the most they may do at `safety`. */
const annotationsOf = (tool: AnyTool, safety: SafetyLevel): McpTool["annotations"] =>
  tool.hints.runsTools === true
    ? {
      readOnlyHint: safety === "readonly",
      destructiveHint: safety !== "readonly",
      idempotentHint: safety === "readonly",
      openWorldHint: safety !== "readonly"
    }
    : {
      readOnlyHint: tool.tier === "readonly",
      destructiveHint: tool.hints.destructive ?? tool.tier === "destructive",
      idempotentHint: tool.hints.idempotent,
      openWorldHint: tool.hints.openWorld ?? false
    }

/**
 * The input schema, with `host` (an enum: `local` and the hosts file's names) on a tool that
 * targets a server or surveys the hosts when hosts are configured; without them, exactly the tool's own.
 */
const inputSchemaOf = (tool: AnyTool, hosts: ReadonlyArray<string>): McpTool["inputSchema"] => {
  const schema = toolJsonSchema(tool.input)
  if (hosts.length === 0 || !takesHost(tool)) return schema
  const properties = (schema.properties ?? {}) as Record<string, unknown>
  const host = { type: "string", enum: [LOCAL_HOST, ...hosts] }
  // On a server-targeting tool `host` says where the call runs (local when absent); on a survey absent means every host.
  const described = tool.surveysHosts === true ? { ...host, description: "Only this host; absent: every host." } : host
  return { ...schema, properties: { ...properties, host: described } }
}

const HOST_RESULT_FIELDS: ReadonlySet<string> = new Set(HOST_FIELDS)

/** The output schema; results say their host only with hosts configured, and so does this. */
const outputSchemaOf = (tool: AnyTool, hosts: ReadonlyArray<string>): McpTool["outputSchema"] => {
  const schema = toolJsonSchema(tool.output, "output")
  return hosts.length === 0 ? withoutProperties(schema, HOST_RESULT_FIELDS) : schema
}

/** A tool as tools/list shows it at a safety level (by default the highest), with `host` when `hosts` are configured. */
export const describeTool = (tool: AnyTool, safety: SafetyLevel = "destructive", hosts: ReadonlyArray<string> = []): McpTool => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: inputSchemaOf(tool, hosts),
  outputSchema: outputSchemaOf(tool, hosts),
  annotations: annotationsOf(tool, safety),
  ...(tool.alwaysLoad === true ? { _meta: { [ALWAYS_LOAD_META_KEY]: true } } : {})
})
