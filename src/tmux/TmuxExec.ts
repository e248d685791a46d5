/**
 * The spawn-per-call live layer of `Tmux`: one tmux client process per command list, argv only (no
 * shell), a minimal environment, a deadline on every call, and the child ended when the call is
 * interrupted or times out (its process group: SIGTERM, then SIGKILL after a short grace; see
 * `TmuxProcess`).
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Failed } from "../domain/Errors.js"
import { Config, type ConfigShape } from "../services/Config.js"
import type { ResolvedSocket } from "../services/SocketResolver.js"
import { classifyFailure } from "./Classify.js"
import { escapeArgvArgument } from "./Literal.js"
import { describeCommands, Tmux, type TmuxCommand, type TmuxShape } from "./Tmux.js"
import { runToEnd } from "./TmuxProcess.js"

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

export const makeTmuxExec = Effect.gen(function* () {
  const config = yield* Config

  const run: TmuxShape["run"] = (socket, commands, options = {}) => {
    const description = describeCommands(commands)
    const failed = (reason: Failed["reason"], stderr: string) =>
      new Failed({ command: description, reason, exitCode: null, stderr })
    // Node throws on a NUL in argv, in an exception that quotes the argument (it may be a secret).
    if (commands.some((args) => args.some((arg) => arg.includes("\0")))) {
      return Effect.fail(failed("spawn", "an argument holds a NUL character, which no program argument can carry; remove it"))
    }
    const timeout = Duration.decode(options.timeout ?? Duration.millis(config.commandTimeoutMs))
    const argv = invocationArgv(config, socket, commands, options.startServer === true)

    return runToEnd(config.tmuxBin, argv, { env: config.tmuxEnvironment, stdin: options.stdin }).pipe(
      Effect.mapError((error) => failed("spawn", error.message)),
      Effect.timeoutFail({
        duration: timeout,
        onTimeout: () => failed("timeout", `no answer within ${Duration.format(timeout)}`)
      }),
      Effect.flatMap(({ stdout, stderr, exitCode }) => {
        if (exitCode !== 0) {
          return Effect.fail(classifyFailure({ stderr, exitCode, socketLabel: socket.label, command: description }))
        }
        return Effect.succeed(stdout)
      }),
      Effect.withSpan("Tmux.run", { attributes: { commands: description } })
    )
  }

  return Tmux.of({ run })
})

/** `Tmux` over one process per invocation. The layer needs only `Config`. */
export const TmuxExec = {
  make: makeTmuxExec,
  layer: Layer.effect(Tmux, makeTmuxExec) satisfies Layer.Layer<Tmux, never, Config>
}
