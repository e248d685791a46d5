/**
 * JSON Schema for tools/list, generated from the Effect schemas. Effect adds a title and a generic
 * description to every refinement ("a non-negative number"); they say nothing the keywords do not,
 * and tools/list is sent to the model with every request, so they are dropped.
 */
import * as JSONSchema from "effect/JSONSchema"
import type * as Schema from "effect/Schema"

type JsonObject = { [key: string]: unknown }

const GENERATED_DESCRIPTION =
  /^(a |an )?(string|number|integer|non-negative|positive|negative|finite|array|number between|string matching|integer between)/i

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value)

/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "$defs", "patternProperties"])
/** Keywords whose value is a schema or a list of schemas. */
const SCHEMA_VALUES = new Set(["items", "additionalProperties", "anyOf", "oneOf", "allOf", "not", "prefixItems"])

const clean = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(clean)
  if (!isObject(node)) return node
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema" || key === "title") continue
    if (key === "description" && typeof value === "string" && GENERATED_DESCRIPTION.test(value)) continue
    if (SCHEMA_MAPS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, clean(schema)]))
    } else if (SCHEMA_VALUES.has(key)) {
      out[key] = clean(value)
    } else {
      out[key] = value
    }
  }
  return out
}

/** An object schema as MCP wants it: `type: "object"` at the root, no `$schema`, no generated noise. */
export const toolJsonSchema = (schema: Schema.Schema.Any): { type: "object"; [key: string]: unknown } => {
  const json = clean(JSONSchema.make(schema, { target: "jsonSchema2020-12" })) as JsonObject
  if (json.type !== "object") throw new Error("tool schemas must be objects")
  return json as { type: "object"; [key: string]: unknown }
}
