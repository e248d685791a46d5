/**
 * A window's layout as tmux 3.3a keeps it (layout.c, layout-set.c, layout-custom.c): a tree of
 * cells, each a pane or a row (left-right, `{…}`) or column (top-bottom, `[…]`) of cells, one cell
 * of border between neighbours. Splits, closes, resizes and the preset layouts change the tree the
 * way tmux does, the panes' sizes and offsets follow from it, and `#{window_layout}` prints it with
 * tmux's checksum. The tree of a world built from specs is derived from its panes on first use.
 */
import type { FakePane, FakeWindow } from "../FakeWorld.js"

type Direction = "leftright" | "topbottom"

interface PaneCell {
  readonly kind: "pane"
  pane: string
  sx: number
  sy: number
  xoff: number
  yoff: number
  parent: NodeCell | undefined
}
interface NodeCell {
  readonly kind: Direction
  cells: Array<Cell>
  sx: number
  sy: number
  xoff: number
  yoff: number
  parent: NodeCell | undefined
}
type Cell = PaneCell | NodeCell

/** tmux 3.3a's PANE_MINIMUM. */
const MINIMUM = 1

const trees = new WeakMap<FakeWindow, Cell>()

const paneCell = (pane: string, sx: number, sy: number, xoff = 0, yoff = 0, parent?: NodeCell): PaneCell => ({
  kind: "pane",
  pane,
  sx,
  sy,
  xoff,
  yoff,
  parent
})
const nodeCell = (kind: Direction, sx: number, sy: number, xoff = 0, yoff = 0, parent?: NodeCell): NodeCell => ({
  kind,
  cells: [],
  sx,
  sy,
  xoff,
  yoff,
  parent
})

const panesOf = (cell: Cell): Array<string> => (cell.kind === "pane" ? [cell.pane] : cell.cells.flatMap(panesOf))

/** The panes of a spec-built window, stacked as they were given (or the only pane, the window's size). */
const derive = (window: FakeWindow): Cell => {
  if (window.panes.length === 1) return paneCell(window.panes[0]!.id, window.width, window.height)
  const root = nodeCell("topbottom", window.width, window.height)
  for (const pane of window.panes) root.cells.push(paneCell(pane.id, pane.width, pane.height, pane.left, pane.top, root))
  return root
}

const treeOf = (window: FakeWindow): Cell => {
  const tree = trees.get(window)
  const ids = window.panes.map((p) => p.id)
  // A test may add or remove panes by hand: a tree that no longer holds exactly the panes is derived again.
  if (tree !== undefined && panesOf(tree).length === ids.length && panesOf(tree).every((id) => ids.includes(id))) return tree
  const derived = derive(window)
  trees.set(window, derived)
  return derived
}

const size = (cell: Cell, direction: Direction) => (direction === "leftright" ? cell.sx : cell.sy)

/** How much a cell can shrink in `direction` (layout_resize_check). */
const shrinkable = (cell: Cell, direction: Direction): number => {
  if (cell.kind === "pane") return Math.max(0, size(cell, direction) - MINIMUM)
  const each = cell.cells.map((child) => shrinkable(child, direction))
  return cell.kind === direction ? each.reduce((a, b) => a + b, 0) : Math.min(...each)
}

/** Grows or shrinks a cell and its children (layout_resize_adjust: a row shares a change out one cell at a time). */
const adjust = (cell: Cell, direction: Direction, change: number): void => {
  if (direction === "leftright") cell.sx += change
  else cell.sy += change
  if (cell.kind === "pane") return
  if (cell.kind !== direction) {
    for (const child of cell.cells) adjust(child, direction, change)
    return
  }
  let left = change
  while (left !== 0) {
    let moved = false
    for (const child of cell.cells) {
      if (left === 0) break
      if (left > 0) {
        adjust(child, direction, 1)
        left--
        moved = true
      } else if (shrinkable(child, direction) > 0) {
        adjust(child, direction, -1)
        left++
        moved = true
      }
    }
    if (!moved) break
  }
}

/** Sets every cell's offsets from its place in the tree (layout_fix_offsets). */
const fixOffsets = (cell: Cell): void => {
  if (cell.kind === "pane") return
  let x = cell.xoff
  let y = cell.yoff
  for (const child of cell.cells) {
    child.xoff = x
    child.yoff = y
    fixOffsets(child)
    if (cell.kind === "leftright") x += child.sx + 1
    else y += child.sy + 1
  }
}

