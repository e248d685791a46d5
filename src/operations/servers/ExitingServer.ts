/**
 * A tmux server that is exiting (kill-server) closes every new connection until its last client
 * has gone, and tmux says "server exited unexpectedly": NoServer. A call allowed to start a server
 * meets it when its probe, or its command list, comes just after the kill, and "no server, start
 * one" would send it back to make the very call it made. Such a call waits the old server out,
 * bounded, and starts a new one; past the bound it says the server is still exiting.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NoServer } from "../../domain/Errors.js"
import { pollUntil } from "../bounds/Waiting.js"

/** How long a call that may start a server waits for an exiting one to end: clients let go within milliseconds. */
export const EXITING_SERVER_WAIT_MS = 3000

/**
 * Runs `start` (a command list sent with `startServer`) until no exiting server stands in its way:
 * again, backing off, while it fails with NoServer, for at most EXITING_SERVER_WAIT_MS; then
 * NoServer saying the server is still exiting.
 */
export const startPastExitingServer = <A, E, R>(start: Effect.Effect<A, E | NoServer, R>): Effect.Effect<A, E | NoServer, R> =>
  Effect.gen(function*() {
    let refused: NoServer | undefined
    const attempt = start.pipe(
      Effect.map(Option.some),
      Effect.catchIf((error): error is NoServer => error instanceof NoServer, (error) =>
        Effect.sync(() => {
          refused = error
          return Option.none<A>()
        }))
    )
    const { value } = yield* pollUntil(attempt, {
      timeout: { seconds: EXITING_SERVER_WAIT_MS / 1000, clamped: false },
      message: "waiting for the exiting tmux server to end"
    })
    if (Option.isSome(value)) return value.value
    const { host, socket, startable } = refused!
    return yield* Effect.fail(
      new NoServer({
        socket,
        ...(host === undefined ? {} : { host }),
        ...(startable === undefined ? {} : { startable }),
        exitingAfterMs: EXITING_SERVER_WAIT_MS
      })
    )
  })
