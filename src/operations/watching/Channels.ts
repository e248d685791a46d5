/**
 * tmux wait-for channels: a script in a pane runs `tmux wait-for -S build-done`, an agent waits for
 * it. Channel names are not namespaced: they are how scripts and agents meet.
 *
 * tmux remembers a signal nobody was waiting for, and the next `wait-for` on that channel returns at
 * once and consumes it; so a wait changes tmux state too. When a server exits, tmux releases every
 * waiting client as if signalled, so a wait is only "signalled" when the same server still answers
 * afterwards. `wait-for` blocks a client, so it always runs as a process of its own, killed at the
 * deadline or when the call is cancelled.
 *
 * tmux never removes a waiter whose client went away: after a timeout or a cancel, the channel's
 * next signal goes to that stale waiter instead of being kept. Signalling the channel to clear it
 * would wake other programs waiting there (a script's `wait-for build-done && deploy`), so the stale
 * waiter is left, and documented.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import type { TmuxError } from "../../domain/Errors.js"
import { NonNegativeInt } from "../../domain/Model.js"
import { reportProgress } from "../../services/Progress.js"
import { Tmux } from "../../tmux/Tmux.js"
import { type EffectiveTimeout, timeoutFields } from "../bounds/Waiting.js"
import { ensureGeneration, expectServer, type GenerationCheck, probeServer } from "../servers/Servers.js"

/** A wait-for channel name: 1-64 of A-Z a-z 0-9 _ . -. */
export const ChannelName = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[A-Za-z0-9_.-]{1,64}$/u, {
    message: "must be 1-64 characters of A-Z, a-z, 0-9, '_', '.' and '-'"
  }))
)

/** The tmux client's own deadline, past ours: the race below ends the wait, not the transport. */
const CLIENT_GRACE = Duration.seconds(5)

/** How a wait for a channel ended: signalled, timed out, or the server died, after how long. */
export const ChannelWaited = Schema.Struct({
  channel: Schema.String,
  outcome: Schema.Literals(["signalled", "timeout", "server_died"]).annotate({
    description:
      "signalled: someone ran wait-for -S (or had, before the wait: that pending signal is now consumed); timeout: no signal in time; server_died: the tmux server exited or restarted during the wait."
  }),
  elapsed_ms: NonNegativeInt,
  ...timeoutFields
})
export type ChannelWaited = typeof ChannelWaited.Type

/**
 * Waits for a signal on `channel`: the server is probed first (no server is NoServer, nothing waited),
 * then `wait-for` runs until signalled or the deadline; afterwards the same server must still answer.
 */
export const waitForChannel = Effect.fn("Channels.waitForChannel")((
  socket: ResolvedSocket,
  channel: string,
  timeout: EffectiveTimeout,
  options: GenerationCheck = {}
): Effect.Effect<ChannelWaited, TmuxError, Tmux> =>
  Effect.gen(function*() {
    // The probe the wait needs anyway answers the generation check too.
    const before = yield* expectServer(socket, yield* probeServer(socket), options.generation)
    const tmux = yield* Tmux
    const started = yield* Clock.currentTimeMillis
    const ticking = Effect.gen(function*() {
      for (let second = 1;; second++) {
        yield* Effect.sleep(Duration.seconds(1))
        yield* reportProgress({ progress: second, total: timeout.seconds, message: `waiting for channel ${channel}` })
      }
    })
    const waited = yield* tmux
      .run(socket, [["wait-for", "--", channel]], { timeout: Duration.sum(Duration.seconds(timeout.seconds), CLIENT_GRACE) })
      .pipe(
        Effect.result,
        Effect.timeoutOption(Duration.seconds(timeout.seconds)),
        Effect.raceFirst(ticking)
      )
    const result = (outcome: ChannelWaited["outcome"]): Effect.Effect<ChannelWaited> =>
      Effect.map(Clock.currentTimeMillis, (now) => ({
        channel,
        outcome,
        elapsed_ms: now - started,
        effective_timeout: timeout.seconds,
        timeout_clamped: timeout.clamped
      }))
    if (Option.isNone(waited)) return yield* result("timeout")
    const after = yield* probeServer(socket)
    if (Option.isNone(after) || after.value.generation !== before.generation) return yield* result("server_died")
    if (Result.isFailure(waited.value)) return yield* Effect.fail(waited.value.failure)
    return yield* result("signalled")
  })
)

/** A channel was signalled. */
export const ChannelSignalled = Schema.Struct({
  channel: Schema.String,
  signalled: Schema.Boolean.annotate({
    description: "Always true: waiters were woken, or (with none waiting) the signal is kept for the next wait."
  })
})
export type ChannelSignalled = typeof ChannelSignalled.Type

/** Signals a wait-for channel: wakes its waiters, or keeps the signal for the next wait when none waits. */
export const signalChannel = Effect.fn("Channels.signalChannel")((
  socket: ResolvedSocket,
  channel: string,
  options: GenerationCheck = {}
): Effect.Effect<ChannelSignalled, TmuxError, Tmux> =>
  Effect.andThen(
    ensureGeneration(socket, options.generation),
    Effect.flatMap(Tmux, (tmux) => tmux.run(socket, [["wait-for", "-S", "--", channel]])).pipe(Effect.as({ channel, signalled: true }))
  )
)
