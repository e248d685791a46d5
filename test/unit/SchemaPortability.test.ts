/**
 * The rules of the MCP Inspector's `--strict` check (2.12) over tools/list, without the network:
 * no argument schema has a type list (clients mapping schemas onto a single-type dialect, such as
 * Gemini's function declarations, refuse one) or says nothing at all. Result schemas keep type
 * lists where anyOf would not fit the byte budget: their count is a ceiling, to go down, not up.
 */
import { describe, expect, it } from "@effect/vitest"
import { describeTool } from "../../src/mcp/ToolList.js"
import { allTools } from "../../src/tools/registry.js"

type Node = Record<string, unknown>

/** Every schema in a schema (itself, its properties, items, branches and additional properties), with its path. */
const schemasIn = (schema: unknown, path: string): Array<readonly [string, Node]> => {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return []
  const node = schema as Node
  const inner: Array<readonly [string, Node]> = []
  for (const [name, property] of Object.entries((node.properties ?? {}) as Record<string, unknown>)) {
    inner.push(...schemasIn(property, `${path}.properties.${name}`))
  }
  if (node.items !== undefined) inner.push(...schemasIn(node.items, `${path}.items`))
  if (Array.isArray(node.anyOf)) node.anyOf.forEach((branch, i) => inner.push(...schemasIn(branch, `${path}.anyOf[${i}]`)))
  if (typeof node.additionalProperties === "object") inner.push(...schemasIn(node.additionalProperties, `${path}.additionalProperties`))
  return [[path, node], ...inner]
}

const VALIDATING = ["type", "enum", "const", "anyOf", "oneOf", "allOf", "not", "$ref"]

const listed = [
  ...allTools.map((tool) => describeTool(tool)),
  // With a hosts file every server-targeting tool takes `host` as well.
  ...allTools.map((tool) => describeTool(tool, "destructive", ["ci"]))
]

describe("tools/list passes the Inspector's --strict rules", () => {
  it("no argument schema has a type list or says nothing", () => {
    const problems = listed.flatMap((tool) =>
      schemasIn(tool.inputSchema, `${tool.name}.inputSchema`).flatMap(([path, node]) => [
        ...(Array.isArray(node.type) ? [`${path}: type list ${JSON.stringify(node.type)}`] : []),
        ...(VALIDATING.some((keyword) => keyword in node) ? [] : [`${path}: no validation keyword`])
      ])
    )
    expect(problems).toEqual([])
  })

  // 66 at fa025dd; 70 since create_session and create_window return panes (issue 23): a listed pane
  // has two nullable fields. Writing every type list as anyOf would cost ~1.25 KB of tools/list.
  it("result schemas have at most 70 type lists (every tool listed) and none says nothing", () => {
    const own = allTools.map((tool) => describeTool(tool))
    const nodes = own.flatMap((tool) => schemasIn(tool.outputSchema, `${tool.name}.outputSchema`))
    expect(nodes.filter(([, node]) => Array.isArray(node.type)).length).toBeLessThanOrEqual(70)
    // run_batch's step results are any tool's: an object, said so.
    expect(nodes.filter(([, node]) => !VALIDATING.some((keyword) => keyword in node)).map(([path]) => path)).toEqual([])
  })
})
