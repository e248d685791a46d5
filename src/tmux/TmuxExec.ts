/**
 * The spawn-per-call live layer of `Tmux`: one tmux client process per command list, argv only (no
 * shell), a minimal environment, a deadline on every call, and the child ended when the call is
 * interrupted or times out (its process group: SIGTERM, then SIGKILL after a short grace; see
 * `TmuxProcess`). Every list ends with an end mark of its own (`internal/CommandList.ts`), so output
 * without it is `Failed` with reason `unparseable`, never an empty or partial answer. Only this
 * user's own sockets are used (a tmux process opens any file its server asks for), and a child
 * printing more than OutputLimit.MAX_OUTPUT_BYTES is ended, its output dropped. The only layer
 * that can start a server; the socket transport sends such calls here.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import { isRemoteHost } from "../context/RemoteHosts.js"
import type { ResolvedSocket } from "../context/SocketResolver.js"
import { TmuxMcpConfig, type TmuxMcpConfigShape } from "../context/TmuxMcpConfig.js"
import { Failed } from "../domain/Errors.js"
import { timedOut } from "./Classify.js"
import { listArgv, markList, readAnswer } from "./internal/CommandList.js"
import { MAX_OUTPUT_BYTES, OutputAllowance, outputOverflowed } from "./internal/OutputLimit.js"
import { foreignRefused, socketTrust } from "./internal/SocketTrust.js"
import { describeCommands, Tmux, type TmuxCommand, type TmuxShape } from "./Tmux.js"
import { makeTmuxBinary } from "./TmuxBinary.js"
import { runToEnd, TmuxProcesses } from "./TmuxProcess.js"

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
  argv.push(...socket.flags, ...listArgv(commands))
  return argv
}

export const makeTmuxExec = Effect.gen(function*() {
  const config = yield* TmuxMcpConfig
  const processes = yield* TmuxProcesses
  // What this layer's children hold of their output, together.
  const allowance = new OutputAllowance()

  const run: TmuxShape["run"] = (socket, commands, options = {}) => {
    const description = describeCommands(commands)
    const marked = markList(commands, description)
    if (Result.isFailure(marked)) return Effect.fail(marked.failure)
    const list = marked.success
    // This machine's tmux never runs against a remote host's socket: at a forward's path it would
    // start a server here (the socket transport serves remote hosts).
    if (isRemoteHost(socket.host)) {
      return Effect.fail(
        new Failed({
          command: description,
          reason: "refused",
          exitCode: null,
          stderr: `${socket.label} is on host ${socket.host}, which a local tmux process never serves`
        })
      )
    }
    // A tmux process opens every file its server asks for: only this user's own sockets get one,
    // checked right before the spawn (a symlink is passed as its target, which cannot change).
    const trust = socketTrust(socket.path, config.uid)
    if (trust._tag === "foreign") return Effect.fail(foreignRefused(socket, trust.why, description))
    const addressed = trust._tag === "own" && trust.path !== socket.path ? { ...socket, flags: ["-S", trust.path] } : socket
    const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.millis(config.commandTimeoutMs))
    const argv = invocationArgv(config, addressed, list.sent, options.startServer === true)

    return runToEnd(config.tmuxBin, argv, {
      env: config.tmuxEnvironment,
      stdin: options.stdin,
      maxOutputBytes: MAX_OUTPUT_BYTES,
      allowance
    }).pipe(
      Effect.provideService(TmuxProcesses, processes),
      Effect.mapError((error) =>
        error._tag === "OutputOverflowed"
          ? outputOverflowed(description, error.overflow)
          : new Failed({ command: description, reason: "spawn", exitCode: null, stderr: error.message })
      ),
      Effect.timeoutOrElse({
        duration: timeout,
        orElse: () => Effect.fail(timedOut(description, timeout))
      }),
      Effect.flatMap((result) => Effect.fromResult(readAnswer(result, list, socket.label, description))),
      Effect.withSpan("Tmux.run", { attributes: { commands: description } })
    )
  }

  const binary = yield* makeTmuxBinary(config.tmuxBin, config.tmuxEnvironment)
  return Tmux.of({ run, transportFor: () => Effect.succeed({ transport: "exec", fallback: null }), binary })
})

/** `Tmux` over one process per invocation. The layer needs only `TmuxMcpConfig`; it owns its children. */
export const TmuxExec = {
  make: makeTmuxExec,
  layer: Layer.effect(Tmux, makeTmuxExec).pipe(Layer.provide(TmuxProcesses.layer)) satisfies Layer.Layer<Tmux, never, TmuxMcpConfig>
}
