/**
 * One round trip: run a command list and decode the records it printed.
 */
import * as Effect from "effect/Effect"
import type { Failed, TmuxError } from "../domain/Errors.js"
import { generationOf, type ServerIdentity } from "../domain/Model.js"
import type { ResolvedSocket } from "../services/SocketResolver.js"
import * as Format from "../tmux/Format.js"
import { serverRecord, sessionIdRecord } from "../tmux/Records.js"
import { Tmux, type RunOptions, type TmuxCommand } from "../tmux/Tmux.js"

export const query = (
  socket: ResolvedSocket,
  commands: ReadonlyArray<TmuxCommand>,
  options?: RunOptions
): Effect.Effect<Format.ParsedOutput, TmuxError, Tmux> =>
  Effect.flatMap(Tmux, (tmux) => tmux.run(socket, commands, options)).pipe(Effect.map(Format.parseOutput))

export const decode = <F extends Format.Fields>(
  codec: Format.RecordCodec<F>,
  output: Format.ParsedOutput
): Effect.Effect<Array<Format.Decoded<F>>, Failed> => codec.decodeAll(output)

/**
 * Like `query`, for command lists with server-wide listings (`list-panes -a`, `list-clients`).
 * tmux 3.3 fails those with "no current target" on a server that has no sessions; then the
 * answer is the server identity and no rows, which is the truth about an empty server.
 */
export const queryTree = (
  socket: ResolvedSocket,
  commands: ReadonlyArray<TmuxCommand>
): Effect.Effect<Format.ParsedOutput, TmuxError, Tmux> =>
  query(socket, commands).pipe(
    Effect.catchIf(
      (error) => error._tag === "Failed" && error.reason === "exit" && /no current target/.test(error.stderr),
      (error) =>
        query(socket, [serverIdentityCommand, ["list-sessions", "-F", sessionIdRecord.format]]).pipe(
          Effect.flatMap((output) => (output.has(sessionIdRecord.tag) ? Effect.fail(error) : Effect.succeed(output)))
        )
    )
  )

/** The command that prints the answering server's identity (first in most command lists). */
export const serverIdentityCommand: TmuxCommand = ["display-message", "-p", serverRecord.format]

export const decodeServerIdentity = (output: Format.ParsedOutput): Effect.Effect<ServerIdentity, Failed> =>
  Effect.flatMap(decode(serverRecord, output), (rows) => {
    const row = rows[0]
    return row === undefined
      ? Effect.dieMessage("tmux printed no server record")
      : Effect.succeed({ ...row, generation: generationOf(row) })
  })