const cellsOf = (cell: Cell): Array<PaneCell> => (cell.kind === "pane" ? [cell] : cell.cells.flatMap(cellsOf))

/** Makes `root` the window's layout and gives every pane its cell's size (a zoomed window's active pane fills it). */
const install = (window: FakeWindow, root: Cell): void => {
  root.parent = undefined
  root.xoff = 0
  root.yoff = 0
  fixOffsets(root)
  trees.set(window, root)
  for (const cell of cellsOf(root)) {
    const pane = window.panes.find((p) => p.id === cell.pane)
    if (pane === undefined) continue
    const zoomed = window.zoomed && pane.id === window.activePane
    pane.width = zoomed ? window.width : cell.sx
    pane.height = zoomed ? window.height : cell.sy
    pane.left = zoomed ? 0 : cell.xoff
    pane.top = zoomed ? 0 : cell.yoff
  }
}

const cellOf = (window: FakeWindow, paneId: string): PaneCell => {
  const cell = cellsOf(treeOf(window)).find((c) => c.pane === paneId)
  if (cell === undefined) throw new Error(`FakeTmux: pane ${paneId} has no layout cell`)
  return cell
}

/** The pane's size and offsets after a zoom change or a manual edit: recomputed from the tree. */
export const refreshLayout = (window: FakeWindow): void => install(window, treeOf(window))

/**
 * Splits `paneId`'s cell for `newPaneId` (layout_split_pane): `size` is the new pane's size (half
 * otherwise), `before` puts it above or left. Returns false when there is no room ("no space for
 * new pane"). Call it before the new pane joins `window.panes`, and `refreshLayout` after.
 */
export const splitCell = (
  window: FakeWindow,
  paneId: string,
  newPaneId: string,
  direction: Direction,
  requested: number | undefined,
  before: boolean
): boolean => {
  const cell = cellOf(window, paneId)
  const saved = size(cell, direction)
  if (saved < MINIMUM * 2 + 1) return false
  let size2 = requested === undefined ? Math.floor((saved + 1) / 2) - 1 : before ? saved - requested - 1 : requested
  size2 = Math.max(MINIMUM, Math.min(saved - 2, size2))
  const size1 = saved - 1 - size2
  const added = paneCell(newPaneId, cell.sx, cell.sy)
  const parent = cell.parent
  if (parent !== undefined && parent.kind === direction) {
    added.parent = parent
    parent.cells.splice(parent.cells.indexOf(cell) + (before ? 0 : 1), 0, added)
  } else {
    const node = nodeCell(direction, cell.sx, cell.sy, cell.xoff, cell.yoff, parent)
    if (parent === undefined) trees.set(window, node)
    else parent.cells[parent.cells.indexOf(cell)] = node
    cell.parent = node
    added.parent = node
    node.cells = before ? [added, cell] : [cell, added]
  }
  const [first, second] = before ? [added, cell] : [cell, added]
  if (direction === "leftright") {
    first.sx = size1
    second.sx = size2
  } else {
    first.sy = size1
    second.sy = size2
  }
  return true
}

/** Removes a closed pane's cell, its space going to the cell before it (or after, for the first) (layout_destroy_cell). */
export const closeCell = (window: FakeWindow, paneId: string): void => {
  const cell = cellOf(window, paneId)
  const parent = cell.parent
  if (parent === undefined) {
    trees.delete(window)
    return
  }
  const at = parent.cells.indexOf(cell)
  const other = at === 0 ? parent.cells[1] : parent.cells[at - 1]
  if (other !== undefined) adjust(other, parent.kind, size(cell, parent.kind) + 1)
  parent.cells.splice(at, 1)
  if (parent.cells.length === 1) {
    const only = parent.cells[0]!
    only.parent = parent.parent
    if (parent.parent === undefined) trees.set(window, only)
    else parent.parent.cells[parent.parent.cells.indexOf(parent)] = only
  }
  install(window, trees.get(window)!)
}

