/**
 * Bounded lists: every list returns a page of what matched and says whether more exists.
 */

export const DEFAULT_PAGE_LIMIT = 100
export const MAX_PAGE_LIMIT = 1000

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
