/**
 * The `where` argument of the list tools: `{field: value}` over the list's own field names, plus
 * `regex: true` (string values on text fields are then regular expressions) and, for list_panes,
 * one of `left_of` / `right_of` / `above` / `below` naming a pane. The schema checks the keys and
 * each value's type (an unknown key is invalid_input listing the valid ones); tools/list shows it
 * as a bare object, what it means is said once, in the instructions and docs/tools.md.
 */
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/Ids.js"
import { type Condition, type ItemFilter, textFields } from "../../operations/hierarchy/Filters.js"
import type { Beside, Side } from "../../operations/hierarchy/Neighbours.js"
import { optional } from "../Tool.js"

type Fields = Readonly<Record<string, Schema.Top>>

/** A condition's schema: any non-empty string for a text field, else the field's own type. */
const conditionOf = (field: Schema.Top, text: boolean): Schema.Top =>
  text ? Schema.String.pipe(Schema.check(Schema.isMinLength(1))) : Schema.toType(field as Schema.Top)

const NEIGHBOUR_KEYS = { left_of: "left", right_of: "right", above: "above", below: "below" } as const satisfies Record<string, Side>

/** The `where` argument over a model's fields; `neighbours` adds the keys that name a pane beside. */
export const whereArgument = (fields: Fields, options: { readonly neighbours?: boolean } = {}, description?: string) => {
  const text = textFields(fields)
  const conditions = Object.fromEntries(
    Object.entries(fields).map(([name, field]) => [name, Schema.optionalKey(conditionOf(field, text.has(name)))])
  )
  const neighbours = options.neighbours === true
    ? Object.fromEntries(Object.keys(NEIGHBOUR_KEYS).map((key) => [key, Schema.optionalKey(PaneId)]))
    : {}
  return optional(
    Schema.Struct({ ...conditions, ...neighbours, regex: Schema.optionalKey(Schema.Boolean) })
      .annotate({ "x-etm-json-schema": { type: "object" } }),
    description
  )
}

type WhereInput = Readonly<Record<string, Condition | undefined>>

/** The field conditions and the regex switch, for the operation. */
export const itemFilterOf = <K extends string>(where: WhereInput | undefined): ItemFilter<K> => {
  if (where === undefined) return {}
  const conditions: Record<string, Condition> = {}
  for (const [key, value] of Object.entries(where)) {
    if (key !== "regex" && !(key in NEIGHBOUR_KEYS) && value !== undefined) conditions[key] = value
  }
  return { where: conditions as Partial<Record<K, Condition>>, regex: where.regex === true }
}

/** The neighbour key given, if any; more than one is an error the caller reports. */
export const besideOf = (where: WhereInput | undefined): ReadonlyArray<Beside> =>
  Object.entries(NEIGHBOUR_KEYS).flatMap(([key, side]) => typeof where?.[key] === "string" ? [{ pane_id: where[key] as string, side }] : [])
