/**
 * How a new pane's process is started (new-session, new-window, split-window, respawn-pane):
 * start directory, environment and argv, each made safe once here.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { stat } from "node:fs/promises"
import { homedir } from "node:os"
import { isAbsolute, posix, resolve } from "node:path"
import { isRemoteHost, RemoteHosts } from "../../context/RemoteHosts.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { Failed, InvalidInput } from "../../domain/Errors.js"
import { BATCH_ARGC_BUDGET, BATCH_BUDGET, commandListArgc, commandListBytes } from "../../tmux/CommandBatches.js"
import { literalizeFormat } from "../../tmux/Literal.js"
import type { TmuxCommand } from "../../tmux/Tmux.js"

/** How a new process starts, for every create request: directory, environment, history suppression, argv. */
export interface SpawnRequest {
  /**
   * Must exist; `~` expands; relative paths resolve against this MCP server's working directory.
   * On a remote host, `~` and relative paths are the remote user's HOME's, and the directory is
   * checked there once the process started (see `RemoteStartDirectory`).
   */
  readonly startDirectory?: string | undefined
  /** Variables for the new process (and, for a session, the session environment). */
  readonly environment?: Readonly<Record<string, string>> | undefined
  /** Keep the new shell's history out of its history file. */
  readonly suppressHistory?: boolean | undefined
  /** argv, run without a shell. */
  readonly command?: ReadonlyArray<string> | undefined
}

export const ENVIRONMENT_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/u

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
      "UnknownError",
      () => Effect.fail(new InvalidInput({ reason: "start_directory does not exist (or cannot be read)." }))
    )
  )
}

/**
 * A start directory on a remote host, as its user means it: `~` is their HOME there, and so is
 * what a relative path starts from (the tmux client's directory there). Nothing on this machine
 * is looked at: its file system is not the host's.
 */
export const remoteStartDirectory = (directory: string, home: string): string =>
  directory === "~" ? home : posix.resolve(home, directory.startsWith("~/") ? directory.slice(2) : directory)

/**
 * A start directory given on a remote host: where the process must turn out to run, once started.
 * tmux starts it in HOME when it cannot enter the directory and says nothing, and this machine
 * cannot look first; StartDirectoryCheck looks afterwards.
 */
export interface RemoteStartDirectory {
  readonly host: string
  readonly directory: string
  readonly home: string
}

/** What a spawn sends: the tmux flags (`-c`, `-e`), the trailing argv, and what to check afterwards. */
export interface SpawnArguments {
  readonly flags: ReadonlyArray<string>
  readonly argv: ReadonlyArray<string>
  /** On a remote host with a start directory: where the new process must be found. */
  readonly remoteDirectory: RemoteStartDirectory | undefined
}

/** The start directory's `-c` value for a spawn on `socket`'s host, and on a remote host what to check. */
const startDirectoryFor = (
  directory: string,
  socket: Pick<ResolvedSocket, "host">
): Effect.Effect<{ readonly path: string; readonly remote: RemoteStartDirectory | undefined }, InvalidInput | Failed> => {
  const host = socket.host
  if (!isRemoteHost(host)) return Effect.map(resolveStartDirectory(directory), (path) => ({ path, remote: undefined }))
  return Effect.gen(function*() {
    const remote = yield* Effect.serviceOption(RemoteHosts)
    if (Option.isNone(remote)) {
      return yield* Effect.fail(
        new Failed({ command: "start directory", reason: "refused", exitCode: null, stderr: `no hosts file configures host ${host}` })
      )
    }
    const { home } = yield* remote.value.view(host)
    const path = remoteStartDirectory(directory, home)
    return { path, remote: { host, directory: path, home } }
  })
}

/**
 * The tmux flags (`-c`, `-e`) and the trailing argv for a spawn on `socket`'s host (default this
 * machine). tmux runs a single-word command through `sh -c`; `env --` in front keeps even a
 * one-element argv away from any shell.
 */
export const spawnArguments = (
  request: SpawnRequest,
  socket: Pick<ResolvedSocket, "host"> = {}
): Effect.Effect<SpawnArguments, InvalidInput | Failed> =>
  Effect.gen(function*() {
    const flags: Array<string> = []
    let remoteDirectory: RemoteStartDirectory | undefined
    if (request.startDirectory !== undefined) {
      const start = yield* startDirectoryFor(request.startDirectory, socket)
      flags.push("-c", literalizeFormat(start.path))
      remoteDirectory = start.remote
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
    return { flags, argv, remoteDirectory }
  })

/**
 * Refuses a command that starts a pane (`pane` names it) when no tmux invocation can carry it: its
 * environment and argv each within their limits can still make one command longer than tmux's
 * message (16364 bytes of argv on tmux 3.3a, less the room kept for the end mark) or, from tmux
 * 3.7, than its 1000 strings. A workspace's command list longer than that is sent in several
 * (Create); one command cannot be.
 */
export const refuseOverlongSpawn = (pane: string, command: TmuxCommand): Effect.Effect<void, InvalidInput> => {
  const bytes = commandListBytes([command])
  const strings = commandListArgc([command])
  const over = bytes > BATCH_BUDGET
    ? `takes ${bytes} bytes; one tmux command carries at most ${BATCH_BUDGET} bytes`
    : strings > BATCH_ARGC_BUDGET
    ? `takes ${strings} strings; one tmux command carries at most ${BATCH_ARGC_BUDGET} (tmux 3.7 and later)`
    : undefined
  return over === undefined ? Effect.void : Effect.fail(
    new InvalidInput({
      reason:
        `${pane}: the tmux command that starts it, with its environment and argv, ${over}. Pass fewer or shorter values (large ones in a file).`
    })
  )
}
