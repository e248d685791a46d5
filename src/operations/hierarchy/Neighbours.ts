/**
 * The panes beside a pane (libtmux's find_pane_by_position): those that touch it across the one
 * cell of border on one side, ordered by how much of that side they share. The rectangles come
 * from the window's layout, which tmux keeps unzoomed while a pane is zoomed (measured on 3.3a: the
 * zoomed pane then reports the whole window as its size), so a zoomed window answers as it will
 * look once unzoomed.
 */
import * as Effect from "effect/Effect"
import * as Format from "../../tmux/Format.js"
import type { TmuxCommand } from "../../tmux/Tmux.js"

export type Side = "left" | "right" | "above" | "below"

/** Which side of a pane to look at. */
export interface Beside {
  readonly pane_id: string
  readonly side: Side
}

export interface Rect {
  readonly left: number
  readonly top: number
  readonly width: number
  readonly height: number
}

/** The window layout of a pane's window (the unzoomed one while zoomed). */
const layoutRecord = Format.record("lay", { layout: Format.string("window_layout") })

/** Prints the layout of the pane's window; put it after a command that fails on a missing pane. */
export const layoutCommand = (paneId: string, marks: Format.Marks): TmuxCommand => [
  "display-message",
  "-p",
  "-t",
  paneId,
  layoutRecord.format(marks)
]

export const decodeLayout = (output: Format.ParsedOutput) =>
  Effect.map(Effect.fromResult(layoutRecord.decodeFirst(output)), (row) => row.layout)

/** A node of tmux 3.8's JSON layout: a pane (`t: "p"`, `I` its id) or a split with children `c`. */
interface JsonLayoutNode {
  readonly t?: string
  readonly w?: number
  readonly h?: number
  readonly x?: number
  readonly y?: number
  readonly I?: string
  readonly c?: ReadonlyArray<JsonLayoutNode>
}

/** Each pane's rectangle in tmux 3.8's JSON layout (`{"V":2,"L":{…}}`). */
const jsonLayoutRects = (layout: string): ReadonlyMap<string, Rect> => {
  const rects = new Map<string, Rect>()
  const visit = (node: JsonLayoutNode | undefined) => {
    if (node === undefined) return
    if (node.t === "p" && typeof node.I === "string") {
      rects.set(node.I, { left: node.x ?? 0, top: node.y ?? 0, width: node.w ?? 0, height: node.h ?? 0 })
    }
    for (const child of node.c ?? []) visit(child)
  }
  try {
    visit((JSON.parse(layout) as { readonly L?: JsonLayoutNode }).L)
  } catch {
    // Not JSON after all: no rectangles, so no neighbours (never a guess).
  }
  return rects
}

/**
 * Each pane's rectangle in a window layout. Before tmux 3.8 it is a string (`csum,WxH,X,Y{…}`): a
 * pane's cell is `WxH,X,Y,N` (N its id without `%`); a split's cell is `WxH,X,Y` followed by `{`
 * or `[`, which the fifth number never matches. tmux 3.8 prints JSON.
 */
export const layoutRects = (layout: string): ReadonlyMap<string, Rect> => {
  if (layout.startsWith("{")) return jsonLayoutRects(layout)
  const rects = new Map<string, Rect>()
  for (const [, width, height, left, top, id] of layout.matchAll(/(\d+)x(\d+),(\d+),(\d+),(\d+)/g)) {
    rects.set(`%${id}`, { left: Number(left), top: Number(top), width: Number(width), height: Number(height) })
  }
  return rects
}

/** How far two ranges [start, start + length) overlap. */
const overlap = (aStart: number, aLength: number, bStart: number, bLength: number): number =>
  Math.min(aStart + aLength, bStart + bLength) - Math.max(aStart, bStart)

/** How much of `of`'s side `candidate` shares, when it sits beside it on that side (a border cell between), else 0. */
const shared = (of: Rect, candidate: Rect, side: Side): number => {
  const touches = side === "right"
    ? candidate.left === of.left + of.width + 1
    : side === "left"
    ? candidate.left + candidate.width + 1 === of.left
    : side === "below"
    ? candidate.top === of.top + of.height + 1
    : candidate.top + candidate.height + 1 === of.top
  if (!touches) return 0
  return side === "left" || side === "right"
    ? overlap(of.top, of.height, candidate.top, candidate.height)
    : overlap(of.left, of.width, candidate.left, candidate.width)
}

/**
 * The ids of the panes beside `paneId` on `side`, most shared border first (then top-left first);
 * empty when none is, or when the pane is not in the layout.
 */
export const panesBeside = (rects: ReadonlyMap<string, Rect>, { pane_id, side }: Beside): ReadonlyArray<string> => {
  const of = rects.get(pane_id)
  if (of === undefined) return []
  return [...rects]
    .map(([id, rect]) => ({ id, rect, shared: id === pane_id ? 0 : shared(of, rect, side) }))
    .filter((candidate) => candidate.shared > 0)
    .sort((a, b) => b.shared - a.shared || a.rect.top - b.rect.top || a.rect.left - b.rect.left)
    .map((candidate) => candidate.id)
}
