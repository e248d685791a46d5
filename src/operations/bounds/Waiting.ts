/**
 * Blocking waits done right: a timeout clamped to the configured ceiling (and reported as
 * `effective_timeout`), polling that starts fast and backs off, progress reported about once a
 * second to a client that asked for it, and interruption (an MCP cancel) that ends the wait at once.
 * Time comes from `Clock`, so a test can drive a wait with `TestClock`.
 *
 * On a remote host every look costs round trips over the ssh link (three per command list), so a
 * wait there starts slower and backs off further (REMOTE_FIRST_INTERVAL_MS, REMOTE_MAX_INTERVAL_MS),
 * and never looks again sooner than its last look took.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { CurrentHost, isRemoteHost } from "../../context/RemoteHosts.js"
import { TmuxMcpConfig } from "../../context/TmuxMcpConfig.js"
import { reportProgress } from "../../services/Progress.js"

export const DEFAULT_WAIT_SECONDS = 10
/** A wait's first pause and its longest on a remote host. */
export const REMOTE_FIRST_INTERVAL_MS = 150
export const REMOTE_MAX_INTERVAL_MS = 1000

/** The output fields that say how long the wait was allowed to be. */
export const timeoutFields = {
  effective_timeout: Schema.Number.annotate({
    description: "Seconds the wait was allowed: the requested timeout clamped to the server's ceiling."
  }),
  timeout_clamped: Schema.Boolean.annotate({ description: "The requested timeout was above the ceiling and was lowered to it." })
}

/** A wait's timeout in seconds, and whether it was lowered to the configured ceiling. */
export interface EffectiveTimeout {
  readonly seconds: number
  readonly clamped: boolean
}

/** The timeout a wait uses: the request (or the default), never above LIBTMUX_MCP_WAIT_MAX_SECONDS. */
export const effectiveTimeout = (requested: number | undefined): Effect.Effect<EffectiveTimeout, never, TmuxMcpConfig> =>
  Effect.map(TmuxMcpConfig, (config) => {
    const wanted = requested ?? Math.min(DEFAULT_WAIT_SECONDS, config.waitMaxSeconds)
    return wanted > config.waitMaxSeconds
      ? { seconds: config.waitMaxSeconds, clamped: true }
      : { seconds: wanted, clamped: false }
  })

export interface PollOptions {
  readonly timeout: EffectiveTimeout
  /** First pause between polls; it grows by half each time up to `maxInterval`. Default 50 ms. */
  readonly firstInterval?: Duration.Input
  /** Default 500 ms. */
  readonly maxInterval?: Duration.Input
  /** Shown to the client with each progress report, e.g. "waiting for %3". */
  readonly message?: string
  /**
   * A look still running at the deadline (a stalled ssh link holds a call for its whole deadline)
   * is given up, as finding nothing, LAST_LOOK_MS after it at the latest.
   */
  readonly boundLooks?: boolean
}

/** With boundLooks: how long a look that starts at (or just before) the deadline may take. */
const LAST_LOOK_MS = 1000

export interface PollResult<A> {
  /** The value `check` found, or none when the time ran out. */
  readonly value: Option.Option<A>
  readonly elapsedMs: number
}

/**
 * Runs `check` until it yields a value or the timeout passes; `check` runs at least once, and once
 * more at the deadline so a wait never ends "timed out" without a last look.
 */
export const pollUntil = <A, E, R>(
  check: Effect.Effect<Option.Option<A>, E, R>,
  options: PollOptions
): Effect.Effect<PollResult<A>, E, R> =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    const deadline = started + options.timeout.seconds * 1000
    const remote = isRemoteHost(yield* CurrentHost)
    const maxInterval = Math.max(Duration.toMillis(options.maxInterval ?? 500), remote ? REMOTE_MAX_INTERVAL_MS : 0)
    let interval = Math.max(Duration.toMillis(options.firstInterval ?? 50), remote ? REMOTE_FIRST_INTERVAL_MS : 0)
    let reported = 0
    while (true) {
      const looked = yield* Clock.currentTimeMillis
      const value = options.boundLooks === true
        ? yield* Effect.timeoutOrElse(check, {
          duration: Math.max(deadline - looked, LAST_LOOK_MS),
          orElse: () => Effect.succeed(Option.none<A>())
        })
        : yield* check
      const now = yield* Clock.currentTimeMillis
      if (remote) interval = Math.max(interval, now - looked)
      if (Option.isSome(value) || now >= deadline) return { value, elapsedMs: now - started }
      const elapsedSeconds = Math.floor((now - started) / 1000)
      if (elapsedSeconds > reported) {
        reported = elapsedSeconds
        yield* reportProgress({
          progress: elapsedSeconds,
          total: options.timeout.seconds,
          ...(options.message === undefined ? {} : { message: options.message })
        })
      }
      yield* Effect.sleep(Math.min(interval, Math.max(0, deadline - now)))
      interval = Math.min(maxInterval, interval * 1.5)
    }
  })
