/**
 * A model of one tmux 3.3a pane's grid (history rows above the screen rows, and the cursor), for
 * text made of one-cell characters. Written from tmux 3.3a's own code, not from our cursor code:
 *
 * - screen-write.c `screen_write_collect_add`/`screen_write_linefeed`: a character written past the
 *   last column first wraps (the row is marked wrapped, then a line feed); a line feed on the bottom
 *   row scrolls.
 * - grid-view.c `grid_view_scroll_region_up` -> grid.c `grid_collect_history`, `grid_scroll_history`:
 *   before each scroll, a history of `history_size >= history-limit` rows loses its oldest
 *   max(1, limit / 10) rows at once; then the top screen row becomes the newest history row.
 *   (history-limit 0, a pane without history, is not modelled.)
 * - grid.c `grid_clear_history` (`clear-history`, `CSI 3 J`): the history goes, the screen stays.
 * - grid-view.c `grid_view_clear_history` (`CSI 2 J`, or `CSI J` at the top left, with
 *   scroll-on-clear on, its default): the screen's used rows scroll into history one by one, each
 *   scroll collecting as above.
 * - screen.c `screen_resize_y`: shorter: empty rows below the cursor are eaten, the rest of the top
 *   goes into history; taller: rows scrolled into history since the last clear come back down,
 *   then blank rows are added at the bottom. Absolute rows do not move.
 * - grid.c `grid_reflow` (width changes), `grid_wrap_position`/`grid_unwrap_position` for the
 *   cursor. test/integration/pane-grid-model.test.ts checks the model against real tmux.
 */

export interface GridRow {
  /** Which row this is (stable while it moves, new when a width change rebuilds the rows): for tests to follow one. */
  readonly id: number
  /** The cells written (spaces included): tmux's `cellused`. */
  text: string
  /** The line continues on the next row (it wrapped at the right edge). */
  wrapped: boolean
}

/** What a reader could see of the grid at one moment (see `looksAsAt`). */
export interface GridSnapshot {
  readonly shape: string
  readonly rows: string
}

export interface PaneGridOptions {
  readonly width: number
  readonly height: number
  readonly historyLimit: number
}

let rowIds = 0
const newRow = (text: string, wrapped: boolean): GridRow => ({ id: ++rowIds, text, wrapped })
const blank = (): GridRow => newRow("", false)

export class PaneGrid {
  width: number
  height: number
  readonly historyLimit: number
  /** History rows, then the screen rows. */
  rows: Array<GridRow>
  historySize = 0
  /** Rows scrolled into history since the last clear, which a taller pane pulls back (`hscrolled`). */
  historyScrolled = 0
  cursorX = 0
  cursorY = 0

  constructor(options: PaneGridOptions) {
    if (options.historyLimit < 1) throw new Error("PaneGrid models panes with a history")
    this.width = options.width
    this.height = options.height
    this.historyLimit = options.historyLimit
    this.rows = Array.from({ length: options.height }, blank)
  }

  /** Writes text as a terminal program does; `\n` is a line feed only (a pty turns `\n` into `\r\n`: use `line`). */
  write(text: string): void {
    for (let i = 0; i < text.length;) {
      const character = text[i]!
      if (character === "\r" || character === "\n") {
        if (character === "\r") this.cursorX = 0
        else this.lineFeed(false)
        i++
        continue
      }
      let end = i
      while (end < text.length && text[end] !== "\r" && text[end] !== "\n") end++
      // A run of printable characters: as much as fits on the row, then wrap.
      while (i < end) {
        if (this.cursorX > this.width - 1) {
          this.lineFeed(true)
          this.cursorX = 0
        }
        const piece = text.slice(i, Math.min(end, i + this.width - this.cursorX))
        const row = this.rows[this.historySize + this.cursorY]!
        if (this.cursorX === row.text.length) row.text += piece
        else row.text = row.text.padEnd(this.cursorX, " ").slice(0, this.cursorX) + piece + row.text.slice(this.cursorX + piece.length)
        this.cursorX += piece.length
        i += piece.length
      }
    }
  }

  /** A line as a program prints it through the pty: the text, then carriage return and line feed. */
  line(text: string): void {
    this.write(`${text}\r\n`)
  }

  private lineFeed(wrapped: boolean): void {
    if (wrapped) this.rows[this.historySize + this.cursorY]!.wrapped = true
    if (this.cursorY < this.height - 1) {
      this.cursorY++
      return
    }
    this.collect()
    this.rows.push(blank())
    this.historyScrolled++
    this.historySize++
  }

  /** grid_collect_history. */
  private collect(): void {
    if (this.historySize === 0 || this.historySize < this.historyLimit) return
    const drop = Math.min(this.historySize, Math.max(1, Math.floor(this.historyLimit / 10)))
    this.rows.splice(0, drop)
    this.historySize -= drop
    this.historyScrolled = Math.min(this.historyScrolled, this.historySize)
  }

  /** `clear-history`, or `CSI 3 J`. */
  clearHistory(): void {
    this.rows.splice(0, this.historySize)
    this.historySize = 0
    this.historyScrolled = 0
  }

  /** What `clear` prints for TERM=screen (`CSI H CSI J`); `withHistory` adds `CSI 3 J` (tmux-256color, xterm). */
  clear(withHistory: boolean): void {
    this.cursorX = 0
    this.cursorY = 0
    let used = 0
    for (let y = 0; y < this.height; y++) if (this.rows[this.historySize + y]!.text.length > 0) used = y + 1
    for (let y = 0; y < used; y++) {
      this.collect()
      this.rows.push(blank())
      this.historySize++
    }
    for (let y = 0; y < this.height - used; y++) this.rows[this.historySize + y] = blank()
    this.historyScrolled = 0
    if (withHistory) this.clearHistory()
  }

