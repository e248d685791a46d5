/**
 * The spawn-per-call live layer of `Tmux`: one tmux client process per command list, argv only (no
 * shell), a minimal environment, a deadline on every call, and the child killed when the call is
 * interrupted (the executor runs it in its own process group and terminates it on scope exit).
 */
import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import type { PlatformError } from "@effect/platform/Error"
import * as NodeCommandExecutor from "@effect/platform-node/NodeCommandExecutor"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as Chunk from "effect/Chunk"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { Failed } from "../domain/Errors.js"
import { Config, type ConfigShape } from "../services/Config.js"
import type { ResolvedSocket } from "../services/SocketResolver.js"
import { classifyFailure } from "./Classify.js"
import { escapeArgvArgument } from "./Literal.js"
import { describeCommands, Tmux, type TmuxCommand, type TmuxShape } from "./Tmux.js"

/** The whole argv for one invocation: global flags, socket, then the `;`-joined command list. */
export const invocationArgv = (
  config: Pick<ConfigShape, "tmuxConfigFile">,
  socket: ResolvedSocket,
  commands: ReadonlyArray<TmuxCommand>,
  startServer: boolean
): Array<string> => {
  const argv: Array<string> = []
  // -u: tmux would otherwise replace non-ASCII output with "_" when the locale is not UTF-8.
  argv.push("-u")
  if (!startServer) argv.push("-N")
  if (config.tmuxConfigFile !== undefined) argv.push("-f", config.tmuxConfigFile)
  argv.push(...socket.flags)
  commands.forEach((command, index) => {
    if (index > 0) argv.push(";")
    argv.push(...command.map(escapeArgvArgument))
  })
  return argv
}

/**
 * A SystemError's message carries the whole command line, payload arguments (keys typed, environment
 * values) included; the reason and Node's own description name only the binary.
 */
const spawnFailure = (error: PlatformError): string =>
  error._tag === "SystemError" ? `${error.reason}${error.description === undefined ? "" : `: ${error.description}`}` : error.message

const collectText = <E>(stream: Stream.Stream<Uint8Array, E>): Effect.Effect<string, E> =>
  stream.pipe(
    Stream.decodeText(),
    Stream.runCollect,
    Effect.map((chunks) => Chunk.join(chunks, ""))
  )

export const makeTmuxExec = Effect.gen(function* () {
  const config = yield* Config
  const executor = yield* CommandExecutor.CommandExecutor

  const run: TmuxShape["run"] = (socket, commands, options = {}) => {
    const description = describeCommands(commands)
    const command = Command.make(
      config.tmuxBin,
      ...invocationArgv(config, socket, commands, options.startServer === true)
    ).pipe(
      Command.env(config.tmuxEnvironment, { extendEnv: false }),
      (command) => (options.stdin === undefined ? command : Command.feed(command, options.stdin))
    )
    const timeout = Duration.decode(options.timeout ?? Duration.millis(config.commandTimeoutMs))
    // Node throws on a NUL in argv, in an exception that quotes the argument (it may be a secret).
    if (commands.some((args) => args.some((arg) => arg.includes("\0")))) {
      return Effect.fail(
        new Failed({
          command: description,
          reason: "spawn",
          exitCode: null,
          stderr: "an argument holds a NUL character, which no program argument can carry; remove it"
        })
      )
    }

    return Effect.scoped(
      Effect.gen(function* () {
        const child = yield* executor.start(command)
        return yield* Effect.all([collectText(child.stdout), collectText(child.stderr), child.exitCode], {
          concurrency: "unbounded"
        })
      })
    ).pipe(
      Effect.mapError(
        (error) =>
          new Failed({
            command: description,
            reason: "spawn",
            exitCode: null,
            stderr: `${config.tmuxBin}: ${spawnFailure(error)}`
          })
      ),
      Effect.timeoutFail({
        duration: timeout,
        onTimeout: () =>
          new Failed({
            command: description,
            reason: "timeout",
            exitCode: null,
            stderr: `no answer within ${Duration.format(timeout)}`
          })
      }),
      Effect.flatMap(([stdout, stderr, exitCode]) =>
        exitCode === 0
          ? Effect.succeed(stdout)
          : Effect.fail(classifyFailure({ stderr, exitCode, socketLabel: socket.label, command: description }))
      ),
      Effect.withSpan("Tmux.run", { attributes: { commands: description } })
    )
  }

  return Tmux.of({ run })
})

/** What `makeTmuxExec` needs besides `Config`: Node's process executor. */
const processes = NodeCommandExecutor.layer.pipe(Layer.provide(NodeFileSystem.layer))

/** `Tmux` over one process per invocation. The layer needs only `Config`; it brings its own executor. */
export const TmuxExec = {
  make: makeTmuxExec,
  processes,
  layer: Layer.effect(Tmux, makeTmuxExec).pipe(Layer.provide(processes)) satisfies Layer.Layer<Tmux, never, Config>
}
