import { describe, expect, it } from "@effect/vitest"
import { HOST_FIELDS } from "../../src/domain/Model.js"
import { withoutProperties } from "../../src/mcp/internal/JsonSchema.js"
import { ALWAYS_LOAD_META_KEY, describeTool } from "../../src/mcp/ToolList.js"
import { allTools } from "../../src/tools/registry.js"
import { visibleTools } from "../../src/tools/Tool.js"

const SNAKE = /^[a-z]+(_[a-z]+)*$/

/** Every object node of a JSON schema, depth first. */
const nodes = (schema: unknown): Array<Record<string, unknown>> => {
  if (Array.isArray(schema)) return schema.flatMap(nodes)
  if (typeof schema !== "object" || schema === null) return []
  return [schema as Record<string, unknown>, ...Object.values(schema).flatMap(nodes)]
}

describe("tools/list", () => {
  it("lists the tools once each, with snake_case names", () => {
    const names = allTools.map((tool) => tool.name)
    expect(new Set(names).size).toBe(names.length)
    expect(names.length).toBeGreaterThanOrEqual(12)
    for (const name of names) expect(name).toMatch(SNAKE)
  })

  for (const tool of allTools) {
    it(`describes ${tool.name} completely and honestly`, () => {
      const listed = describeTool(tool)
      expect(listed.name).toBe(tool.name)
      expect(listed.title?.length).toBeGreaterThan(3)
      expect(listed.description?.length).toBeGreaterThan(30)
      expect(listed.inputSchema.type).toBe("object")
      // The root is not closed in the schema (the call refuses unknown arguments: CallTool.test.ts).
      expect(listed.inputSchema).not.toHaveProperty("additionalProperties")
      expect(listed.outputSchema?.type).toBe("object")
      const annotations = listed.annotations!
      for (const key of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
        expect(typeof annotations[key], key).toBe("boolean")
      }
      expect(annotations.readOnlyHint).toBe(tool.tier === "readonly" && tool.name !== "run_batch")
      if (tool.tier === "destructive") expect(annotations.destructiveHint).toBe(true)
      // run_batch is listed at readonly but runs whatever tools the tier allows: it says so (issue 14 item 4).
      if (tool.tier === "readonly" && tool.name !== "run_batch") expect(annotations.destructiveHint).toBe(false)
      for (const argument of Object.keys(listed.inputSchema.properties ?? {})) expect(argument).toMatch(SNAKE)
      // An argument said once, in a tool listed before ("As send_keys'."), is listed loose here; the
      // tool it names lists the same argument, and decoding checks it the same way.
      // A tool described "(arguments as run_command's)" says so for all its undescribed arguments at once.
      const saidElsewhere = new Set<unknown>()
      const allAs = /\(arguments as ([a-z_]+)'s?\)/.exec(listed.description ?? "")?.[1]
      for (const [name, argument] of Object.entries(listed.inputSchema.properties ?? {})) {
        const description = (argument as { description?: string }).description
        const other = description === undefined ? allAs : /^As ([a-z_]+)'s?\.$/.exec(description)?.[1]
        if (other === undefined) continue
        // An undescribed argument of its own (wait_for_command's handle) is not one of them.
        if (description === undefined && !(name in (describeTool(allTools.find((t) => t.name === other)!).inputSchema.properties ?? {}))) {
          continue
        }
        const index = allTools.findIndex((candidate) => candidate.name === other)
        expect(index, `${tool.name}.${name} names ${other}`).toBeGreaterThanOrEqual(0)
        expect(index, `${other} is listed before ${tool.name}`).toBeLessThan(allTools.indexOf(tool))
        expect(describeTool(allTools[index]!).inputSchema.properties, `${other} lists ${name}`).toHaveProperty(name)
        for (const node of nodes(argument)) saidElsewhere.add(node)
      }
      // Every nested object in the input is closed, and no $schema noise is sent.
      for (const node of nodes(listed.inputSchema)) {
        if (saidElsewhere.has(node)) continue
        if (node === listed.inputSchema) continue
        // A map (no fixed properties, e.g. an environment) types every value instead of refusing keys.
        const isMap = Object.keys((node.properties as object | undefined) ?? {}).length === 0 &&
          typeof node.additionalProperties === "object" &&
          node.additionalProperties !== null
        // run_batch's step arguments are any tool's: an object, checked against the step's tool.
        const isStepArguments = tool.name === "run_batch" && node.properties === undefined && !("additionalProperties" in node)
        // The list tools' `where` is listed open (its keys are the list's fields, in the instructions
        // and docs: listing them would cost hundreds of bytes); decoding refuses any other key
        // (test/unit/Filters.test.ts).
        const isWhere = node === (listed.inputSchema.properties as Record<string, unknown> | undefined)?.where
        if (node.type === "object" && !isMap && !isWhere && !isStepArguments) expect(node.additionalProperties).toBe(false)
        expect(node).not.toHaveProperty("$schema")
      }
      const properties = Object.keys(listed.inputSchema.properties ?? {})
      // list_servers looks at every socket; wait_for_command's socket is the one in its handle; run_batch's operations name their own.
      if (tool.name === "list_servers" || tool.name === "wait_for_command" || tool.name === "run_batch") {
        expect(properties).not.toContain("socket_name")
      } else {
        expect(properties).toContain("socket_name")
        expect(properties).toContain("socket_path")
      }
    })
  }

  it("marks only the few tools an agent needs first to be always loaded", () => {
    const marked = allTools.map((tool) => describeTool(tool)).filter((tool) => tool._meta?.[ALWAYS_LOAD_META_KEY] === true).map((tool) =>
      tool.name
    )
    expect(marked).toEqual(["where_am_i", "list_panes", "capture_pane"])
    for (const tool of allTools.map((tool) => describeTool(tool))) if (!marked.includes(tool.name)) expect(tool).not.toHaveProperty("_meta")
  })

  it("annotates run_batch as the most its operations may do at the server's level", () => {
    const batch = allTools.find((tool) => tool.name === "run_batch")!
    expect(describeTool(batch, "readonly").annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false
    })
    for (const level of ["mutating", "destructive"] as const) {
      expect(describeTool(batch, level).annotations).toEqual({
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: true
      })
    }
  })

  it("with hosts, gives host (local and the hosts' names) to every tool that targets a server, and to list_servers; without, to none", () => {
    const hosts = ["build", "gpu1"]
    for (const tool of allTools) {
      const plain = describeTool(tool)
      const hosted = describeTool(tool, "destructive", hosts)
      expect(plain.inputSchema.properties ?? {}).not.toHaveProperty("host")
      const properties = (hosted.inputSchema.properties ?? {}) as Record<string, unknown>
      const takes = Object.keys(plain.inputSchema.properties ?? {}).includes("socket_name") || tool.name === "list_servers"
      if (!takes) {
        expect({ tool: tool.name, hosted }).toEqual({ tool: tool.name, hosted: plain })
        continue
      }
      const host = tool.name === "list_servers"
        // Absent there is every host, not local: said where it differs.
        ? { type: "string", enum: ["local", ...hosts], description: "Only this host; absent: every host." }
        : { type: "string", enum: ["local", ...hosts] }
      expect({ tool: tool.name, host: properties.host }).toEqual({ tool: tool.name, host })
      // Nothing else changes.
      const { host: _, ...rest } = properties
      expect({ tool: tool.name, rest }).toEqual({ tool: tool.name, rest: plain.inputSchema.properties })
      // Results gain only their host fields.
      expect(withoutProperties(hosted.outputSchema, new Set(HOST_FIELDS))).toEqual(plain.outputSchema)
    }
  })

  it("hides tools above the safety level", () => {
    const names = (level: "readonly" | "mutating" | "destructive") => visibleTools(allTools, level).map((tool) => tool.name)
    expect(names("readonly")).not.toContain("start_server")
    expect(names("readonly")).not.toContain("kill_server")
    expect(names("readonly")).toContain("where_am_i")
    expect(names("mutating")).toContain("start_server")
    expect(names("mutating")).not.toContain("kill_server")
    expect(names("destructive")).toEqual(allTools.map((tool) => tool.name))
    for (const tool of visibleTools(allTools, "readonly")) expect(tool.tier).toBe("readonly")
  })
})
