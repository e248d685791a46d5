/**
 * The CLI entry: flags and environment -> configuration -> the live server (ServerLive) -> MCP over
 * stdio, or the doctor report. It runs on runMain (cli/RunMain.ts): SIGINT and SIGTERM interrupt the
 * program, so the layer's finalizers (owned sessions killed, tmux children
 * ended) run before the process exits. Exit codes: 0 (served until the client left or a signal came;
 * help; version; a healthy doctor), 1 (an invalid configuration, doctor finding no tmux, a bug), 2 (usage).
 */
import * as Cause from "effect/Cause"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Result from "effect/Result"
import { parseArgs, USAGE } from "./cli/Args.js"
import { doctor } from "./cli/Doctor.js"
import { runMain } from "./cli/RunMain.js"
import { loadConfig, TmuxMcpConfig } from "./context/TmuxMcpConfig.js"
import { VERSION } from "./domain/Version.js"
import { serveStdio } from "./mcp/McpServer.js"
import { withCallerFromProcessTree } from "./services/CallerSearch.js"
import { ServerLive } from "./services/ServerLive.js"
import { Tmux } from "./tmux/Tmux.js"
import { TmuxLive } from "./tmux/TmuxLive.js"
import { allTools } from "./tools/registry.js"
import { toolSelectionError } from "./tools/ToolSets.js"

/** The program stops with this exit code and message, before any service was built. */
class Stop extends Data.TaggedError("Stop")<{ readonly code: number; readonly message: string }> {}

const complain = (message: string) => process.stderr.write(`effect-tmux-mcp: ${message}\n`)

const print = (text: string) => Effect.sync(() => void process.stdout.write(text)) // stdout-ok: help, version and doctor are not MCP mode

/**
 * The tmux binary checked before serving (where_am_i then says what is wrong), with one line on
 * stderr when it is missing or is not tmux.
 */
const warnWithoutTmux = Effect.flatMap(
  Tmux,
  (tmux) =>
    tmux.binary === undefined ? Effect.void : Effect.flatMap(tmux.binary.check, (check) =>
      check._tag === "Found"
        ? Effect.void
        : Effect.sync(() => complain(`warning: ${check.problem} Until then, calls that need a tmux process fail.`)))
)

/** The exit code to leave with. */
const program: Effect.Effect<number, Stop> = Effect.gen(function*() {
  const args = parseArgs(process.argv.slice(2))
  if (Result.isFailure(args)) return yield* new Stop({ code: 2, message: `${args.failure} Run with --help for usage.` })
  const { command, flags } = args.success
  if (command === "help") return yield* Effect.as(print(USAGE), 0)
  if (command === "version") return yield* Effect.as(print(`${VERSION}\n`), 0)

  const config = loadConfig({ env: process.env, flags, uid: process.getuid?.() ?? 0 })
  if (Result.isFailure(config)) return yield* new Stop({ code: 1, message: config.failure.message })
  const badToolSet = toolSelectionError(allTools, config.success)
  if (badToolSet !== undefined) return yield* new Stop({ code: 1, message: badToolSet })
  // Once, before anything is served: a client that passed no TMUX may still run in a pane.
  const configured = yield* withCallerFromProcessTree(
    config.success,
    Layer.provide(TmuxLive.layer, TmuxMcpConfig.layer(config.success))
  )
  const live = ServerLive.layer(configured)

  if (command === "doctor") {
    const report = yield* Effect.provide(doctor(allTools), live)
    return yield* Effect.as(print(`${report.text}\n`), report.healthy ? 0 : 1)
  }
  yield* Effect.provide(Effect.andThen(warnWithoutTmux, serveStdio(allTools)), live)
  return 0
})

runMain(
  program.pipe(
    Effect.catchTag("Stop", (stop) => Effect.as(Effect.sync(() => complain(stop.message)), stop.code)),
    // stdout is the protocol's: should anything log through Effect, it goes to stderr.
    Effect.provideService(Logger.LogToStderr, true)
  ),
  {
    // Effect's own error report would write to stdout; the teardown reports on stderr instead.
    disableErrorReporting: true,
    // Always exits (runMain leaves a clean end to the event loop), so nothing left running can hold the process.
    teardown: (exit) => {
      if (Exit.isSuccess(exit)) process.exit(typeof exit.value === "number" ? exit.value : 0)
      if (Cause.hasInterruptsOnly(exit.cause)) process.exit(0)
      const error = Cause.squash(exit.cause)
      complain(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
      process.exit(1)
    }
  }
)
