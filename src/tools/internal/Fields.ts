/**
 * The `fields` argument of the list tools: a compact default set of fields per item, names to ask
 * for others, or "all". The item's key is returned whatever is asked; the output schema says which
 * fields every item has (the key) and which it may have.
 */
import * as Schema from "effect/Schema"
import { withKey } from "../../operations/hierarchy/Fields.js"
import { optional } from "../Tool.js"

/**
 * The `fields` argument for a model whose fields are `all`. `sameAs` names a tool listed before
 * this one whose `fields` take the same names: tools/list then shows them once, there (~290 B), and
 * this one says so; decoding checks the names the same either way.
 */
export const fieldsArgument = <K extends string>(all: ReadonlyArray<K>, defaults: ReadonlyArray<K>, sameAs?: string) => {
  const names = Schema.Union(Schema.Literal("all"), Schema.Array(Schema.Literal(...(all as [K, ...Array<K>]))))
  return sameAs === undefined
    ? optional(names, `Default: ${defaults.join(", ")}.`)
    : optional(
      names.annotations({ jsonSchema: { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] } }),
      `"all" or ${sameAs}' names; default: ${defaults.join(", ")}.`
    )
}

/**
 * The `fields` of a tool whose items are another tool's (listed before it): the same names and the
 * same defaults, said once, there; decoding checks the names the same way.
 */
export const fieldsLike = <K extends string>(all: ReadonlyArray<K>, tool: string) =>
  optional(
    Schema.Union(Schema.Literal("all"), Schema.Array(Schema.Literal(...(all as [K, ...Array<K>])))).annotations({
      jsonSchema: { anyOf: [{ type: "string" }, { type: "array", items: { type: "string" } }] }
    }),
    `As ${tool}${tool.endsWith("s") ? "'" : "'s"}.`
  )

/** The fields a call returns: the defaults, every one for "all", or those named; the key always. */
export const fieldsOf = <K extends string>(
  requested: "all" | ReadonlyArray<K> | undefined,
  all: ReadonlyArray<K>,
  key: ReadonlyArray<K>,
  defaults: ReadonlyArray<K>
): Array<K> => withKey(all, key, requested === "all" ? all : requested ?? defaults)
