/**
 * The promise of capture_since and wait_for_text, checked over random histories: every line a pane
 * prints after a cursor is returned, or the answer says `missed`; when it does not say missed,
 * nothing printed before the cursor comes back as new; and it does not say missed while the
 * cursor's place is plainly still there. The pane is `PaneGrid`, a model of tmux 3.3a's history
 * written from tmux's source (checked against real tmux in test/integration/pane-grid-model.test.ts),
 * behind a `Tmux` that answers the operations' own commands, so the whole read (its windows and
 * further invocations included) runs as in production.
 *
 * The histories are test/support/PaneScript.ts's: commands at a `$ ` prompt, lines with a unique
 * token each (some wider than the pane), output several commands print alike, blank lines,
 * progress lines, `clear` with and without `CSI 3 J`, `clear-history`, height and width changes;
 * history limits 10..3000 (log-uniform, so small limits with many drops per round are as common as
 * the default 2000), output 0..3 times the limit per round. A failure names its seed:
 * ETM_CURSOR_SEED=<seed> replays that case, ETM_CURSOR_CASES=<n> runs n cases from a new seed.
 *
 * What no reader can tell apart is not counted against the answer: a clear that leaves the pane
 * exactly as it was at the cursor (output is counted from the last moment it looked so), and, for a
 * cursor that only its place vouches for (no identifying rows above it, e.g. at the top of a fresh
 * pane), a clear of the whole history whose new first rows start like the cursor's own (output is
 * counted from the last such clear).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Result from "effect/Result"
import { describe, expect, it } from "vitest"
import type { ResolvedSocket } from "../../src/context/SocketResolver.js"
import { captureSince, decodeCursor } from "../../src/operations/watching/PaneCursor.js"
import { waitForText } from "../../src/operations/watching/TextWait.js"
import { type GridSnapshot, PaneGrid } from "../support/PaneGrid.js"
import { GRID_PANE_ID, paneGridTmux } from "../support/PaneGridTmux.js"
import { applyOp, makeSteps, random, type Step } from "../support/PaneScript.js"

const socket: ResolvedSocket = {
  name: null,
  path: "/tmp/tmux-0/grid",
  rule: "socket_path argument",
  flags: ["-S", "/tmp/tmux-0/grid"],
  label: "/tmp/tmux-0/grid"
}

interface Case {
  readonly grid: PaneGrid
  /** Steps before the cursor is taken. */
  readonly before: ReadonlyArray<Step>
  /** Steps after, in rounds: capture_since reads after each round with the cursor the previous read returned. */
  readonly rounds: ReadonlyArray<ReadonlyArray<Step>>
}

const makeCase = (seed: number): Case => {
  const rng = random(seed)
  // Log-uniform: small limits (many drops per round) as often as the default 2000.
  const limit = Math.round(Math.exp(Math.log(10) + rng.next() * (Math.log(3000) - Math.log(10))))
  const grid = new PaneGrid({ width: rng.int(20, 120), height: rng.int(3, 50), historyLimit: limit })
  grid.write("$ ")
  let width = grid.width
  const script = (lines: number) => {
    const made = makeSteps(rng, lines, { width, widths: [20, 120], heights: [3, 50], tokens })
    width = made.width
    return made.steps
  }
  const tokens = { next: 1 }
  const before = rng.chance(0.3) ? [] : script(rng.int(0, 2 * limit))
  const rounds = Array.from({ length: rng.int(1, 3) }, () => script(rng.int(0, 3 * limit)))
  return { grid, before, rounds }
}

/** Tokens of `text`: a kind letter, a number, a dot. */
const tokensIn = (text: string): Set<string> => new Set(text.match(/\b[cLP]\d+\./g) ?? [])

/**
 * The tokens a reader can be expected to get back: those printed since the cursor, counted from
 * the last time the pane looked exactly as at the cursor, and for a cursor its text did not
 * identify, from the last drop of the whole history (see the top of this file).
 */
class Expected {
  readonly since = new Set<string>()
  sinceWipe: Set<string> | undefined
  /** A step dropped the whole history or resized the pane. */
  changed = false

  constructor(readonly atCursor: GridSnapshot | undefined) {}

  follow(grid: PaneGrid, steps: ReadonlyArray<Step>): void {
    for (const step of steps) {
      for (const op of step.ops) applyOp(grid, op)
      for (const t of step.tokens) {
        this.since.add(t)
        this.sinceWipe?.add(t)
      }
      if (step.wipes === true) this.sinceWipe = new Set()
      if (step.wipes === true || step.resizes === true) this.changed = true
      if (this.atCursor !== undefined && grid.looksAsAt(this.atCursor)) {
        this.since.clear()
        this.sinceWipe = undefined
      }
    }
  }

  tokens(cursor: string): Set<string> {
    return Result.getOrThrow(decodeCursor(cursor)).u === true ? this.since : (this.sinceWipe ?? this.since)
  }
}

/**
 * An answer that says missed while nothing was lost: the anchor row and the rows of its context
 * are still in the pane (tracked by the model's row ids), the cursor's text identified it and holds
 * a token (so it is unique now too), and no clear or resize came between.
 */
const exactness = (grid: PaneGrid, cursor: string, anchorId: number, expected: Expected, missed: boolean): string | undefined => {
  const decoded = Result.getOrThrow(decodeCursor(cursor))
  const at = grid.rows.findIndex((row) => row.id === anchorId)
  const span = decoded.n ?? decoded.c
  if (!missed || expected.changed || decoded.u !== true || at < span) return undefined
  return tokensIn(grid.captured(at - span, at - 1).join("\n")).size > 0 ? `missed, although the anchor is still on row ${at}` : undefined
}