  /** screen_resize_y (with eat_empty, as a window resize does). */
  resizeHeight(height: number): void {
    const cursorRow = this.historySize + this.cursorY
    if (height < this.height) {
      let needed = this.height - height
      const below = Math.min(needed, this.height - 1 - this.cursorY)
      if (below > 0) this.rows.splice(this.rows.length - below, below)
      needed -= below
      this.historyScrolled += needed
      this.historySize += needed
    } else if (height > this.height) {
      let needed = height - this.height
      const pulled = Math.min(this.historyScrolled, needed)
      this.historyScrolled -= pulled
      this.historySize -= pulled
      needed -= pulled
      for (let i = 0; i < needed; i++) this.rows.push(blank())
    }
    this.height = height
    if (cursorRow >= this.historySize) this.cursorY = cursorRow - this.historySize
    else [this.cursorX, this.cursorY] = [0, 0]
  }

  /**
   * A width change: grid_reflow row by row (a row exactly as wide moves, a wider one is split, a
   * wrapped narrower one takes in what fits of the rows after it), with its adjustments of the
   * rows a taller pane pulls back, and the cursor kept on its character (grid_wrap_position).
   */
  resizeWidth(width: number): void {
    if (width === this.width) return
    const source = this.rows
    const cursor = this.wrapPosition(this.cursorX, this.historySize + this.cursorY)
    const dead = new Set<number>()
    const target: Array<GridRow> = []
    const move = (at: number) => {
      target.push(newRow(source[at]!.text, source[at]!.wrapped))
      dead.add(at)
    }
    const join = (at: number, used: number, already: boolean) => {
      const to = already ? target.length - 1 : target.length
      if (!already) move(at)
      const row = target[to]!
      let lines = 0
      let wrapped = true
      let from: GridRow | undefined
      let want = 0
      for (;;) {
        const next = at + 1 + lines
        if (next === source.length) break
        if (!source[next]!.wrapped) wrapped = false
        if (source[next]!.text.length === 0) {
          if (!wrapped) break
          lines++
          continue
        }
        if (used + 1 > width) break
        from = source[next]!
        want = Math.min(from.text.length, width - used)
        row.text += from.text.slice(0, want)
        used += want
        lines++
        if (!wrapped || want !== from.text.length || used === width) break
      }
      if (lines === 0) return
      if (from !== undefined && from.text.length > want) {
        from.text = from.text.slice(want)
        lines--
      } else if (!wrapped) row.wrapped = false
      for (let i = at + 1; i <= at + lines; i++) dead.add(i)
      if (this.historyScrolled > to + lines) this.historyScrolled -= lines
      else if (this.historyScrolled > to) this.historyScrolled = to
    }
    const split = (at: number) => {
      const { text, wrapped } = source[at]!
      const lines = 1 + Math.floor((text.length - 1) / width)
      for (let i = 0; i < lines; i++) {
        const piece = text.slice(i * width, (i + 1) * width)
        target.push(newRow(piece, i < lines - 1 || wrapped))
      }
      dead.add(at)
      if (at <= this.historyScrolled) this.historyScrolled += lines - 1
      const used = text.length - (lines - 1) * width
      if (used < width && wrapped) join(at, used, true)
    }
    for (let at = 0; at < source.length; at++) {
      if (dead.has(at)) continue
      const used = source[at]!.text.length
      if (used === width) move(at)
      else if (used > width) split(at)
      else if (source[at]!.wrapped) join(at, used, false)
      else move(at)
    }
    while (target.length < this.height) target.push(blank())
    this.rows = target
    this.width = width
    this.historySize = target.length - this.height
    this.historyScrolled = Math.min(this.historyScrolled, this.historySize)
    const [x, row] = this.unwrapPosition(cursor)
    if (row >= this.historySize) [this.cursorX, this.cursorY] = [x, row - this.historySize]
    else [this.cursorX, this.cursorY] = [0, 0]
  }

  /** grid_wrap_position: the cursor as (line, offset in the line) across wrapped rows. */
  private wrapPosition(x: number, row: number): readonly [number, number] {
    let offset = 0
    let line = 0
    for (let at = 0; at < row; at++) {
      if (this.rows[at]!.wrapped) offset += this.rows[at]!.text.length
      else [offset, line] = [0, line + 1]
    }
    return [offset + x, line]
  }

  /** grid_unwrap_position. */
  private unwrapPosition([x, line]: readonly [number, number]): readonly [number, number] {
    let at = 0
    for (let seen = 0; at < this.rows.length - 1; at++) {
      if (seen === line) break
      if (!this.rows[at]!.wrapped) seen++
    }
    while (this.rows[at]!.wrapped && x >= this.rows[at]!.text.length) {
      x -= this.rows[at]!.text.length
      at++
    }
    return [x, at]
  }

  /** Rows `from` to `to` (default: all) as capture-pane prints them (trailing spaces dropped), oldest first. */
  captured(from = 0, to = this.rows.length - 1): Array<string> {
    return this.rows.slice(from, to + 1).map((row) => row.text.trimEnd())
  }

  /** Whether a reader would see exactly what it saw at `earlier` (a `snapshot`): rows, history size, size and cursor. */
  looksAsAt(earlier: GridSnapshot): boolean {
    const now = this.shape()
    return now === earlier.shape && this.captured().join("\n") === earlier.rows
  }

  snapshot(): GridSnapshot {
    return { shape: this.shape(), rows: this.captured().join("\n") }
  }

  private shape(): string {
    return `${this.rows.length} ${this.historySize} ${this.width}x${this.height} ${this.cursorX},${this.cursorY}`
  }
}
