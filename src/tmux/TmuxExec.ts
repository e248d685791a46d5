/**
 * The spawn-per-call live layer of `Tmux`: one tmux client process per command list, argv only (no
 * shell), a minimal environment, a deadline on every call, and the child ended when the call is
 * interrupted or times out (its process group: SIGTERM, then SIGKILL after a short grace; see
 * `TmuxProcess`).
 *
 * Every list ends with an end mark of its own, `display-message -p <token>` with a token chosen
 * afresh for the call: tmux prints it only after every command before it ran, so output without it
 * (nothing at all, garbage, a client cut short, a binary that is not tmux) is `Failed` with reason
 * `unparseable`, never read as an empty or partial answer. The mark is added here, below any
 * recording layer, and stripped before the output is returned. Two kinds of list need another mark:
 * - `show-buffer` writes the buffer through a stream of its own that closes the client's stdout
 *   when done (tmux 3.3a: nothing printed after it arrives, and output printed before it makes the
 *   buffer go missing). Its mark is a refusal instead: `show-buffer -b <token>`, a buffer that does
 *   not exist, fails with "no buffer <token>" on stderr, which only a list that ran to its end prints.
 * - `kill-server`: nothing after it is read, and the server may be gone before a mark is printed.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomBytes } from "node:crypto"
import type { ResolvedSocket } from "../context/SocketResolver.js"
import { TmuxMcpConfig, type TmuxMcpConfigShape } from "../context/TmuxMcpConfig.js"
import { Failed } from "../domain/Errors.js"
import { classifyFailure, timedOut } from "./Classify.js"
import { commandListBytes, TMUX_ARGV_LIMIT } from "./CommandBatches.js"
import { escapeArgvArgument } from "./Literal.js"
import { describeCommands, Tmux, type TmuxCommand, type TmuxShape } from "./Tmux.js"
import { type Finished, runToEnd, TmuxProcesses } from "./TmuxProcess.js"

/** The whole argv for one invocation: global flags, socket, then the `;`-joined command list. */
export const invocationArgv = (
  config: Pick<TmuxMcpConfigShape, "tmuxConfigFile">,
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

/** The command closing one invocation, and how to tell that tmux ran the list to its end. */
interface EndMark {
  readonly command: TmuxCommand
  /** The output of a list that ran to its end, without the mark; undefined when it did not. */
  readonly strip: (result: Finished) => string | undefined
}

const endMarkFor = (commands: ReadonlyArray<TmuxCommand>): EndMark | undefined => {
  if (commands.some((command) => command[0] === "kill-server")) return undefined
  const token = `etm-end-${randomBytes(8).toString("hex")}`
  if (commands.some((command) => command[0] === "show-buffer")) {
    const refusal = `no buffer ${token}\n`
    return {
      command: ["show-buffer", "-b", token],
      strip: ({ stdout, stderr, exitCode }) => (exitCode === 1 && stderr === refusal ? stdout : undefined)
    }
  }
  const line = `${token}\n`
  return {
    command: ["display-message", "-p", token],
    strip: ({ stdout, exitCode }) => (exitCode === 0 && stdout.endsWith(line) ? stdout.slice(0, stdout.length - line.length) : undefined)
  }
}

export const makeTmuxExec = Effect.gen(function*() {
  const config = yield* TmuxMcpConfig
  const processes = yield* TmuxProcesses

  const run: TmuxShape["run"] = (socket, commands, options = {}) => {
    const description = describeCommands(commands)
    const failed = (reason: Failed["reason"], stderr: string) => new Failed({ command: description, reason, exitCode: null, stderr })
    // Node throws on a NUL in argv, in an exception that quotes the argument (it may be a secret).
    if (commands.some((args) => args.some((arg) => arg.includes("\0")))) {
      return Effect.fail(failed("spawn", "an argument holds a NUL character, which no program argument can carry; remove it"))
    }
    const mark = endMarkFor(commands)
    const sent = mark === undefined ? commands : [...commands, mark.command]
    const bytes = commandListBytes(sent)
    if (bytes > TMUX_ARGV_LIMIT) {
      return Effect.fail(
        failed(
          "exit",
          `the command list takes ${bytes} bytes, more than the ${TMUX_ARGV_LIMIT} one tmux invocation carries; send less at once`
        )
      )
    }
    const timeout = Duration.decode(options.timeout ?? Duration.millis(config.commandTimeoutMs))
    const argv = invocationArgv(config, socket, sent, options.startServer === true)

    return runToEnd(config.tmuxBin, argv, { env: config.tmuxEnvironment, stdin: options.stdin }).pipe(
      Effect.provideService(TmuxProcesses, processes),
      Effect.mapError((error) => failed("spawn", error.message)),
      Effect.timeoutFail({
        duration: timeout,
        onTimeout: () => timedOut(description, timeout)
      }),
      Effect.flatMap((result) => {
        if (mark === undefined) {
          return result.exitCode === 0
            ? Effect.succeed(result.stdout)
            : Effect.fail(classifyFailure({ ...result, socketLabel: socket.label, command: description }))
        }
        const output = mark.strip(result)
        if (output !== undefined) return Effect.succeed(output)
        if (result.exitCode !== 0) return Effect.fail(classifyFailure({ ...result, socketLabel: socket.label, command: description }))
        return Effect.fail(
          failed(
            "unparseable",
            result.stdout === "" && result.stderr === ""
              ? "it exited 0 without printing anything, not even the end mark every call asks for (is LIBTMUX_TMUX_BIN a tmux?)"
              : "it exited 0 but its output did not end with the end mark every call asks for: cut short, or not from tmux (is LIBTMUX_TMUX_BIN a tmux?)"
          )
        )
      }),
      Effect.withSpan("Tmux.run", { attributes: { commands: description } })
    )
  }

  return Tmux.of({ run })
})

/** `Tmux` over one process per invocation. The layer needs only `TmuxMcpConfig`; it owns its children. */
export const TmuxExec = {
  make: makeTmuxExec,
  layer: Layer.effect(Tmux, makeTmuxExec).pipe(Layer.provide(TmuxProcesses.layer)) satisfies Layer.Layer<Tmux, never, TmuxMcpConfig>
}
