/**
 * JSON Schema for tools/list, generated from the Effect schemas. tools/list is read into an agent's
 * context at the start of every conversation, so what the schema says is said once:
 *
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
 * - A schema annotated `{ "x-etm-json-schema": schema }` is listed as that schema, with the
 *   description the argument is given: a shape said once elsewhere (create_session's `panes`) is
 *   listed loose where it is said again ("As create_session's.").
 * - What Effect 4 adds for its JSON codec (null for undefined, NaN and the infinities as strings)
 *   is left out, as is the `allOf` it wraps some checks in: the server decodes the arguments with
 *   the schemas themselves, and tools/list reads as it did (test/e2e/tools-list-snapshot.test.ts).
 *
 * No `$ref` is produced: every schema is self-contained for clients that do not resolve references.
 */
import * as Record from "effect/Record"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as SchemaRepresentation from "effect/SchemaRepresentation"
import { PaneId, SessionId, WindowId } from "../../domain/Ids.js"

type JsonObject = { [key: string]: unknown }

/** The annotation whose value is listed instead of the schema's own JSON Schema. */
const LISTED_AS = "x-etm-json-schema"

type Representation = SchemaRepresentation.Representation

/**
 * A node with the annotations of its checks that have no JSON Schema (`makeFilter`'s) as its own:
 * Effect drops such a check from the JSON Schema with them, and `.annotate()` on a schema puts its
 * description (or `LISTED_AS`) on its last check.
 */
const withCheckAnnotations = (node: Representation): Representation => {
  if (node._tag === "Reference") return node
  const unlisted = node.checks.filter((check) => check._tag === "Filter" && check.annotations?.toJsonSchema === undefined)
  return unlisted.length === 0
    ? node
    : { ...node, annotations: Object.assign({}, node.annotations, ...unlisted.map((check) => check.annotations)) }
}

/**
 * The representation as listed: check annotations kept (`withCheckAnnotations`), and no `undefined`
 * members of unions (`Schema.optional`'s), since JSON has none: a key that holds it is left out of
 * the JSON text.
 */
const listable = (representation: Representation): Representation => {
  const node = withCheckAnnotations(representation)
  switch (node._tag) {
    case "Union":
      return { ...node, types: node.types.filter((type) => type._tag !== "Undefined").map(listable) }
    case "Objects":
      return {
        ...node,
        propertySignatures: node.propertySignatures.map((property) => ({ ...property, type: listable(property.type) })),
        indexSignatures: node.indexSignatures.map((index) => ({ ...index, type: listable(index.type) }))
      }
    case "Arrays":
      return {
        ...node,
        elements: node.elements.map((element) => ({ ...element, type: listable(element.type) })),
        rest: node.rest.map(listable)
      }
    case "Suspend":
      return { ...node, thunk: listable(node.thunk) }
    default:
      return node
  }
}

/**
 * Effect's JSON Schema of what the server decodes: the schema's encoded side itself, not its JSON
 * codec's; objects closed (the server refuses unknown keys), everything inline.
 */
const generate = (schema: Schema.Top): JsonObject => {
  const { references, representation } = Schema.toRepresentation(schema, { referencePolicy: () => undefined })
  return SchemaRepresentation.toJsonSchemaDocument(
    { representation: listable(representation), references: Record.map(references, listable) },
    { onExcessProperty: "error", includeAnnotationKey: (key) => key === LISTED_AS }
  ).schema
}

/** The descriptions the id schemas carry themselves: said once in the instructions, not per argument. */
const COMMON_DESCRIPTIONS: ReadonlySet<unknown> = new Set(
  [PaneId, WindowId, SessionId].map((schema) => SchemaAST.resolveDescription(schema.ast))
)

/** The patterns of the id schemas: said once in the instructions (`%N`, `@N`, `$N`), not per argument. */
const ID_PATTERNS: ReadonlySet<unknown> = new Set([PaneId, WindowId, SessionId].map((schema) => generate(schema).pattern))

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
const SCHEMA_MAPS = new Set(["properties", "patternProperties"])
/** Keywords whose value is a schema or a list of schemas. */
const SCHEMA_VALUES = new Set(["items", "additionalProperties", "anyOf", "oneOf", "not", "prefixItems"])

