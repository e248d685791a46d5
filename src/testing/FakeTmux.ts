/**
 * An in-memory `Tmux`: a map of sockets to servers (the world model, internal/World.ts), keyed by
 * `socketKey` (a remote host's socket path has its host in front, so two hosts never share one), and a
 * command table (internal/CommandTable.ts) with one entry per tmux command it understands, its
 * argv read as tmux 3.3a reads it and its failures worded as tmux 3.3a words them. Anything it does
 * not model fails loudly, so an operation that starts sending something new cannot pass its unit
 * tests by accident. Failures go through `classifyFailure`, so the fake yields exactly the errors
 * the real transport does.
 *
 * A command list runs as tmux runs one client's list: in order, stopping at the first command that
 * fails (an `if-shell` list stops only itself, but fails the invocation), `new-session` making its
 * session current for the rest of the list, and the server exiting afterwards when tmux's rules say
 * so (kill-server, or no session left under `exit-empty on`). `-N` is honoured: without
 * `startServer` no invocation brings a server into existence.
 *
 * The world is held by reference: a test (or an embedder) can change it between calls and see
 * what the operations make of it, and `invocations` records every command list received.
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { socketKey } from "../context/SocketResolver.js"
import { Failed } from "../domain/Errors.js"
import { classifyFailure } from "../tmux/Classify.js"
import { commandListBytes, TMUX_ARGV_LIMIT } from "../tmux/CommandBatches.js"
import { describeCommands, Tmux, type TmuxCommand, type TmuxShape } from "../tmux/Tmux.js"
import type { FakePane, FakeServer, FakeWorld } from "./FakeWorld.js"
import type { Channel, Invocation } from "./internal/Command.js"
import { refusedAtParse, runCommand, startsServer } from "./internal/CommandTable.js"
import { findPane, makeServer, printInto } from "./internal/World.js"

export type {
  FakeBuffer,
  FakeClient,
  FakeEnvironment,
  FakePane,
  FakePaneSpec,
  FakeServer,
  FakeServerSpec,
  FakeSession,
  FakeSessionSpec,
  FakeWindow,
  FakeWindowSpec,
  FakeWinlink,
  FakeWorld
} from "./FakeWorld.js"

/** One command list the fake received. */
export interface FakeInvocation {
  /** The socket's path on its host. */
  readonly socketPath: string
  /** The socket's host, when it has one (with a hosts file). */
  readonly host?: string
  readonly commands: ReadonlyArray<TmuxCommand>
  readonly startServer: boolean
  /** The text given on the client's standard input, if any (`load-buffer -`). */
  readonly stdin?: string
}

/** The fake's world and every command list it received, oldest first. */
export interface FakeTmuxStateShape {
  readonly world: FakeWorld
  readonly invocations: Array<FakeInvocation>
}

/** The fake's state, for tests that inspect or edit the world or check which commands were sent. */
export class FakeTmuxState extends Context.Service<FakeTmuxState, FakeTmuxStateShape>()("effect-tmux-mcp/FakeTmuxState") {}