/** Moves the border after `cell` (or before it, for the last one) by `change` (layout_resize_layout). */
const moveBorder = (start: Cell, direction: Direction, change: number): void => {
  const parent = start.parent!
  let needed = change
  while (needed !== 0) {
    const at = parent.cells.indexOf(start)
    let moved = 0
    if (needed > 0) {
      // Grow: take from the first cell after it that can give, else before it.
      const donors = [...parent.cells.slice(at + 1), ...parent.cells.slice(0, at).reverse()]
      const donor = donors.find((c) => shrinkable(c, direction) > 0)
      if (donor !== undefined) {
        moved = Math.min(needed, shrinkable(donor, direction))
        adjust(start, direction, moved)
        adjust(donor, direction, -moved)
        needed -= moved
      }
    } else {
      const next = parent.cells[at + 1]
      const donor = parent.cells
        .slice(0, at + 1)
        .reverse()
        .find((c) => shrinkable(c, direction) > 0)
      if (donor !== undefined && next !== undefined) {
        moved = Math.min(-needed, shrinkable(donor, direction))
        adjust(next, direction, moved)
        adjust(donor, direction, -moved)
        needed += moved
      }
    }
    if (moved === 0) break
  }
}

/** Sets a pane's width or height as far as its neighbours allow (layout_resize_pane_to); a lone pane keeps its size. */
export const resizeCell = (window: FakeWindow, paneId: string, direction: Direction, wanted: number): void => {
  let cell: Cell = cellOf(window, paneId)
  while (cell.parent !== undefined && cell.parent.kind !== direction) cell = cell.parent
  const parent = cell.parent
  if (parent === undefined) return
  const last = parent.cells[parent.cells.length - 1] === cell
  const change = last ? size(cell, direction) - wanted : wanted - size(cell, direction)
  moveBorder(last ? parent.cells[parent.cells.length - 2]! : cell, direction, change)
  install(window, treeOf(window))
}

/** Gives the window a new size; the layout follows as far as its panes can shrink (layout_resize). */
export const resizeLayout = (window: FakeWindow, width: number, height: number): void => {
  const root = treeOf(window)
  window.width = width
  window.height = height
  for (const direction of ["leftright", "topbottom"] as const) {
    const target = direction === "leftright" ? window.width : window.height
    let change = target - size(root, direction)
    const limit = shrinkable(root, direction)
    if (change < 0 && change < -limit) change = -limit
    if (change !== 0) adjust(root, direction, change)
  }
  install(window, root)
}

/** Two panes trade places (and sizes): swap-pane. */
export const swapCells = (first: { window: FakeWindow; pane: FakePane }, second: { window: FakeWindow; pane: FakePane }): void => {
  const a = cellOf(first.window, first.pane.id)
  const b = cellOf(second.window, second.pane.id)
  a.pane = second.pane.id
  b.pane = first.pane.id
}

/** Installs the trees of the windows a swap touched, once their pane lists are up to date. */
export const reinstall = (window: FakeWindow): void => {
  const tree = trees.get(window)
  if (tree !== undefined) install(window, tree)
}

// ---- preset layouts (layout-set.c) --------------------------------------------------------------

export const LAYOUT_NAMES = ["even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled"] as const

/** Gives every child of a row or column an equal share, the last one the rest (layout_spread_cell). */
const spread = (node: NodeCell): void => {
  const total = size(node, node.kind)
  const count = node.cells.length
  if (count <= 1 || total < count - 1) return
  const each = Math.floor((total - (count - 1)) / count)
  if (each === 0) return
  node.cells.forEach((child, i) => {
    const wanted = i === count - 1 ? total - (each + 1) * (count - 1) : each
    adjust(child, node.kind, wanted - size(child, node.kind))
  })
}

const even = (window: FakeWindow, direction: Direction): Cell => {
  const count = window.panes.length
  const sx = direction === "leftright" ? Math.max(window.width, count * (MINIMUM + 1) - 1) : window.width
  const sy = direction === "topbottom" ? Math.max(window.height, count * (MINIMUM + 1) - 1) : window.height
  const root = nodeCell(direction, sx, sy)
  root.cells = window.panes.map((pane) => paneCell(pane.id, window.width, window.height, 0, 0, root))
  // Each child starts at the window's size and is adjusted to its share.
  for (const child of root.cells) {
    if (direction === "leftright") child.sy = sy
    else child.sx = sx
  }
  spread(root)
  return root
}