/** Checks one answer; returns a description of what is wrong, or undefined. */
const verdict = (content: string, missed: boolean, expected: Set<string>, old: Set<string>): string | undefined => {
  const got = tokensIn(content)
  const lost = [...expected].filter((t) => !got.has(t))
  if (!missed && lost.length > 0) {
    return `lost ${lost.length} of ${expected.size} new tokens without missed (first: ${lost.slice(0, 3).join(" ")})`
  }
  const repeated = [...got].filter((t) => old.has(t) && !expected.has(t))
  if (!missed && repeated.length > 0) {
    return `returned ${repeated.length} old tokens as new without missed (first: ${repeated.slice(0, 3).join(" ")})`
  }
  return undefined
}

/** The waits' pauses between looks take no time: each look sees the pane one round further on. */
const instantClock: Clock.Clock = {
  currentTimeMillisUnsafe: () => Date.now(),
  currentTimeMillis: Effect.sync(() => Date.now()),
  currentTimeNanosUnsafe: () => BigInt(Date.now()) * 1_000_000n,
  currentTimeNanos: Effect.sync(() => BigInt(Date.now()) * 1_000_000n),
  monotonicTimeNanosUnsafe: () => process.hrtime.bigint(),
  monotonicTimeNanos: Effect.sync(() => process.hrtime.bigint()),
  sleep: () => Effect.void
}

/** ETM_CURSOR_CASES=n runs n cases from another base seed (a longer search); ETM_CURSOR_SEED=s replays one. */
const CASES = Number(process.env.ETM_CURSOR_CASES ?? 300)
const BASE_SEED = process.env.ETM_CURSOR_CASES === undefined ? 20_261_010 : Date.now() % 1_000_000_000
const seeds = process.env.ETM_CURSOR_SEED !== undefined
  ? [Number(process.env.ETM_CURSOR_SEED)]
  : Array.from({ length: CASES }, (_, i) => BASE_SEED + i)

describe("capture_since over random histories", () => {
  it(`returns every line printed after its cursor, or says missed (${seeds.length} cases)`, () => {
    const failures: Array<string> = []
    let missedAnswers = 0
    let answers = 0
    for (const seed of seeds) {
      const { grid, before, rounds } = makeCase(seed)
      const layer = paneGridTmux(grid)
      const read = (cursor?: string) =>
        Effect.runSync(captureSince(socket, GRID_PANE_ID, { cursor, maxLines: 1_000_000 }).pipe(Effect.provide(layer)))
      new Expected(undefined).follow(grid, before)
      let cursor = read().cursor
      const old = tokensIn(grid.captured().join("\n"))
      for (const [round, roundSteps] of rounds.entries()) {
        const anchorRow = grid.rows[grid.historySize + grid.cursorY]!.id
        const expected = new Expected(grid.snapshot())
        expected.follow(grid, roundSteps)
        const since = expected.tokens(cursor)
        const answer = read(cursor)
        answers++
        if (answer.missed) missedAnswers++
        const wrong = verdict(answer.content, answer.missed, since, old) ?? exactness(grid, cursor, anchorRow, expected, answer.missed)
        if (wrong !== undefined) {
          failures.push(`seed ${seed} round ${round}: ${wrong}`)
          break
        }
        for (const t of tokensIn(answer.content)) old.add(t)
        for (const t of expected.since) old.add(t)
        cursor = answer.cursor
      }
    }
    expect(failures, failures.slice(0, 10).join("\n")).toEqual([])
    // Not a vacuous pass: most answers are exact, and some cases do lose output.
    if (seeds.length >= 300) {
      expect(missedAnswers).toBeGreaterThan(0)
      expect(missedAnswers).toBeLessThan(answers)
    }
  })
})

describe("wait_for_text with since over random histories", () => {
  it(`sees every line printed after its since cursor, or says missed (${seeds.length} cases)`, () => {
    const failures: Array<string> = []
    for (const seed of seeds) {
      const { grid, before, rounds } = makeCase(seed)
      const end = "END-of-case."
      // The pane prints one round between two tmux invocations: one look may see several.
      const pending = rounds.map((round) => [...round])
      pending.push([{ tokens: [], ops: [{ kind: "write", text: `${end}\r\n` }] }])
      // Set once the cursor is taken, below; the layer's callback reads it from the first call on.
      // eslint-disable-next-line prefer-const
      let expected: Expected | undefined
      const layer = paneGridTmux(grid, () => {
        const next = expected === undefined ? undefined : pending.shift()
        if (next !== undefined) expected!.follow(grid, next)
      })
      new Expected(undefined).follow(grid, before)
      const { cursor } = Effect.runSync(captureSince(socket, GRID_PANE_ID, { maxLines: 1 }).pipe(Effect.provide(layer)))
      const old = tokensIn(grid.captured().join("\n"))
      expected = new Expected(grid.snapshot())
      const exit = Effect.runSyncExit(
        waitForText(socket, GRID_PANE_ID, { patterns: [end], since: cursor, timeout: { seconds: 2, clamped: false }, maxLines: 1_000_000 })
          .pipe(
            Effect.provideService(Clock.Clock, instantClock),
            Effect.provide(layer)
          )
      )
      if (!Exit.isSuccess(exit)) {
        failures.push(`seed ${seed}: the wait failed: ${String(exit.cause)}`)
        continue
      }
      const result = exit.value
      const wrong = result.outcome !== "matched"
        ? `outcome ${result.outcome}`
        : verdict(result.tail, result.missed, expected.tokens(cursor), old)
      if (wrong !== undefined) failures.push(`seed ${seed}: ${wrong}`)
    }
    expect(failures, failures.slice(0, 10).join("\n")).toEqual([])
  })
})
