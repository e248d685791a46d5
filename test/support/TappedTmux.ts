/**
 * The suite's live `Tmux` with a hook around every `run`: tests see each invocation whole (argv and
 * stdin, which RecordingTmux leaves out on purpose) or act in between (kill a pane just before a
 * command list reaches tmux, hang a call to interrupt it).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { writeFileSync } from "node:fs"
import type { ResolvedSocket } from "../../src/context/SocketResolver.js"
import type { TmuxMcpConfig } from "../../src/context/TmuxMcpConfig.js"
import type { TmuxError } from "../../src/domain/Errors.js"
import { type RunOptions, Tmux, type TmuxCommand, type TmuxShape } from "../../src/tmux/Tmux.js"
import { defaultTmuxLayer } from "./PrivateTmux.js"

export interface TappedRun {
  readonly socket: ResolvedSocket
  readonly commands: ReadonlyArray<TmuxCommand>
  readonly options: RunOptions
  /** The real run, as the call would have made it. */
  readonly proceed: (commands?: ReadonlyArray<TmuxCommand>, options?: RunOptions) => Effect.Effect<string, TmuxError>
}

export const tappedTmux = (tap: (run: TappedRun) => Effect.Effect<string, TmuxError>): Layer.Layer<Tmux, never, TmuxMcpConfig> =>
  Layer.effect(
    Tmux,
    Effect.map(
      Tmux,
      (inner): TmuxShape => ({
        run: (socket, commands, options = {}) =>
          tap({
            socket,
            commands,
            options,
            proceed: (replaced = commands, replacedOptions = options) => inner.run(socket, replaced, replacedOptions)
          })
      })
    )
  ).pipe(Layer.provide(defaultTmuxLayer))

/**
 * A tap that creates the file `gate` once a command list mentioning `word` (a format variable,
 * say) has answered: a test's stand-in process waits on the file, so it changes only after the
 * product has looked at it once.
 */
export const gateAfterRead = (word: string, gate: string): Layer.Layer<Tmux, never, TmuxMcpConfig> =>
  tappedTmux((run) =>
    run.proceed().pipe(
      Effect.tap(() =>
        Effect.sync(() => {
          if (run.commands.some((command) => command.some((argument) => argument.includes(word)))) writeFileSync(gate, "")
        })
      )
    )
  )