/** A tool's arguments or its result; "input with ids" keeps the id patterns, for sweeps that tell id arguments apart. */
type Side = "input" | "input with ids" | "output"

const dropped = (key: string, value: unknown, side: Side): boolean =>
  (side === "output" && OUTPUT_ONLY_PROSE.has(key)) ||
  (side !== "output" && INPUT_BOUNDS.has(key) && typeof value === "number") ||
  (side === "input" && key === "pattern" && typeof value === "string" && ID_PATTERNS.has(value)) ||
  (key === "description" && COMMON_DESCRIPTIONS.has(value))

/** The branch Effect 4 adds to a number for its JSON codec, which takes NaN and the infinities as strings. */
const isNumberAsString = (branch: unknown): boolean =>
  isObject(branch) && branch.type === "string" && Array.isArray(branch.enum) && branch.enum.length === 3 &&
  ["NaN", "Infinity", "-Infinity"].every((special) => (branch.enum as Array<unknown>).includes(special))

/** `node` with `members`' keywords merged in (after its own, or `before` them), when no keyword is said twice. */
const merged = (node: JsonObject, members: Array<unknown>, before = false): JsonObject | undefined =>
  members.reduce<JsonObject | undefined>(
    (into, member) =>
      into !== undefined && isObject(member) && Object.keys(member).every((key) => !(key in into))
        ? (before ? { ...member, ...into } : { ...into, ...member })
        : undefined,
    node
  )

/**
 * The node as one schema: a number without its JSON codec's strings, a one-branch `anyOf` and the
 * checks Effect 4 wraps in `allOf` merged into the node, and the `LISTED_AS` annotation in place of
 * the node (keeping its description).
 */
const flattened = (node: JsonObject): JsonObject => {
  let out = node
  if (Array.isArray(out.anyOf) && out.anyOf.some((branch) => isObject(branch) && branch.type === "number")) {
    const branches = out.anyOf.filter((branch) => !isNumberAsString(branch))
    out = { ...out, anyOf: branches }
  }
  if (Array.isArray(out.anyOf) && out.anyOf.length === 1) {
    const { anyOf, ...rest } = out
    out = merged(rest, anyOf, true) ?? out
  }
  if (Array.isArray(out.allOf)) {
    const { allOf, ...rest } = out
    out = merged(rest, allOf) ?? out
  }
  const listedAs = out[LISTED_AS]
  if (!isObject(listedAs)) return out
  return out.description === undefined ? listedAs : { ...listedAs, description: out.description }
}

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

/** Effect 3's order of an object's keywords (`required` before `properties`), which tools/list keeps. */
const inEffect3Order = (entries: Array<[string, unknown]>): Array<[string, unknown]> => {
  const required = entries.findIndex(([key]) => key === "required")
  const properties = entries.findIndex(([key]) => key === "properties")
  if (required < properties || properties === -1) return entries
  const [entry] = entries.splice(required, 1)
  entries.splice(properties, 0, entry!)
  return entries
}

const clean = (node: unknown, side: Side): unknown => {
  if (Array.isArray(node)) return node.map((item) => clean(item, side))
  if (!isObject(node)) return node
  const out: JsonObject = {}
  for (const [key, value] of inEffect3Order(Object.entries(flattened(node)))) {
    if (dropped(key, value, side)) continue
    if (SCHEMA_MAPS.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, clean(schema, side)]))
    } else if (SCHEMA_VALUES.has(key)) {
      out[key] = clean(value, side)
    } else {
      out[key] = value
    }
  }
  // Arguments keep anyOf branches of one type each: clients mapping schemas onto a single-type
  // dialect (Gemini's function declarations) refuse a type list.
  return side === "output" ? typeList(out) : out
}

/**
 * An object schema as MCP wants it: `type: "object"` at the root, nothing said twice; `side` says
 * whether it describes a tool's arguments or its result.
 */
export const toolJsonSchema = (schema: Schema.Top, side: Side = "input"): { type: "object"; [key: string]: unknown } => {
  const { additionalProperties: _, ...json } = clean(generate(schema), side) as JsonObject
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
