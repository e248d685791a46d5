/**
 * How long regular expressions may run for one request. A regex runs on the event loop (the time
 * box only stops it), so a per-match limit would let a request of many matches (run_batch's 32
 * filters) freeze the process for seconds. One budget is shared by every match of a request,
 * operations and nested calls included: it starts at REGEX_BUDGET_MS and refills slowly, so a
 * runaway pattern blocks the loop about REGEX_BUDGET_MS once, while a long wait matching a sane
 * pattern at every poll never runs dry. Wall-clock time on purpose: it is real blocking that is bounded.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** What one request's regular expressions may block the event loop for at once. */
export const REGEX_BUDGET_MS = 250
/** How fast a spent budget comes back: a tenth of the loop at most, over a long request. */
const REFILL_MS_PER_SECOND = REGEX_BUDGET_MS / 10

/** The regex time a request has left; shared (by reference) with every fiber the request forks. */
export interface RegexBudget {
  /** Milliseconds a regex may run now. */
  readonly available: () => number
  /** Charges what a run took. */
  readonly spend: (ms: number) => void
}

const makeBudget = (): RegexBudget => {
  let remaining = REGEX_BUDGET_MS
  let refilledAt = performance.now()
  return {
    available: () => {
      const now = performance.now()
      remaining = Math.min(REGEX_BUDGET_MS, remaining + ((now - refilledAt) / 1000) * REFILL_MS_PER_SECOND)
      refilledAt = now
      return remaining
    },
    spend: (ms) => {
      remaining -= ms
    }
  }
}

const currentRegexBudget = Context.Reference<RegexBudget | undefined>("effect-tmux-mcp/RegexBudget", {
  defaultValue: () => undefined
})

/** The current request's budget; none outside a request (then each match has a time box of its own). */
export const requestRegexBudget: Effect.Effect<RegexBudget | undefined> = currentRegexBudget

/** Runs `effect` as one request: its matches share a fresh budget, unless it already runs inside a request. */
export const withRegexBudget = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.flatMap(
    requestRegexBudget,
    (budget) => budget === undefined ? Effect.suspend(() => Effect.provideService(effect, currentRegexBudget, makeBudget())) : effect
  )
