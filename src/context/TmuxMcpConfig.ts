/**
 * Configuration from environment variables (compatible with the Python libtmux-mcp) and CLI flags.
 * Flags win over variables. Invalid values stop start-up with a message that says how to fix them.
 * `TMUX` and `TMUX_PANE` are read here, once, so later changes to the process environment cannot
 * change who the caller is.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import { readFileSync } from "node:fs"
import { type HostsConfig, loadHostsFile } from "./HostsConfig.js"
import type { CallerSource } from "./InvocationContext.js"

/** The safety levels, lowest first: each enables the tools of its tier and those below. */
export const SAFETY_LEVELS = ["readonly", "mutating", "destructive"] as const
/** A safety level (LIBTMUX_SAFETY / --safety), also a tool's tier. */
export type SafetyLevel = (typeof SAFETY_LEVELS)[number]

/** How commands reach tmux: tmux's client protocol over the server's socket (no process per call), or a process per call. */
export const TRANSPORTS = ["socket", "exec"] as const
/** A transport (LIBTMUX_MCP_TRANSPORT / --transport). */
export type Transport = (typeof TRANSPORTS)[number]

/**
 * A tool set (LIBTMUX_MCP_TOOLS / --tools): names of tools and groups, `-name` to leave one out,
 * and where it came from, to name in messages. Names are checked against the tools above this
 * layer (tools/ToolSets.ts), before the server starts.
 */
export interface ToolSelection {
  readonly terms: ReadonlyArray<string>
  readonly source: string
}

/** The validated settings, as `loadConfig` makes them. */
export interface TmuxMcpConfigShape {
  /** Default `-L` name (LIBTMUX_SOCKET / --socket-name). */
  readonly socketName: string | undefined
  /** Default `-S` path (LIBTMUX_SOCKET_PATH / --socket-path). */
  readonly socketPath: string | undefined
  /** Whether the socket name or path came from a command-line flag rather than a variable. */
  readonly socketFromFlag: boolean
  readonly tmuxBin: string
  /** A tmux config file passed as `-f` (only read when a server starts); tests use /dev/null. */
  readonly tmuxConfigFile: string | undefined
  readonly safety: SafetyLevel
  /** The tool set; undefined enables every tool of the safety level. */
  readonly toolSelection: ToolSelection | undefined
  /** LIBTMUX_MCP_TRANSPORT / --transport (default socket). */
  readonly transport: Transport
  readonly allowServerStart: boolean
  readonly suppressHistory: boolean
  /** Ceiling for blocking waits, in seconds, already clamped to [1, 120]. */
  readonly waitMaxSeconds: number
  /** Deadline for one tmux invocation. */
  readonly commandTimeoutMs: number
  /** Where tmux keeps `tmux-<uid>/` socket directories. */
  readonly tmuxTmpdir: string
  readonly uid: number
  /** `$TMUX` at start-up: `<socket_path>,<server_pid>,<session_index>`. */
  readonly callerTmux: string | undefined
  /** `$TMUX_PANE` at start-up. */
  readonly callerPane: string | undefined
  /**
   * Where `callerTmux` / `callerPane` came from: this process's environment (absent means so), or
   * an ancestor's (services/CallerSearch.ts fills them in when the environment had no TMUX).
   */
  readonly callerSource?: CallerSource
  /** Whether to look for the caller in this process's ancestors when TMUX is unset (LIBTMUX_MCP_PROCESS_TREE, default on). */
  readonly processTree?: boolean
  /** The environment given to tmux clients we spawn: only the basics, never the whole MCP environment. */
  readonly tmuxEnvironment: Readonly<Record<string, string>>
  /**
   * The other machines tools may name as `host` (LIBTMUX_MCP_HOSTS / --hosts); undefined: this
   * machine only, no `host` argument, no ssh ever run.
   */
  readonly hosts?: HostsConfig | undefined
}

/** The settings every service reads; `layer(config)` provides them. */
export class TmuxMcpConfig extends Context.Service<TmuxMcpConfig, TmuxMcpConfigShape>()("effect-tmux-mcp/TmuxMcpConfig") {
  static readonly layer = (config: TmuxMcpConfigShape): Layer.Layer<TmuxMcpConfig> => Layer.succeed(TmuxMcpConfig, config)
}

/** An invalid setting; the message names the variable or flag and what it accepts. */
export class ConfigError extends Data.TaggedError("ConfigError")<{ readonly message: string }> {}

