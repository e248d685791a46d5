/**
 * A `Tmux` decorator that counts round trips. Every `run` call is one tmux invocation (one process
 * for `TmuxExec`, one command list for a control client), so recording the calls measures what a
 * tool costs whatever the transport underneath. Tests pin these counts so that a regression (an
 * extra round trip, a read that grows with the number of panes) fails; embedders can count their
 * own round trips the same way.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { Tmux } from "../tmux/Tmux.js"

/** One `run` call as it was made. */
export interface RecordedInvocation {
  /** The socket's label (`name (path)` or the path), as errors name it. */
  readonly socket: string
  /**
   * The command names (argv[0] of each command), in order. The rest of the argv is left out on
   * purpose: it may carry payload (keys typed, environment values) that must not be kept.
   */
  readonly commands: ReadonlyArray<string>
  /** Whether the invocation was allowed to start a server (`RunOptions.startServer`). */
  readonly startServer: boolean
}

/** The record of invocations. */
export interface TmuxRecorderShape {
  /** Every invocation since the layer was built or last reset, oldest first. */
  readonly invocations: Effect.Effect<ReadonlyArray<RecordedInvocation>>
  /** Forgets what was recorded, to measure one call on its own. The record grows until then. */
  readonly reset: Effect.Effect<void>
}

/** The invocations recorded by the `Tmux` of the same `RecordingTmux.layer`. */
export class TmuxRecorder extends Context.Service<TmuxRecorder, TmuxRecorderShape>()("effect-tmux-mcp/TmuxRecorder") {}

const make = Effect.gen(function*() {
  const inner = yield* Tmux
  const recorded = yield* Ref.make<ReadonlyArray<RecordedInvocation>>([])
  const tmux = Tmux.of({
    // Recorded before it runs, so a call that fails or times out still counts as the round trip it was.
    run: (socket, commands, options) =>
      Ref.update(recorded, (list) => [
        ...list,
        {
          socket: socket.label,
          commands: commands.map((command) => command[0] ?? ""),
          startServer: options?.startServer === true
        }
      ]).pipe(Effect.andThen(inner.run(socket, commands, options))),
    ...(inner.transportFor === undefined ? {} : { transportFor: inner.transportFor })
  })
  const recorder = TmuxRecorder.of({ invocations: Ref.get(recorded), reset: Ref.set(recorded, []) })
  return Context.make(Tmux, tmux).pipe(Context.add(TmuxRecorder, recorder))
})

export const RecordingTmux = {
  /**
   * Wraps any `Tmux` layer (`TmuxExec.layer`, `TmuxLive.layer`, …): the result provides a `Tmux` that
   * records each `run` before delegating, and the `TmuxRecorder` to read the record.
   */
  layer: <E, R>(inner: Layer.Layer<Tmux, E, R>): Layer.Layer<Tmux | TmuxRecorder, E, R> =>
    Layer.effectContext(make).pipe(Layer.provide(inner))
}
