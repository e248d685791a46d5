/**
 * Random pane histories, as data: what a pane prints and goes through (commands at a `$ ` prompt
 * with output, blank lines, progress lines rewritten with `\r`, `clear` with and without `CSI 3 J`,
 * `clear-history`, height and width changes), seeded so a case replays from its seed. The same ops
 * drive the `PaneGrid` model and, in the integration test that checks the model, a real pane.
 */
import type { PaneGrid } from "./PaneGrid.js"

/** One thing that happens to a pane. Text holds `\r` and `\r\n` (what a pty makes of `\n`), never a bare `\n`. */
export type GridOp =
  | { readonly kind: "write"; readonly text: string }
  | { readonly kind: "clear"; readonly withHistory: boolean }
  | { readonly kind: "clearHistory" }
  | { readonly kind: "height"; readonly rows: number }
  | { readonly kind: "width"; readonly columns: number }

export const applyOp = (grid: PaneGrid, op: GridOp): void => {
  switch (op.kind) {
    case "write":
      return grid.write(op.text)
    case "clear":
      return grid.clear(op.withHistory)
    case "clearHistory":
      return grid.clearHistory()
    case "height":
      return grid.resizeHeight(op.rows)
    case "width":
      return grid.resizeWidth(op.columns)
  }
}

/** A step of a history; `tokens` are the unique texts it prints (a kind letter, a number, a dot). */
export interface Step {
  readonly ops: ReadonlyArray<GridOp>
  readonly tokens: ReadonlyArray<string>
  /** It drops the whole history (clear-history, `CSI 3 J`). */
  readonly wipes?: boolean
  /** It changes the pane's size. */
  readonly resizes?: boolean
}

/** mulberry32: a small seeded generator. */
export const random = (seed: number) => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (low: number, high: number) => low + Math.floor(next() * (high - low + 1))
  return { next, int, chance: (p: number) => next() < p, pick: <A>(items: ReadonlyArray<A>): A => items[int(0, items.length - 1)]! }
}
export type Random = ReturnType<typeof random>

/** Output that several commands print alike (no tokens). */
const REPEATED = [["make: Nothing to be done for 'all'."], ["Compiling...", "ok"], ["", "Tests: 12 passed", "Done in 0.4s"]]
/** Text to cut line endings from: words in a fixed random order. */
const FILLER = (() => {
  const rng = random(7)
  const words = ["alpha", "beta", "gamma", "delta", "ok", "error:", "warning", "build", "test", "passed", "42", "/usr/lib", "--flag"]
  return Array.from({ length: 400 }, () => `${rng.pick(words)} `).join("")
})()

export interface ScriptOptions {
  /** The pane's width when the steps start (long lines are made as wide as 1 to 2 panes). */
  readonly width: number
  readonly widths: readonly [number, number]
  readonly heights: readonly [number, number]
  /** Where the next token's number comes from (tokens stay unique across calls). */
  readonly tokens: { next: number }
}

/** Steps that print at least `lines` rows. Returns them and the pane's width after them. */
export const makeSteps = (rng: Random, lines: number, options: ScriptOptions): { readonly steps: Array<Step>; readonly width: number } => {
  const steps: Array<Step> = []
  let width = options.width
  const token = (kind: string) => `${kind}${options.tokens.next++}.`
  const filler = () => {
    const length = rng.chance(0.1) ? rng.int(width, 2 * width) : rng.int(0, 30)
    const at = rng.int(0, FILLER.length - length)
    return FILLER.slice(at, at + length)
  }
  const line = (text: string): GridOp => ({ kind: "write", text: `${text}\r\n` })
  const prompt: GridOp = { kind: "write", text: "$ " }
  let printed = 0
  while (printed < lines) {
    const roll = rng.next()
    if (roll < 0.55) {
      // A command typed at the prompt, its output (often none, sometimes the same text as other
      // runs: then the rows above the next prompt repeat), and the next prompt.
      const command = token("c")
      const size = rng.chance(0.4) ? 0 : rng.chance(0.2) ? rng.int(20, 400) : rng.int(1, 6)
      const output = Array.from({ length: size }, () => token("L"))
      const repeated = rng.chance(0.3) ? rng.pick(REPEATED) : []
      const blanks = rng.chance(0.2) ? rng.int(1, 3) : 0
      steps.push({
        tokens: [command, ...output],
        ops: [
          line(`${command}${filler()}`),
          ...output.map((t) => line(`${t}${filler()}`)),
          ...repeated.map(line),
          ...Array.from({ length: blanks }, () => line("")),
          prompt
        ]
      })
      printed += output.length + repeated.length + blanks + 1
    } else if (roll < 0.65) {
      const blanks = rng.int(1, 9)
      steps.push({ tokens: [], ops: Array.from({ length: blanks }, () => line("")) })
      printed += blanks
    } else if (roll < 0.75) {
      // A progress line: rewritten in place, then ended; a cursor may be taken while it runs.
      const t = token("P")
      steps.push({ tokens: [t], ops: [{ kind: "write", text: `\r${t} 10%` }] })
      steps.push({ tokens: [t], ops: [{ kind: "write", text: `\r${t} 100%\r\n$ ` }] })
      printed += 1
    } else if (roll < 0.8) {
      const kind = rng.int(0, 2)
      const clear: GridOp = kind === 2 ? { kind: "clearHistory" } : { kind: "clear", withHistory: kind === 1 }
      steps.push({ tokens: [], wipes: kind !== 0, ops: [clear, prompt] })
    } else if (roll < 0.86) {
      steps.push({ tokens: [], resizes: true, ops: [{ kind: "height", rows: rng.int(...options.heights) }] })
    } else if (roll < 0.88) {
      width = rng.int(...options.widths)
      steps.push({ tokens: [], resizes: true, ops: [{ kind: "width", columns: width }] })
    } else {
      const t = token("L")
      steps.push({ tokens: [t], ops: [line(`${t}${filler()}`)] })
      printed += 1
    }
  }
  return { steps, width }
}