/** Values given on the command line; `undefined` means "not given". */
export interface ConfigFlags {
  readonly socketName?: string
  readonly socketPath?: string
  readonly tmuxBin?: string
  readonly tmuxConfigFile?: string
  readonly safety?: string
  readonly tools?: string
  readonly transport?: string
  readonly allowServerStart?: string
  readonly suppressHistory?: string
  readonly waitMaxSeconds?: string
  readonly hosts?: string
}

/** What `loadConfig` reads: the environment, the command-line flags and the user id. */
export interface ConfigSources {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly flags: ConfigFlags
  readonly uid: number
  /** Reads the hosts file (default: the file system). */
  readonly readFile?: (path: string) => Buffer
}

export const DEFAULT_COMMAND_TIMEOUT_MS = 10_000
export const DEFAULT_WAIT_MAX_SECONDS = 30
const WAIT_MAX_BOUNDS = [1, 120] as const

/** Variables a tmux server we start may inherit; everything else in the MCP environment stays out. */
const INHERITED_VARIABLES = ["PATH", "HOME", "TERM", "SHELL", "USER", "LOGNAME", "LANG", "TMUX_TMPDIR"]

const nonEmpty = (value: string | undefined): string | undefined => value === undefined || value.trim() === "" ? undefined : value

/** The words an on/off setting takes (case-insensitive); the refusal names them all. */
const ON_WORDS = ["1", "true", "yes", "on"]
const OFF_WORDS = ["0", "false", "no", "off"]

const parseBoolean = (value: string, source: string): Result.Result<boolean, ConfigError> => {
  const normalized = value.trim().toLowerCase()
  if (ON_WORDS.includes(normalized)) return Result.succeed(true)
  if (OFF_WORDS.includes(normalized)) return Result.succeed(false)
  return Result.fail(
    new ConfigError({
      message: `${source} must be one of ${ON_WORDS.join(", ")} (on) or ${OFF_WORDS.join(", ")} (off), got ${JSON.stringify(value)}.`
    })
  )
}

const pick = (
  flag: string | undefined,
  flagName: string,
  env: string | undefined,
  envName: string
): { readonly value: string; readonly source: string } | undefined => {
  if (flag !== undefined) return { value: flag, source: flagName }
  const fromEnv = nonEmpty(env)
  return fromEnv === undefined ? undefined : { value: fromEnv, source: envName }
}