/** main-horizontal / main-vertical: the first pane big (24 rows / 80 columns), the others in a row or column. */
const main = (window: FakeWindow, direction: Direction): Cell => {
  const along = direction === "topbottom" ? window.height : window.width
  const across = direction === "topbottom" ? window.width : window.height
  const available = along - 1
  let mainSize = Math.min(direction === "topbottom" ? 24 : 80, available)
  let otherSize: number
  if (mainSize + MINIMUM >= available) {
    mainSize = available <= MINIMUM * 2 ? MINIMUM : available - MINIMUM
    otherSize = MINIMUM
  } else {
    otherSize = available - mainSize
  }
  const others = window.panes.slice(1)
  const acrossSize = Math.max(across, others.length * (MINIMUM + 1) - 1)
  const sized = (cell: Cell, alongSize: number) => {
    if (direction === "topbottom") {
      cell.sx = acrossSize
      cell.sy = alongSize
    } else {
      cell.sx = alongSize
      cell.sy = acrossSize
    }
    return cell
  }
  const root = sized(nodeCell(direction, 0, 0), mainSize + otherSize + 1) as NodeCell
  const first = sized(paneCell(window.panes[0]!.id, 0, 0, 0, 0, root), mainSize)
  let rest: Cell
  if (others.length === 1) {
    rest = sized(paneCell(others[0]!.id, 0, 0, 0, 0, root), otherSize)
  } else {
    const node = sized(nodeCell(direction === "topbottom" ? "leftright" : "topbottom", 0, 0, 0, 0, root), otherSize) as NodeCell
    node.cells = others.map((pane) => {
      const cell = paneCell(pane.id, MINIMUM, MINIMUM, 0, 0, node)
      if (direction === "topbottom") cell.sy = otherSize
      else cell.sx = otherSize
      return cell
    })
    spread(node)
    rest = node
  }
  root.cells = [first, rest]
  return root
}

/** tiled: rows and columns as near square as the panes allow, the last row spread over the width. */
const tiled = (window: FakeWindow): Cell => {
  const count = window.panes.length
  let rows = 1
  let columns = 1
  while (rows * columns < count) {
    rows++
    if (rows * columns < count) columns++
  }
  const width = Math.max(MINIMUM, Math.floor((window.width - (columns - 1)) / columns))
  const height = Math.max(MINIMUM, Math.floor((window.height - (rows - 1)) / rows))
  const sx = Math.max(window.width, (width + 1) * columns - 1)
  const sy = Math.max(window.height, (height + 1) * rows - 1)
  const root = nodeCell("topbottom", sx, sy)
  let remaining = [...window.panes]
  for (let r = 0; r < rows && remaining.length > 0; r++) {
    const inRow = remaining.slice(0, columns)
    remaining = remaining.slice(columns)
    const rowHeight = r === rows - 1 ? sy - (height + 1) * (rows - 1) : height
    // A row of one pane is that pane, the whole width.
    if (inRow.length === 1) {
      root.cells.push(paneCell(inRow[0]!.id, sx, rowHeight, 0, 0, root))
      continue
    }
    const row = nodeCell("leftright", sx, rowHeight, 0, 0, root)
    row.cells = inRow.map((pane) => paneCell(pane.id, width, rowHeight, 0, 0, row))
    spread(row)
    root.cells.push(row)
  }
  if (root.cells.length === 1) return root.cells[0]!
  return root
}

/** A preset by name or unique prefix (layout_set_lookup), or undefined. */
export const presetNamed = (name: string): (typeof LAYOUT_NAMES)[number] | undefined => {
  const exact = LAYOUT_NAMES.find((candidate) => candidate === name)
  if (exact !== undefined) return exact
  const prefixed = LAYOUT_NAMES.filter((candidate) => candidate.startsWith(name))
  return prefixed.length === 1 ? prefixed[0] : undefined
}

/** Arranges the window's panes in a preset layout (a lone pane keeps the window). */
export const applyPreset = (window: FakeWindow, name: (typeof LAYOUT_NAMES)[number]): void => {
  if (window.panes.length <= 1) return
  const root = name === "even-horizontal"
    ? even(window, "leftright")
    : name === "even-vertical"
    ? even(window, "topbottom")
    : name === "main-horizontal"
    ? main(window, "topbottom")
    : name === "main-vertical"
    ? main(window, "leftright")
    : tiled(window)
  install(window, root)
  window.width = root.sx
  window.height = root.sy
}

// ---- layout strings (layout-custom.c) -----------------------------------------------------------

const checksum = (text: string): string => {
  let sum = 0
  for (const char of text) {
    sum = ((sum >> 1) + ((sum & 1) << 15)) & 0xffff
    sum = (sum + char.charCodeAt(0)) & 0xffff
  }
  return sum.toString(16).padStart(4, "0")
}

