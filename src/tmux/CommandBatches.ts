/**
 * How much one tmux invocation can carry, and command lists split to fit.
 *
 * The tmux client sends its whole command list to the server as one protocol message: the argv
 * after the global flags (`;` separators included), each string with its NUL. On tmux 3.3a (and
 * to this day: client.c, compat/imsg.c) the message holds at most 16384 bytes, less the imsg header
 * (16) and the argc (4): 16364 bytes of argv, measured (one byte more fails with "failed to send
 * command", 17 more with "command too long"). Since tmux 3.7 the server also refuses a command
 * message of more than 1000 argv strings (cmd.c, again "command too long"). A list that grows with
 * the number of objects (the panes a search captures, the sessions released at shutdown) is sent
 * as several invocations that each fit both limits, in order.
 */
import * as Effect from "effect/Effect"
import type { ResolvedSocket } from "../context/SocketResolver.js"
import type { TmuxError } from "../domain/Errors.js"
import { escapeArgvArgument } from "./Literal.js"
import { type RunOptions, Tmux, type TmuxCommand } from "./Tmux.js"

/** The most argv bytes (NULs included) one tmux 3.3a client message carries. */
export const TMUX_ARGV_LIMIT = 16_364

/** Kept free in every invocation: the transport's end mark (about 50 bytes) and other tmux versions' headers. */
const RESERVED_BYTES = 1024

/** What a batch of commands may take, so that the invocation made of it fits with room to spare. */
export const BATCH_BUDGET = TMUX_ARGV_LIMIT - RESERVED_BYTES

/** The most argv strings (";" separators included) one command message holds on tmux 3.7 and later. */
export const TMUX_ARGC_LIMIT = 1000

/** Strings a batch may take: room is kept for the transport's end mark (a ";" and 3 strings) and to spare. */
export const BATCH_ARGC_BUDGET = TMUX_ARGC_LIMIT - 24

/** The argv strings a command list takes in one invocation: its arguments and the ";" between commands. */
export const commandListArgc = (commands: ReadonlyArray<TmuxCommand>): number =>
  commands.reduce((strings, command) => strings + command.length, Math.max(0, commands.length - 1))

/** The argv bytes a command list takes in one invocation, as the exec transport sends it. */
export const commandListBytes = (commands: ReadonlyArray<TmuxCommand>): number => {
  let bytes = 0
  commands.forEach((command, index) => {
    if (index > 0) bytes += 2 // ";" and its NUL
    for (const arg of command) bytes += Buffer.byteLength(escapeArgvArgument(arg), "utf8") + 1
  })
  return bytes
}

/** Whether a command list goes in one invocation with the room kept to spare (BATCH_BUDGET, BATCH_ARGC_BUDGET). */
export const fitsOneInvocation = (commands: ReadonlyArray<TmuxCommand>): boolean =>
  commandListBytes(commands) <= BATCH_BUDGET && commandListArgc(commands) <= BATCH_ARGC_BUDGET

/**
 * Groups units (command lists that must stay in one invocation, e.g. a header and the capture it
 * describes) into batches of at most `budget` bytes and `argcBudget` strings, in order. A unit too
 * big on its own is a batch of its own, which tmux then refuses with its own message.
 */
export const splitToFit = (
  units: ReadonlyArray<ReadonlyArray<TmuxCommand>>,
  budget: number = BATCH_BUDGET,
  argcBudget: number = BATCH_ARGC_BUDGET
): Array<Array<TmuxCommand>> => {
  const batches: Array<Array<TmuxCommand>> = []
  let current: Array<TmuxCommand> = []
  let used = 0
  let strings = 0
  for (const unit of units) {
    if (unit.length === 0) continue
    const bytes = commandListBytes(unit)
    const argc = commandListArgc(unit)
    // The ";" joining the unit to what the batch holds already: 2 bytes, 1 string.
    if (current.length > 0 && (used + 2 + bytes > budget || strings + 1 + argc > argcBudget)) {
      batches.push(current)
      current = []
      used = 0
      strings = 0
    }
    used += (current.length > 0 ? 2 : 0) + bytes
    strings += (current.length > 0 ? 1 : 0) + argc
    current.push(...unit)
  }
  if (current.length > 0) batches.push(current)
  return batches
}

/**
 * Runs the units as few invocations as fit, one after the other, and returns what they printed,
 * concatenated. As within one list, the first failure stops the rest: later batches are not sent.
 * Only for units that do not depend on each other's context (a `new-session` makes the session it
 * created current for the commands after it in its own list, not in the next invocation).
 */
export const runInBatches = (
  socket: ResolvedSocket,
  units: ReadonlyArray<ReadonlyArray<TmuxCommand>>,
  options?: RunOptions
): Effect.Effect<string, TmuxError, Tmux> =>
  Effect.flatMap(
    Tmux,
    (tmux) =>
      Effect.reduce(splitToFit(units), () =>
        "", (printed, batch) =>
        Effect.map(tmux.run(socket, batch, options), (output) => printed + output))
  )
