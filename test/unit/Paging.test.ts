import { describe, expect, it } from "@effect/vitest"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, paginate } from "../../src/operations/bounds/Paging.js"
import { pageArguments } from "../../src/tools/internal/Paging.js"

const items = Array.from({ length: 250 }, (_, i) => i)
const decode = Schema.decodeUnknownResult(Schema.Struct(pageArguments))

describe("paginate", () => {
  it("returns the first page by default and says more exists", () => {
    const page = paginate(items, {})
    expect(page.items).toEqual(items.slice(0, DEFAULT_PAGE_LIMIT))
    expect(page).toMatchObject({ total: 250, offset: 0, limit: DEFAULT_PAGE_LIMIT, truncated: true })
  })

  it("pages with offset and limit", () => {
    expect(paginate(items, { offset: 240, limit: 5 })).toEqual({
      items: [240, 241, 242, 243, 244],
      total: 250,
      offset: 240,
      limit: 5,
      truncated: true
    })
    expect(paginate(items, { offset: 245, limit: 5 })).toMatchObject({ items: [245, 246, 247, 248, 249], truncated: false })
    expect(paginate(items, { offset: 300 })).toMatchObject({ items: [], total: 250, truncated: false })
    expect(paginate([], {})).toEqual({ items: [], total: 0, offset: 0, limit: DEFAULT_PAGE_LIMIT, truncated: false })
  })

  it("bounds the page arguments", () => {
    expect(Result.isSuccess(decode({ limit: MAX_PAGE_LIMIT, offset: 0 }))).toBe(true)
    expect(Result.isSuccess(decode({}))).toBe(true)
    for (const bad of [{ limit: MAX_PAGE_LIMIT + 1 }, { limit: 0 }, { limit: 1.5 }, { offset: -1 }, { offset: "3" }]) {
      expect(Result.isFailure(decode(bad)), JSON.stringify(bad)).toBe(true)
    }
  })
})
