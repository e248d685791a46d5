/**
 * The `fields` argument of the list tools: a compact default set of fields per item, names to ask
 * for others, or "all". The item's key is returned whatever is asked; the output schema says which
 * fields every item has (the key) and which it may have.
 */
import * as Schema from "effect/Schema"
import { withKey } from "../../operations/hierarchy/Fields.js"
import { optional } from "../Tool.js"

/** "all", or a list of `all`'s names. */
const fieldNames = <K extends string>(all: ReadonlyArray<K>) => Schema.Union([Schema.Literal("all"), Schema.Array(Schema.Literals(all))])

/** The names listed as any strings: the tool they are said once in lists them (~290 B for a pane's). */
const saidElsewhere = <K extends string>(all: ReadonlyArray<K>) =>
  fieldNames(all).annotate({ "x-etm-json-schema": { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] } })

/**
 * The `fields` argument for a model whose fields are `all`. `sameAs` names a tool listed before
 * this one whose `fields` take the same names: tools/list then shows them once, there, and this one
 * says so; decoding checks the names the same either way.
 */
export const fieldsArgument = <K extends string>(all: ReadonlyArray<K>, defaults: ReadonlyArray<K>, sameAs?: string) =>
  sameAs === undefined
    ? optional(fieldNames(all), `Default: ${defaults.join(", ")}.`)
    : optional(saidElsewhere(all), `"all" or ${sameAs}' names; default: ${defaults.join(", ")}.`)

/**
 * The `fields` of a tool whose items are another tool's (listed before it): the same names and the
 * same defaults, said once, there.
 */
export const fieldsLike = <K extends string>(all: ReadonlyArray<K>, tool: string) =>
  optional(saidElsewhere(all), `As ${tool}${tool.endsWith("s") ? "'" : "'s"}.`)

/** The fields a call returns: the defaults, every one for "all", or those named; the key always. */
export const fieldsOf = <K extends string>(
  requested: "all" | ReadonlyArray<K> | undefined,
  all: ReadonlyArray<K>,
  key: ReadonlyArray<K>,
  defaults: ReadonlyArray<K>
): Array<K> => withKey(all, key, requested === "all" ? all : requested ?? defaults)
