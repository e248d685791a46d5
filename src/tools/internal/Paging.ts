/**
 * The paging arguments and the page schema of every list tool (the cut itself is `paginate`, in
 * operations/bounds/Paging.ts).
 */
import * as Schema from "effect/Schema"
import { MAX_PAGE_LIMIT } from "../../operations/bounds/Paging.js"
import { Int, NonNegativeInt, optional } from "../Tool.js"

export const pageArguments = {
  offset: optional(NonNegativeInt),
  limit: optional(
    Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: MAX_PAGE_LIMIT })))
  )
}

export const Page = <A, I>(item: Schema.Codec<A, I>) =>
  Schema.Struct({
    items: Schema.Array(item),
    total: NonNegativeInt.annotate({ description: "Items that matched before paging." }),
    offset: NonNegativeInt,
    limit: NonNegativeInt,
    truncated: Schema.Boolean.annotate({ description: "More items exist after this page." })
  })
