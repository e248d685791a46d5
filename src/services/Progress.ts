/**
 * Progress of a long tool call (a wait), for the client that asked for it. The MCP bridge provides
 * this service for a call whose request carried a progressToken and turns each report into a
 * `notifications/progress`; elsewhere (embedders, tests, clients that did not ask) reports go nowhere.
 * Tools reach it with `reportProgress`, so it never appears in their requirements.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** One progress report of a waiting operation. */
export interface ProgressReport {
  /** Increases with every report of one call (MCP requires it): elapsed seconds for waits. */
  readonly progress: number
  /** The value `progress` reaches at the end, when known (the wait's timeout). */
  readonly total?: number
  readonly message?: string
}

/** Receives the reports. */
export interface ProgressShape {
  readonly report: (report: ProgressReport) => Effect.Effect<void>
}

/**
 * Where waiting operations report progress, when a program provides it (the MCP bridge turns
 * reports into notifications/progress).
 */
export class Progress extends Context.Service<Progress, ProgressShape>()("effect-tmux-mcp/Progress") {}

/** Reports progress when someone listens; never fails and never blocks the wait on a slow client. */
export const reportProgress = (report: ProgressReport): Effect.Effect<void> =>
  Effect.flatMap(
    Effect.serviceOption(Progress),
    (progress) => Option.isSome(progress) ? progress.value.report(report).pipe(Effect.catchCause(() => Effect.void)) : Effect.void
  )

/**
 * For effects run one after another under one call's progress (run_batch's operations): each one
 * counts from 1, so each one's reports are shifted to continue from where the one before stopped,
 * and the call's progress keeps increasing as MCP requires for one progressToken. Its `total` is
 * left out, as only the effect's own end is known, not the call's.
 */
export const progressInSequence: Effect.Effect<<A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>> = Effect.map(
  Effect.serviceOption(Progress),
  (listener) => {
    let reached = 0
    return (effect) => {
      if (Option.isNone(listener)) return effect
      const offset = reached
      return Effect.provideService(effect, Progress, {
        report: ({ message, progress }) => {
          reached = offset + progress
          return listener.value.report({ progress: reached, ...(message === undefined ? {} : { message }) })
        }
      })
    }
  }
)