const make = (world: FakeWorld = new Map()): { readonly tmux: TmuxShape; readonly state: FakeTmuxStateShape } => {
  const state: FakeTmuxStateShape = { world, invocations: [] }
  // A server that exited leaves its socket file behind, and tmux words the failure differently.
  const exited = new Set<string>()
  const channels = new WeakMap<FakeServer, Map<string, Channel>>()
  const channelsOf = (server: FakeServer) => {
    const existing = channels.get(server)
    if (existing !== undefined) return existing
    const created = new Map<string, Channel>()
    channels.set(server, created)
    return created
  }

  /** The server exits: its socket answers no more, and every waiting client is released as if signalled. */
  const exit = (key: string, server: FakeServer) => {
    world.delete(key)
    exited.add(key)
    for (const channel of channelsOf(server).values()) for (const release of channel.waiters.splice(0)) release()
  }

  const newServer = (): FakeServer => {
    const pids = new Set([...world.values()].map((s) => s.pid))
    let pid = 50_000
    while (pids.has(pid)) pid++
    return makeServer({ pid, startTime: Math.floor(Date.now() / 1000), exitEmpty: true })
  }

  const run: TmuxShape["run"] = (socket, commands, options = {}) =>
    Effect.suspend(() => {
      const startServer = options.startServer === true
      const key = socketKey(socket)
      state.invocations.push({
        socketPath: socket.path,
        ...(socket.host === undefined ? {} : { host: socket.host }),
        commands,
        startServer,
        ...(options.stdin === undefined ? {} : { stdin: options.stdin })
      })
      const description = describeCommands(commands)
      const fail = (stderr: string) =>
        Effect.fail(classifyFailure({ stderr, exitCode: 1, socketLabel: socket.label, command: description }))
      // As the exec transport: Node cannot put a NUL into an argv, and tmux takes at most this much of one.
      if (commands.some((command) => command.some((arg) => arg.includes("\0")))) {
        return Effect.fail(
          new Failed({
            command: description,
            reason: "spawn",
            exitCode: null,
            stderr: "an argument holds a NUL character, which no program argument can carry; remove it"
          })
        )
      }
      if (commandListBytes(commands) > TMUX_ARGV_LIMIT) return fail("command too long")
      let server = world.get(key)
      if (server === undefined) {
        // Only new-session and start-server make a client start a server, and -N forbids even that.
        if (!startServer || !commands.some(startsServer)) {
          return fail(
            exited.has(key)
              ? `no server running on ${socket.path}`
              : `error connecting to ${socket.path} (No such file or directory)`
          )
        }
        server = newServer()
        world.set(key, server)
      }
      const answering = server
      const invocation: Invocation = {
        path: socket.path,
        server: answering,
        current: undefined,
        stdin: options.stdin,
        now: Math.floor(Date.now() / 1000),
        killServer: false,
        errors: [],
        channel: (name) => {
          const map = channelsOf(answering)
          const existing = map.get(name)
          if (existing !== undefined) return existing
          const created: Channel = { woken: false, waiters: [] }
          map.set(name, created)
          return created
        },
        runNested: (nested) => {
          let printed = ""
          for (const command of nested) {
            const outcome = runCommand(invocation, command)
            if ("waits" in outcome) {
              invocation.errors.push("FakeTmux does not model a command that waits inside if-shell")
              break
            }
            if ("error" in outcome) {
              invocation.errors.push(outcome.error)
              break
            }
            printed += outcome.printed
          }
          return printed
        }
      }
      return Effect.gen(function*() {
        const refused = refusedAtParse(commands)
        if (refused !== undefined) return yield* fail(refused)
        let printed = ""
        for (const command of commands) {
          const outcome = runCommand(invocation, command)
          if ("waits" in outcome) {
            yield* options.timeout === undefined
              ? outcome.waits
              : outcome.waits.pipe(
                Effect.timeoutOrElse({
                  duration: options.timeout,
                  orElse: () =>
                    Effect.fail(
                      new Failed({
                        command: description,
                        reason: "timeout",
                        exitCode: null,
                        stderr: `no answer within ${Duration.format(Duration.fromInputUnsafe(options.timeout!))}`
                      })
                    )
                })
              )
            continue
          }
          if ("error" in outcome) {
            invocation.errors.push(outcome.error)
            break
          }
          printed += outcome.printed
        }
        const exitUnattached = answering.options.get("exit-unattached") === "on"
        // tmux's server_loop: kill-server, or exit-empty with no session left (with exit-unattached, no client attached).
        if (
          world.get(key) === answering &&
          (invocation.killServer ||
            (answering.exitEmpty && (answering.sessions.length === 0 || (exitUnattached && answering.clients.length === 0))))
        ) {
          exit(key, answering)
        }
        return invocation.errors.length === 0 ? printed : yield* fail(invocation.errors.join("\n"))
      })
    })

  return { tmux: Tmux.of({ run }), state }
}

export const FakeTmux = {
  /** A fake over `world`, kept by reference: later edits to it are seen by later calls. */
  make,
  /** `Tmux` plus `FakeTmuxState`; the same world serves every use of the layer. */
  layer: (world?: FakeWorld): Layer.Layer<Tmux | FakeTmuxState> => {
    const { tmux, state } = make(world)
    return Layer.merge(Layer.succeed(Tmux, tmux), Layer.succeed(FakeTmuxState, state))
  },
  /** Builds a server from a spec, allocating ids in order like tmux. */
  server: makeServer,
  /** The pane with this id on a server, and its window. */
  pane: findPane,
  /** Makes a pane's program print `text` (`\n` ends a line), as output would arrive. */
  print: (pane: FakePane, text: string): void => printInto(pane, text)
}
