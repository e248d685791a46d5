/**
 * The `Tmux` service: run a list of tmux commands against one server in one round trip.
 * Its error channel is exactly `NoServer | NotFound | Failed`. Live layers: `TmuxExec` (a process per
 * call); the in-memory `FakeTmux` serves unit tests and embedders.
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type { TmuxError } from "../domain/Errors.js"
import type { ResolvedSocket } from "../services/SocketResolver.js"

/** One tmux command as argv, e.g. `["list-panes", "-a", "-F", format]`. */
export type TmuxCommand = ReadonlyArray<string>

export interface RunOptions {
  /**
   * Allow this invocation to start a tmux server. Off by default: every other call runs with
   * tmux's `-N`, so no read or mutation can bring a server into existence as a side effect.
   */
  readonly startServer?: boolean
  /**
   * A single glance at this server (e.g. listing every server): a persistent transport uses its
   * connection if it has one but does not set one up for this call.
   */
  readonly oneOff?: boolean
  /** Overrides the configured per-invocation deadline. */
  readonly timeout?: Duration.DurationInput
  /**
   * Text given to the tmux client on its standard input, for `load-buffer -b NAME -`: a payload
   * (text to paste, a command to run) then never appears in any argv or temporary file. A
   * persistent transport runs such a call as a process of its own.
   */
  readonly stdin?: string
}

export interface TmuxShape {
  /**
   * Runs the commands in order as one tmux command list (one round trip) and returns what they
   * printed, concatenated. tmux stops at the first command that fails.
   */
  readonly run: (
    socket: ResolvedSocket,
    commands: ReadonlyArray<TmuxCommand>,
    options?: RunOptions
  ) => Effect.Effect<string, TmuxError>
}

export class Tmux extends Context.Tag("effect-tmux-mcp/Tmux")<Tmux, TmuxShape>() {}

/** A short human name for a command list, used in error messages (never carries payload text). */
export const describeCommands = (commands: ReadonlyArray<TmuxCommand>): string =>
  commands.map((command) => command[0] ?? "").join(" ; ")
