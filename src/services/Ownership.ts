/**
 * Sessions this MCP server owns: created with `owned: true`, killed when the server exits (stdin
 * EOF or a signal runs the layer's finalizer), and only then. Each owned session carries a user
 * option with a token unique to this process, so the finalizer never kills a session that merely
 * reuses an id on a restarted tmux server, or one another process owns. A remote host's sessions are
 * killed over its link: this layer is released before the Connections layer below it, and a link
 * that dropped moments before is made again for it (not refused for its back-off). Sessions it
 * cannot release are named on stderr by their socket.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import { randomBytes } from "node:crypto"
import { type ResolvedSocket, socketKey } from "../context/SocketResolver.js"
import { escapeControls } from "../domain/ControlText.js"
import { runInBatches } from "../tmux/CommandBatches.js"
import { Connections } from "../tmux/Connections.js"
import * as Format from "../tmux/Format.js"
import { decode, query } from "../tmux/Query.js"
import { Tmux } from "../tmux/Tmux.js"

/** Kill-and-list rounds at most, when sessions close under our feet. */
const RELEASE_ROUNDS = 3

/** The tmux user option that marks an owned session. */
export const OWNER_OPTION = "@effect_tmux_mcp_owner"

const ownedRecord = Format.record("own", {
  session_id: Format.string("session_id"),
  owner: Format.string(OWNER_OPTION)
})

/** This process's mark on the sessions it owns, and their release. */
export interface OwnershipShape {
  /** This process's token, the value of OWNER_OPTION on the sessions it owns. */
  readonly token: string
  /** The command that marks the session a command list just created (tmux makes it current). */
  readonly markCommand: ReadonlyArray<string>
  /** Remembers a socket on which this process created an owned session. */
  readonly register: (socket: ResolvedSocket) => Effect.Effect<void>
  /** Kills every registered session that still carries this process's mark; returns how many. */
  readonly release: Effect.Effect<number>
}

/**
 * The sessions this process created as owned: marked in tmux with this process's token, killed when
 * the layer is released.
 */
export class Ownership extends Context.Service<Ownership, OwnershipShape>()("effect-tmux-mcp/Ownership") {
  /** Releases owned sessions when the layer's scope closes (the MCP server shutting down). */
  static readonly layer: Layer.Layer<Ownership, never, Tmux> = Layer.effect(
    Ownership,
    Effect.gen(function*() {
      const tmux = yield* Tmux
      // Provided below Tmux only with a hosts file.
      const connections = yield* Effect.serviceOption(Connections)
      const ownership = makeOwnership(tmux)
      yield* Effect.addFinalizer(() =>
        Effect.andThen(
          // These are the last calls: a host whose link just dropped is connected again for them.
          Option.match(connections, { onNone: () => Effect.void, onSome: (links) => links.endBackoff }),
          Effect.asVoid(ownership.release)
        )
      )
      return ownership
    })
  )
}

export const makeOwnership = (tmux: Context.Service.Shape<typeof Tmux>): OwnershipShape => {
  const token = `${process.pid}-${randomBytes(6).toString("hex")}`
  const sockets = Ref.makeUnsafe(new Map<string, ResolvedSocket>())

  const ownedOn = (socket: ResolvedSocket) =>
    query(socket, (m) => [["list-sessions", "-F", ownedRecord.format(m)]]).pipe(
      Effect.flatMap((output) => decode(ownedRecord, output)),
      Effect.map((rows) => rows.filter((row) => row.owner === token)),
      // The last session gone, the server exits (exit-empty): nothing of ours is left there.
      Effect.catchTag("NoServer", () => Effect.succeed([]))
    )

  const releaseOn = (socket: ResolvedSocket): Effect.Effect<number> =>
    Effect.gen(function*() {
      const listed = yield* ownedOn(socket)
      let mine = listed
      for (let round = 0; round < RELEASE_ROUNDS && mine.length > 0; round++) {
        // Hundreds of sessions do not fit in one tmux invocation: as few as fit, in order.
        const killed = yield* Effect.result(runInBatches(socket, mine.map((row) => [["kill-session", "-t", row.session_id]])))
        if (Result.isSuccess(killed) || killed.failure._tag === "NoServer") {
          mine = []
        } else if (killed.failure._tag === "NotFound") {
          // A session closed by someone else since the listing stops tmux's list there: list again.
          mine = yield* ownedOn(socket)
        } else {
          return yield* Effect.fail(killed.failure)
        }
      }
      return listed.length - mine.length
    }).pipe(
      Effect.provideService(Tmux, tmux),
      // A server that is gone took its sessions with it (NoServer reads as none left); nothing else
      // must stop the other sockets.
      Effect.catch((error) =>
        Effect.sync(() => {
          process.stderr.write(
            `effect-tmux-mcp: the sessions this server owns on ${
              escapeControls(socket.label)
            } were not released (they may still run there): ${escapeControls(error.message)}\n`
          )
          return 0
        })
      )
    )

  return {
    token,
    markCommand: ["set-option", OWNER_OPTION, token],
    // By socketKey: two hosts may each have a server at the same path.
    register: (socket) => Ref.update(sockets, (map) => new Map(map).set(socketKey(socket), socket)),
    release: Effect.gen(function*() {
      const registered = [...(yield* Ref.getAndSet(sockets, new Map())).values()]
      const counts = yield* Effect.forEach(registered, releaseOn, { concurrency: "unbounded" })
      return counts.reduce((a, b) => a + b, 0)
    })
  }
}
