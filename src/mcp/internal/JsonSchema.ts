/**
 * JSON Schema for tools/list, generated from the Effect schemas. tools/list is read into an agent's
 * context at the start of every conversation, so what the schema says is said once:
 *
 * - Effect adds a title and a generic description to every refinement ("a non-negative number");
 *   they say nothing the keywords do not, and are dropped.
 * - The ids' own descriptions and patterns (what a pane id looks like, where it comes from) repeat
 *   on every id argument (~20 B each, ~30 arguments); the instructions and docs/tools.md say the
 *   forms once, the argument's name says which id it is, and decoding still refuses any other form
 *   with a message naming it ("must be a pane id such as %3").
 * - In a result, a union of bare types is written as a type list (`["integer", "null"]`), as JSON
 *   Schema allows; arguments keep `anyOf` branches of one type, which every client takes.
 * - The arguments object itself is not closed (`additionalProperties: false` at the root, 28 B on
 *   every tool): the server refuses an unknown argument by name anyway (CallTool decodes with
 *   `onExcessProperty: "error"`), and the properties listed say what is taken. Nested objects an
 *   agent builds (batch steps, …) stay closed, where a misspelt key is easier to make.
 * - Bounds of numbers and lists are not listed in arguments (INPUT_BOUNDS): decoding checks them.
 * - Output schemas keep their structure and types (properties, items, type lists, enums) but no
 *   prose, no value constraints, no closing and no required lists: what an agent reads a result by,
 *   not what checks our own output.
 *
 * No `$ref` is produced: every schema is self-contained for clients that do not resolve references.
 */
import * as JSONSchema from "effect/JSONSchema"
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import { PaneId, SessionId, WindowId } from "../../domain/Ids.js"

type JsonObject = { [key: string]: unknown }

const GENERATED_DESCRIPTION =
  /^(a |an )?(string|number|integer|non-negative|positive|negative|finite|array|number between|string matching|integer between)/i

/** The descriptions the id schemas carry themselves: said once in the instructions, not per argument. */
const COMMON_DESCRIPTIONS: ReadonlySet<string> = new Set(
  [PaneId, WindowId, SessionId].flatMap((schema) => Option.toArray(SchemaAST.getDescriptionAnnotation(schema.ast)))
)

/** The patterns of the id schemas: said once in the instructions (`%N`, `@N`, `$N`), not per argument. */
const ID_PATTERNS: ReadonlySet<string> = new Set(
  [PaneId, WindowId, SessionId].map((schema) => (JSONSchema.make(schema) as { pattern: string }).pattern)
)

/** Keywords an output schema drops: prose and value constraints, not structure or types. */
const OUTPUT_ONLY_PROSE = new Set([
  "description",
  "pattern",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  // Closing a result object, or listing the fields it always has, checks our output; an agent
  // reads what is there (docs/tools.md says what each result holds).
  "additionalProperties",
  "required"
])

/**
 * Bounds of numbers and lists in arguments: decoding refuses a value past them with a message naming
 * the bound, which is where an agent meets one; said up front on every argument they cost ~1.2 KB
 * of every conversation's context for sanity caps (100000 lines, 10000 cells) an agent never nears.
 */
const INPUT_BOUNDS = new Set(["minimum", "maximum", "exclusiveMinimum", "minItems", "maxItems"])

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value)

/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "$defs", "patternProperties"])
/** Keywords whose value is a schema or a list of schemas. */
const SCHEMA_VALUES = new Set(["items", "additionalProperties", "anyOf", "oneOf", "allOf", "not", "prefixItems"])

/** A tool's arguments or its result; "input with ids" keeps the id patterns, for sweeps that tell id arguments apart. */
type Side = "input" | "input with ids" | "output"

const dropped = (key: string, value: unknown, side: Side): boolean =>
  key === "$schema" || key === "title" ||
  // Any value at all is the empty schema; the marker Effect adds names nothing a client resolves.
  (key === "$id" && (value === "/schemas/unknown" || value === "/schemas/any")) ||
  // A JSON string alternative says it in its description; the content keywords only annotate.
  key === "contentMediaType" || key === "contentSchema" ||
  (key === "properties" && isObject(value) && Object.keys(value).length === 0) ||
  (key === "required" && Array.isArray(value) && value.length === 0) ||
  (side === "output" && OUTPUT_ONLY_PROSE.has(key)) ||
  (side !== "output" && INPUT_BOUNDS.has(key) && typeof value === "number") ||
  (side === "input" && key === "pattern" && typeof value === "string" && ID_PATTERNS.has(value)) ||
  (key === "description" && typeof value === "string" && (GENERATED_DESCRIPTION.test(value) || COMMON_DESCRIPTIONS.has(value)))

/** `anyOf` of schemas that only name a type, as one `type` list; anything else as it is. */
const typeList = (node: JsonObject): JsonObject => {
  const branches = node.anyOf
  if (!Array.isArray(branches) || "type" in node) return node
  const types = branches.map((branch) =>
    isObject(branch) && Object.keys(branch).length === 1 && typeof branch.type === "string" ? branch.type : undefined
  )
  if (types.some((type) => type === undefined)) return node
  const { anyOf: _, ...rest } = node
  return { type: types, ...rest }
}

const clean = (node: unknown, side: Side): unknown => {
  if (Array.isArray(node)) return node.map((item) => clean(item, side))
  if (!isObject(node)) return node
  const out: JsonObject = {}
  for (const [key, value] of Object.entries(node)) {
    if (dropped(key, value, side)) continue
    if (SCHEMA_MAPS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, clean(schema, side)]))
    } else if (SCHEMA_VALUES.has(key)) {
      const cleaned = clean(value, side)
      // Any value at all, said as JSON Schema's `true`, which no client reads as a schema left empty by mistake.
      out[key] = key === "additionalProperties" && isObject(cleaned) && Object.keys(cleaned).length === 0 ? true : cleaned
    } else {
      out[key] = value
    }
  }
  // Arguments keep anyOf branches of one type each: clients mapping schemas onto a single-type
  // dialect (Gemini's function declarations) refuse a type list.
  return side === "output" ? typeList(out) : out
}

/**
 * An object schema as MCP wants it: `type: "object"` at the root, no `$schema`, nothing said twice;
 * `side` says whether it describes a tool's arguments or its result.
 */
export const toolJsonSchema = (schema: Schema.Top, side: Side = "input"): { type: "object"; [key: string]: unknown } => {
  const { additionalProperties: _, ...json } = clean(JSONSchema.make(schema, { target: "jsonSchema2020-12" }), side) as JsonObject
  if (json.type !== "object") throw new Error("tool schemas must be objects")
  return json as { type: "object"; [key: string]: unknown }
}

/**
 * A schema without the properties `names`, at every depth (for result fields that exist only in
 * some configurations, such as a host's, so tools/list says them only then).
 */
export const withoutProperties = <S>(schema: S, names: ReadonlySet<string>): S => {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip)
    if (!isObject(node)) return node
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) =>
        key === "properties" && isObject(value)
          ? [
            key,
            Object.fromEntries(
              Object.entries(value).filter(([name]) => !names.has(name)).map(([name, property]) => [name, strip(property)])
            )
          ]
          : [key, strip(value)]
      )
    )
  }
  return strip(schema) as S
}
