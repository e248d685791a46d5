/**
 * One round trip: run a command list and decode the records it printed.
 */
import * as Effect from "effect/Effect"
import type { ResolvedSocket } from "../context/SocketResolver.js"
import { type Failed, NotFound, type ObjectKind, type TmuxError } from "../domain/Errors.js"
import { generationOf, type ServerIdentity } from "../domain/Model.js"
import * as Format from "./Format.js"
import { serverRecord } from "./Records.js"
import { type RunOptions, Tmux, type TmuxCommand } from "./Tmux.js"

/** Builds a command list whose formats use the given marks. */
export type CommandsWith = (marks: Format.Marks) => ReadonlyArray<TmuxCommand>

export const query = (
  socket: ResolvedSocket,
  commands: CommandsWith,
  options?: RunOptions
): Effect.Effect<Format.ParsedOutput, TmuxError, Tmux> => {
  const marks = Format.newMarks()
  return Effect.flatMap(Tmux, (tmux) => tmux.run(socket, commands(marks), options)).pipe(
    Effect.map((output) => Format.parseOutput(output, marks))
  )
}

export const decode = <F extends Format.Fields>(
  codec: Format.RecordCodec<F>,
  output: Format.ParsedOutput
): Effect.Effect<Array<Format.Decoded<F>>, Failed> => Effect.fromResult(codec.decodeAll(output))

/** The object a command list targets explicitly, to name it when it does not exist. */
export interface QueryTarget {
  readonly kind: ObjectKind
  readonly id: string
}

const isNoCurrentTarget = (error: TmuxError): boolean =>
  error._tag === "Failed" && error.reason === "exit" && /no current target/.test(error.stderr)

/**
 * Runs a command list that names an object with `-t`. On a server without sessions tmux 3.3a
 * answers any target with "no current target" instead of "can't find …": there, the named object
 * does not exist (NotFound). Server-wide listings do not need this: they use commands that answer
 * on an empty server too (`whenSessionsExist` in operations/hierarchy/Hierarchy.ts).
 */
export const runTree = (
  socket: ResolvedSocket,
  commands: ReadonlyArray<TmuxCommand>,
  target: QueryTarget
): Effect.Effect<string, TmuxError, Tmux> =>
  Effect.flatMap(Tmux, (tmux) => tmux.run(socket, commands)).pipe(noCurrentTargetIsNotFound(socket, target))

/** `runTree`'s reading of "no current target", for a command list sent some other way (in batches). */
export const noCurrentTargetIsNotFound =
  (socket: ResolvedSocket, target: QueryTarget) => <A, R>(run: Effect.Effect<A, TmuxError, R>): Effect.Effect<A, TmuxError, R> =>
    run.pipe(
      Effect.catchIf(isNoCurrentTarget, () => Effect.fail(new NotFound({ kind: target.kind, target: target.id, socket: socket.label })))
    )

export const queryTree = (
  socket: ResolvedSocket,
  commands: CommandsWith,
  target: QueryTarget
): Effect.Effect<Format.ParsedOutput, TmuxError, Tmux> => {
  const marks = Format.newMarks()
  return runTree(socket, commands(marks), target).pipe(Effect.map((output) => Format.parseOutput(output, marks)))
}

/** The command that prints the answering server's identity (first in most command lists). */
export const serverIdentityCommand = (marks: Format.Marks): TmuxCommand => ["display-message", "-p", serverRecord.format(marks)]

export const decodeServerIdentity = (output: Format.ParsedOutput): Effect.Effect<ServerIdentity, Failed> =>
  Effect.map(Effect.fromResult(serverRecord.decodeFirst(output)), (row) => ({ ...row, generation: generationOf(row) }))
