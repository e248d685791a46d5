/**
 * Filters on the tree's listings, applied in our process to the decoded rows (no filter value ever
 * reaches a tmux format), before paging: a listing's `total` counts the matches. Every condition
 * must hold. A text field (one that takes any string: names, command, cwd, title, layout) matches
 * a substring, or with `regex` a regular expression run time-boxed by the TextMatcher that
 * search_panes uses; every other field (ids, numbers, flags) must equal the value.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { InvalidInput } from "../../domain/Errors.js"
import { compileMatcher } from "../bounds/TextMatcher.js"
import { project, type Projected } from "./Fields.js"

/** A value a field is compared with. */
export type Condition = string | number | boolean | null

/** Conditions on an item's fields, all of which must hold. */
export interface ItemFilter<K extends string> {
  readonly where?: Partial<Record<K, Condition>> | undefined
  /** String conditions on text fields are regular expressions, not substrings. */
  readonly regex?: boolean | undefined
}

type Fields = Readonly<Record<string, Schema.Top>>

/** The fields of a model that take any string: those a string condition matches as text. */
export const textFields = (fields: Fields): ReadonlySet<string> =>
  new Set(Object.keys(fields).filter((name) => Schema.is(Schema.toType(fields[name] as Schema.Top))("")))

/** The fields a filter reads: the listing must ask tmux for them even when it does not return them. */
export const filterFields = <K extends string>(filter: ItemFilter<K>): ReadonlyArray<K> => Object.keys(filter.where ?? {}) as Array<K>

/**
 * The items every condition holds for, in order. A text condition runs over all the items' values
 * in one batch (one time box for a regex); a bad or runaway regex is InvalidInput naming the field.
 */
export const filterItems = <A extends object, K extends string>(
  items: ReadonlyArray<A>,
  filter: ItemFilter<K>,
  text: ReadonlySet<string>
): Effect.Effect<ReadonlyArray<A>, InvalidInput> =>
  Effect.gen(function*() {
    let kept = items
    for (const [field, value] of Object.entries(filter.where ?? {}) as Array<[string, Condition]>) {
      if (kept.length === 0) break
      const values = kept.map((item) => (item as Record<string, unknown>)[field])
      if (typeof value === "string" && text.has(field)) {
        const matcher = yield* compileMatcher({ patterns: [value], regex: filter.regex }, {
          argument: `where.${field}`,
          single: true,
          subject: `the ${field} values`
        })
        const lines = values.map((v) => (typeof v === "string" ? v : ""))
        const matched = new Set((yield* matcher.matchLines(lines)).map((match) => match.line))
        kept = kept.filter((_, index) => matched.has(index))
      } else {
        kept = kept.filter((_, index) => values[index] === value)
      }
    }
    return kept
  })

/** The fields a listing asks tmux for: those it returns, and those the filter reads. */
export const withFilterFields = <K extends string>(fields: ReadonlyArray<K>, filter: ItemFilter<K>): ReadonlyArray<K> => {
  const extra = filterFields(filter).filter((field) => !fields.includes(field))
  return extra.length === 0 ? fields : [...fields, ...extra]
}

/** The items that pass the filter, cut back to the `returned` fields when the filter read others. */
export const selectItems = <A extends object, K extends string>(
  items: ReadonlyArray<A>,
  filter: ItemFilter<K>,
  text: ReadonlySet<string>,
  returned: ReadonlyArray<string>
): Effect.Effect<Array<Projected<A>>, InvalidInput> =>
  Effect.map(
    filterItems(items, filter, text),
    (kept) => filterFields(filter).every((field) => returned.includes(field)) ? [...kept] : kept.map((item) => project(item, returned))
  )
