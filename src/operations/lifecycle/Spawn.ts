/**
 * How a new pane's process is started (new-session, new-window, split-window, respawn-pane):
 * start directory, environment and argv, each made safe once here.
 */
import * as Effect from "effect/Effect"
import { stat } from "node:fs/promises"
import { homedir } from "node:os"
import { isAbsolute, resolve } from "node:path"
import { InvalidInput } from "../../domain/Errors.js"
import { literalizeFormat } from "../../tmux/Literal.js"

/** How a new process starts, for every create request: directory, environment, history suppression, argv. */
export interface SpawnRequest {
  /** Must exist; `~` expands; relative paths resolve against this MCP server's working directory. */
  readonly startDirectory?: string | undefined
  /** Variables for the new process (and, for a session, the session environment). */
  readonly environment?: Readonly<Record<string, string>> | undefined
  /** Keep the new shell's history out of its history file. */
  readonly suppressHistory?: boolean | undefined
  /** argv, run without a shell. */
  readonly command?: ReadonlyArray<string> | undefined
}

export const ENVIRONMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * Names and values of a spawn's environment together: they are `-e` flags of one tmux command, and
 * tmux refuses a command line over about 16 KiB ("command too long").
 */
export const MAX_SPAWN_ENVIRONMENT_BYTES = 12_288

/** What shells read to decide where history goes; empty means "nowhere". */
const HISTORY_SUPPRESSION: Readonly<Record<string, string>> = {
  HISTFILE: "",
  fish_history: "",
  fish_private_mode: "1"
}

export const resolveStartDirectory = (directory: string): Effect.Effect<string, InvalidInput> => {
  const expanded = directory === "~" ? homedir() : directory.startsWith("~/") ? resolve(homedir(), directory.slice(2)) : directory
  const absolute = isAbsolute(expanded) ? expanded : resolve(process.cwd(), expanded)
  return Effect.tryPromise(() => stat(absolute)).pipe(
    Effect.flatMap((info) =>
      info.isDirectory()
        ? Effect.succeed(absolute)
        : Effect.fail(new InvalidInput({ reason: "start_directory is not a directory." }))
    ),
    // The path is the caller's (of any length): named, not echoed.
    Effect.catchTag(
      "UnknownException",
      () => Effect.fail(new InvalidInput({ reason: "start_directory does not exist (or cannot be read)." }))
    )
  )
}

/**
 * The tmux flags (`-c`, `-e`) and the trailing argv for a spawn. tmux runs a single-word command
 * through `sh -c`; `env --` in front keeps even a one-element argv away from any shell.
 */
export const spawnArguments = (
  request: SpawnRequest
): Effect.Effect<{ readonly flags: ReadonlyArray<string>; readonly argv: ReadonlyArray<string> }, InvalidInput> =>
  Effect.gen(function*() {
    const flags: Array<string> = []
    if (request.startDirectory !== undefined) {
      flags.push("-c", literalizeFormat(yield* resolveStartDirectory(request.startDirectory)))
    }
    const environment = { ...request.environment }
    let bytes = 0
    for (const [name, value] of Object.entries(environment)) {
      if (!ENVIRONMENT_NAME.test(name)) {
        return yield* Effect.fail(
          new InvalidInput({
            reason: `environment holds a name that is not a valid variable name ([A-Za-z_][A-Za-z0-9_]*)${
              name.length <= 64 ? `: ${JSON.stringify(name)}` : ""
            }.`
          })
        )
      }
      bytes += Buffer.byteLength(name, "utf8") + Buffer.byteLength(value, "utf8") + 1
    }
    if (bytes > MAX_SPAWN_ENVIRONMENT_BYTES) {
      return yield* Effect.fail(
        new InvalidInput({
          reason:
            `environment holds ${bytes} bytes of names and values; at most ${MAX_SPAWN_ENVIRONMENT_BYTES} fit in the one tmux command that starts the process. Set large values with set_environment, or pass a file path instead.`
        })
      )
    }
    if (request.suppressHistory === true) {
      for (const [name, value] of Object.entries(HISTORY_SUPPRESSION)) {
        if (name in environment && environment[name] !== value) {
          return yield* Effect.fail(
            new InvalidInput({ reason: `environment sets ${name}, which suppress_persistent_history needs to control; drop one of them.` })
          )
        }
        environment[name] = value
      }
    }
    for (const [name, value] of Object.entries(environment)) flags.push("-e", `${name}=${value}`)
    const command = request.command ?? []
    const argv = command.length === 1 ? ["env", "--", ...command] : [...command]
    return { flags, argv }
  })