/** Builds the validated configuration, or says exactly what is wrong and how to fix it. */
export const loadConfig = ({ env, flags, readFile = readFileSync, uid }: ConfigSources): Result.Result<TmuxMcpConfigShape, ConfigError> =>
  Result.gen(function*() {
    // A socket flag replaces both socket variables: the command line is the more specific choice.
    const fromFlags = flags.socketName !== undefined || flags.socketPath !== undefined
    const socketName = fromFlags
      ? pick(flags.socketName, "--socket-name", undefined, "")
      : pick(undefined, "", env.LIBTMUX_SOCKET, "LIBTMUX_SOCKET")
    const socketPath = fromFlags
      ? pick(flags.socketPath, "--socket-path", undefined, "")
      : pick(undefined, "", env.LIBTMUX_SOCKET_PATH, "LIBTMUX_SOCKET_PATH")
    if (socketName !== undefined && socketPath !== undefined) {
      return yield* Result.fail(
        new ConfigError({
          message:
            `Both a socket name (${socketName.source}) and a socket path (${socketPath.source}) are set; they are exclusive. Keep one of them.`
        })
      )
    }
    if (socketName !== undefined && socketName.value.includes("/")) {
      return yield* Result.fail(
        new ConfigError({
          message: `${socketName.source} must be a bare socket name without "/"; use --socket-path / LIBTMUX_SOCKET_PATH for a path.`
        })
      )
    }

    const safetyRaw = pick(flags.safety, "--safety", env.LIBTMUX_SAFETY, "LIBTMUX_SAFETY")
    const safety = safetyRaw === undefined ? "mutating" : safetyRaw.value.trim().toLowerCase()
    if (!(SAFETY_LEVELS as ReadonlyArray<string>).includes(safety)) {
      return yield* Result.fail(
        new ConfigError({
          message: `${safetyRaw?.source} is ${JSON.stringify(safetyRaw?.value)}; it must be one of ${SAFETY_LEVELS.join(", ")}.`
        })
      )
    }

    const toolsRaw = pick(flags.tools, "--tools", env.LIBTMUX_MCP_TOOLS, "LIBTMUX_MCP_TOOLS")
    const toolTerms = toolsRaw?.value.split(",").map((term) => term.trim())
    if (toolsRaw !== undefined && toolTerms!.some((term) => term === "" || term === "-")) {
      return yield* Result.fail(
        new ConfigError({
          message: `${toolsRaw.source} has an empty entry; give a comma-separated list of tool and group names (-name leaves one out).`
        })
      )
    }

    const transportRaw = pick(flags.transport, "--transport", env.LIBTMUX_MCP_TRANSPORT, "LIBTMUX_MCP_TRANSPORT")
    // socket by default: no process per call, and the same code path in tmux as every CLI call.
    const transport = transportRaw?.value ?? "socket"
    if (!(TRANSPORTS as ReadonlyArray<string>).includes(transport)) {
      return yield* Result.fail(
        new ConfigError({
          message: `${transportRaw?.source} must be one of ${TRANSPORTS.join(", ")} (got ${JSON.stringify(transport)}).`
        })
      )
    }

    const allowRaw = pick(flags.allowServerStart, "--allow-server-start", env.LIBTMUX_ALLOW_SERVER_START, "LIBTMUX_ALLOW_SERVER_START")
    const allowServerStart = allowRaw === undefined ? false : yield* parseBoolean(allowRaw.value, allowRaw.source)

    const historyRaw = pick(flags.suppressHistory, "--suppress-history", env.LIBTMUX_SUPPRESS_HISTORY, "LIBTMUX_SUPPRESS_HISTORY")
    const suppressHistory = historyRaw === undefined ? true : yield* parseBoolean(historyRaw.value, historyRaw.source)

    const waitRaw = pick(flags.waitMaxSeconds, "--wait-max", env.LIBTMUX_MCP_WAIT_MAX_SECONDS, "LIBTMUX_MCP_WAIT_MAX_SECONDS")
    let waitMaxSeconds = DEFAULT_WAIT_MAX_SECONDS
    if (waitRaw !== undefined) {
      const parsed = Number(waitRaw.value)
      if (!Number.isFinite(parsed)) {
        return yield* Result.fail(
          new ConfigError({ message: `${waitRaw.source} must be a number of seconds (got ${JSON.stringify(waitRaw.value)}).` })
        )
      }
      waitMaxSeconds = Math.min(WAIT_MAX_BOUNDS[1], Math.max(WAIT_MAX_BOUNDS[0], parsed))
    }

    const treeRaw = pick(undefined, "", env.LIBTMUX_MCP_PROCESS_TREE, "LIBTMUX_MCP_PROCESS_TREE")
    const processTree = treeRaw === undefined ? true : yield* parseBoolean(treeRaw.value, treeRaw.source)

    const hostsRaw = pick(flags.hosts, "--hosts", env.LIBTMUX_MCP_HOSTS, "LIBTMUX_MCP_HOSTS")
    let hosts: HostsConfig | undefined
    if (hostsRaw !== undefined) {
      const loaded = loadHostsFile(hostsRaw.value, hostsRaw.source, readFile, env.HOME)
      if (Result.isFailure(loaded)) return yield* Result.fail(new ConfigError({ message: loaded.failure }))
      // ssh finds the user's keys through their agent; nothing else of this environment is passed.
      hosts = env.SSH_AUTH_SOCK === undefined ? loaded.success : { ...loaded.success, environment: { SSH_AUTH_SOCK: env.SSH_AUTH_SOCK } }
    }

    const tmuxEnvironment: Record<string, string> = {}
    for (const [key, value] of Object.entries(env)) {
      if (value !== undefined && (INHERITED_VARIABLES.includes(key) || key.startsWith("LC_"))) tmuxEnvironment[key] = value
    }

    return {
      socketName: socketName?.value,
      socketPath: socketPath?.value,
      socketFromFlag: fromFlags,
      tmuxBin: pick(flags.tmuxBin, "--tmux", env.LIBTMUX_TMUX_BIN, "LIBTMUX_TMUX_BIN")?.value ?? "tmux",
      tmuxConfigFile: pick(flags.tmuxConfigFile, "--tmux-config", env.LIBTMUX_TMUX_CONFIG, "LIBTMUX_TMUX_CONFIG")?.value,
      safety: safety as SafetyLevel,
      toolSelection: toolsRaw === undefined ? undefined : { terms: toolTerms!, source: toolsRaw.source },
      transport: transport as Transport,
      allowServerStart,
      suppressHistory,
      waitMaxSeconds,
      commandTimeoutMs: DEFAULT_COMMAND_TIMEOUT_MS,
      tmuxTmpdir: nonEmpty(env.TMUX_TMPDIR) ?? "/tmp",
      uid,
      callerTmux: nonEmpty(env.TMUX),
      callerPane: nonEmpty(env.TMUX_PANE),
      processTree,
      tmuxEnvironment,
      hosts
    } satisfies TmuxMcpConfigShape
  })
