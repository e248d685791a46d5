/**
 * Optimistic concurrency across server restarts: ids repeat on a new server (%0, @0, $0), so a
 * caller can pass back the `generation` it saw and have a call refused if the server changed.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { type Failed, NoServer, NotFound } from "../../domain/Errors.js"
import type { Tmux } from "../../tmux/Tmux.js"
import { probeServer } from "./Servers.js"

export const ensureGeneration = (
  socket: ResolvedSocket,
  expected: string | undefined
): Effect.Effect<void, NoServer | NotFound | Failed, Tmux> =>
  expected === undefined
    ? Effect.void
    : Effect.flatMap(probeServer(socket), (server): Effect.Effect<void, NoServer | NotFound> =>
        Option.isNone(server)
          ? Effect.fail(new NoServer({ socket: socket.label }))
          : server.value.generation === expected
            ? Effect.void
            : Effect.fail(new NotFound({ kind: "server", target: expected, socket: socket.label }))
      )