const dumpCell = (cell: Cell): string => {
  const head = `${cell.sx}x${cell.sy},${cell.xoff},${cell.yoff}`
  if (cell.kind === "pane") return `${head},${cell.pane.slice(1)}`
  const [open, close] = cell.kind === "leftright" ? ["{", "}"] : ["[", "]"]
  return `${head}${open}${cell.cells.map(dumpCell).join(",")}${close}`
}

/** `#{window_layout}`: the layout string with its checksum. */
export const layoutString = (window: FakeWindow): string => {
  const body = dumpCell(treeOf(window))
  return `${checksum(body)},${body}`
}

/** Reads one cell of a layout string from `text` at `at`; null when it is not one. */
const parseCell = (text: string, at: { i: number }, parent: NodeCell | undefined): Cell | null => {
  const head = /^(\d+)x(\d+),(\d+),(\d+)/.exec(text.slice(at.i))
  if (head === null) return null
  at.i += head[0].length
  const [sx, sy, xoff, yoff] = head.slice(1).map(Number) as [number, number, number, number]
  const next = text[at.i]
  if (next === "," && /^\d/.test(text.slice(at.i + 1))) {
    const id = /^\d+/.exec(text.slice(at.i + 1))![0]
    // A number followed by "x" is the next cell's size, not this cell's pane.
    if (text[at.i + 1 + id.length] !== "x") {
      at.i += 1 + id.length
      return paneCell(`%${id}`, sx, sy, xoff, yoff, parent)
    }
  }
  if (next !== "{" && next !== "[") return paneCell("", sx, sy, xoff, yoff, parent)
  const node = nodeCell(next === "{" ? "leftright" : "topbottom", sx, sy, xoff, yoff, parent)
  const close = next === "{" ? "}" : "]"
  at.i++
  for (;;) {
    const child = parseCell(text, at, node)
    if (child === null) return null
    node.cells.push(child)
    if (text[at.i] === ",") {
      at.i++
      continue
    }
    if (text[at.i] !== close) return null
    at.i++
    return node
  }
}

/** Whether the sizes of a parsed layout add up (layout_check). */
const consistent = (cell: Cell): boolean => {
  if (cell.kind === "pane") return true
  let total = -1
  for (const child of cell.cells) {
    if (cell.kind === "leftright" ? child.sy !== cell.sy : child.sx !== cell.sx) return false
    total += size(child, cell.kind) + 1
    if (!consistent(child)) return false
  }
  return total === size(cell, cell.kind)
}

/**
 * Applies a layout string (layout_parse): the checksum must match, the window must not have more
 * panes than the layout has cells (extra cells at the bottom right are closed), and the sizes must
 * add up. Returns tmux's reason when it refuses.
 */
export const applyLayoutString = (window: FakeWindow, text: string): string | undefined => {
  const comma = text.indexOf(",")
  if (comma !== 4 || !/^[0-9a-f]{4}$/i.test(text.slice(0, 4)) || checksum(text.slice(5)) !== text.slice(0, 4).toLowerCase()) {
    return "invalid layout"
  }
  const at = { i: 5 }
  const root = parseCell(text, at, undefined)
  if (root === null || at.i !== text.length) return "invalid layout"
  let cells = cellsOf(root)
  if (window.panes.length > cells.length) return `have ${window.panes.length} panes but need ${cells.length}`
  let tree: Cell = root
  while (cells.length > window.panes.length) {
    const bottomRight = cells[cells.length - 1]!
    const parent = bottomRight.parent!
    const i = parent.cells.indexOf(bottomRight)
    const other = i === 0 ? parent.cells[1] : parent.cells[i - 1]
    if (other !== undefined) adjust(other, parent.kind, size(bottomRight, parent.kind) + 1)
    parent.cells.splice(i, 1)
    if (parent.cells.length === 1) {
      const only = parent.cells[0]!
      only.parent = parent.parent
      if (parent.parent === undefined) tree = only
      else parent.parent.cells[parent.parent.cells.indexOf(parent)] = only
    }
    cells = cellsOf(tree)
  }
  if (!consistent(tree)) return "size mismatch after applying layout"
  // Panes take the cells in pane-index order, as tmux assigns them.
  cells.forEach((cell, i) => {
    cell.pane = window.panes[i]!.id
  })
  window.width = tree.sx
  window.height = tree.sy
  install(window, tree)
  return undefined
}
