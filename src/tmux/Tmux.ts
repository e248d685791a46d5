/**
 * The `Tmux` service: run a list of tmux commands against one server in one round trip.
 * Its error channel is exactly `NoServer | NotFound | Failed`. Live layers: `TmuxSocket` (tmux's
 * client protocol over the server's socket, the default) and `TmuxExec` (a process per call); the in-memory `FakeTmux` serves unit tests and embedders.
 */
import * as Context from "effect/Context"
import type * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type { ResolvedSocket } from "../context/SocketResolver.js"
import type { Transport } from "../context/TmuxMcpConfig.js"
import type { TmuxError } from "../domain/Errors.js"
import type { TmuxBinary } from "./TmuxBinary.js"

/** One tmux command as argv, e.g. `["list-panes", "-a", "-F", format]`. */
export type TmuxCommand = ReadonlyArray<string>

/**
 * How one invocation runs: whether it may start a server, a one-off glance, its deadline, its
 * standard input.
 */
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
  readonly timeout?: Duration.Input
  /**
   * Text given to the tmux client on its standard input, for `load-buffer -b NAME -`: a payload
   * (text to paste, a command to run) then never appears in any argv or temporary file. A
   * persistent transport runs such a call as a process of its own.
   */
  readonly stdin?: string
}

/** Which transport serves one server, as doctor and where_am_i report it. */
export interface TransportInUse {
  readonly transport: Transport
  /** Why it is not the configured transport (the server did not speak the socket protocol), else null. */
  readonly fallback: string | null
}

/** The service: run command lists, and (for live layers) say how a server is reached. */
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
  /**
   * The transport that serves this socket now (a live layer may fall back per server). Absent in
   * layers that stand in for the configured transport (a fake, a test's tap).
   */
  readonly transportFor?: (socket: ResolvedSocket) => Effect.Effect<TransportInUse>
  /**
   * Whether the configured tmux binary is there and is tmux (TmuxBinary.ts): `check` runs it once
   * (the server does at start-up), `known` is its answer if it ran, so that no tool call spawns a
   * process for it. Absent in layers that stand in for a binary (a fake, a test's tap).
   */
  readonly binary?: TmuxBinary
}

/** Runs tmux command lists; its layers are TmuxSocket, TmuxExec, TmuxLive (and FakeTmux for tests). */
export class Tmux extends Context.Service<Tmux, TmuxShape>()("effect-tmux-mcp/Tmux") {}

/** Past this many parts a description counts commands by name instead of listing them. */
const MAX_DESCRIBED_PARTS = 8
const MAX_DESCRIPTION_CHARS = 200

const counted = (name: string, count: number) => (count > 1 ? `${name} ×${count}` : name)

/**
 * A short human name for a command list, used in error messages (never carries payload text).
 * Bounded whatever the list's length: repeats are counted ("kill-session ×800"), and a long mixed
 * list is summed up by name ("300 commands: display-message ×150, capture-pane ×150").
 */
export const describeCommands = (commands: ReadonlyArray<TmuxCommand>): string => {
  const names = commands.map((command) => command[0] ?? "")
  const runs: Array<{ name: string; count: number }> = []
  for (const name of names) {
    const last = runs[runs.length - 1]
    if (last?.name === name) last.count++
    else runs.push({ name, count: 1 })
  }
  if (runs.length <= MAX_DESCRIBED_PARTS) return runs.map((run) => counted(run.name, run.count)).join(" ; ")
  const byName = new Map<string, number>()
  for (const name of names) byName.set(name, (byName.get(name) ?? 0) + 1)
  const summary = `${names.length} commands: ${[...byName].map(([name, count]) => counted(name, count)).join(", ")}`
  return summary.length <= MAX_DESCRIPTION_CHARS ? summary : `${summary.slice(0, MAX_DESCRIPTION_CHARS)}…`
}
