/**
 * Bounded lists: every list tool returns a page and says whether more exists.
 */
import * as Schema from "effect/Schema"
import { Int, NonNegativeInt, optional } from "./Tool.js"

export const DEFAULT_PAGE_LIMIT = 100
export const MAX_PAGE_LIMIT = 1000

export const pageArguments = {
  offset: optional(NonNegativeInt, "Items to skip (default 0)."),
  limit: optional(
    Int.pipe(Schema.between(1, MAX_PAGE_LIMIT)),
    `Items to return, 1..${MAX_PAGE_LIMIT} (default ${DEFAULT_PAGE_LIMIT}).`
  )
}

export const Page = <A, I>(item: Schema.Schema<A, I>) =>
  Schema.Struct({
    items: Schema.Array(item),
    total: NonNegativeInt.annotations({ description: "Items that matched before paging." }),
    offset: NonNegativeInt,
    limit: NonNegativeInt,
    truncated: Schema.Boolean.annotations({ description: "More items exist after this page." })
  })

export interface PageOf<A> {
  readonly items: ReadonlyArray<A>
  readonly total: number
  readonly offset: number
  readonly limit: number
  readonly truncated: boolean
}

export const paginate = <A>(
  items: ReadonlyArray<A>,
  request: { readonly offset?: number; readonly limit?: number }
): PageOf<A> => {
  const offset = request.offset ?? 0
  const limit = request.limit ?? DEFAULT_PAGE_LIMIT
  const page = items.slice(offset, offset + limit)
  return { items: page, total: items.length, offset, limit, truncated: offset + page.length < items.length }
}
