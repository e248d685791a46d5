/**
 * The hosts file (LIBTMUX_MCP_HOSTS / --hosts): the other machines whose tmux this server may drive,
 * each reached over OpenSSH. Only the user's configuration names hosts: a tool takes a name from
 * this closed list (an enum in tools/list), never a destination, so no agent and no text it read
 * can make this server connect anywhere else. Read once at start-up; anything invalid stops
 * start-up with a message naming the file, the host and the field, before any ssh runs.
 *
 * ```json
 * { "ssh_config": "~/.ssh/config-tmux",
 *   "hosts": { "build": { "ssh": "build-box", "sockets": ["default", "ci"], "safety": "readonly" } } }
 * ```
 *
 * `ssh_config` starting with `~/` is this user's HOME's; ssh itself reads `-F` as it is (no `~`, `%`
 * or `${…}` expansion there: OpenSSH 9.2, and its source to this day), so the path is final here. A
 * leading byte order mark (editors on Windows write one) is not part of the JSON, and messages
 * quote what the file holds with its controls and any mark escaped: they reach a terminal.
 */
import * as Result from "effect/Result"
import { dirname, isAbsolute, resolve } from "node:path"
import { escapeControls } from "../domain/ControlText.js"
import { SAFETY_LEVELS, type SafetyLevel } from "./TmuxMcpConfig.js"

/** The name that always means this machine; no host in the file may take it. */
export const LOCAL_HOST = "local"

/** One remote host, validated. */
export interface HostSettings {
  readonly name: string
  /** An ssh_config alias or `user@host`, always passed after `--`. */
  readonly destination: string
  /** The remote socket names this host may be used with; undefined: any in its socket directory. */
  readonly sockets: ReadonlyArray<string> | undefined
  /** Whether a tmux server may be started on this host (remote exec of `tmux start-server`). */
  readonly allowServerStart: boolean
  /** The most this host allows, below the server's own level (undefined: the server's level). */
  readonly safety: SafetyLevel | undefined
  readonly connectTimeoutS: number
}

/** The validated hosts file. */
export interface HostsConfig {
  /** Where it was read from, for messages. */
  readonly file: string
  /** Passed to every ssh as `-F` when set (else ssh reads the user's own config). */
  readonly sshConfig: string | undefined
  /** The hosts, in the file's order. */
  readonly hosts: ReadonlyArray<HostSettings>
  /** What ssh gets of this process's environment besides tmux's basics: the agent's socket. */
  readonly environment: Readonly<Record<string, string>>
}

/** Host names and socket names share this shape: short, no path, no option, no shell text. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/
const ALIAS = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/
const USER = /^[a-z_][a-z0-9_.-]{0,31}$/
const DNS_LABEL = "[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
const DNS_NAME = new RegExp(`^${DNS_LABEL}(?:\\.${DNS_LABEL})*$`)
const IPV6 = /^[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*$/

export const DEFAULT_CONNECT_TIMEOUT_S = 5
const CONNECT_TIMEOUT_BOUNDS = [1, 60] as const
/** A hosts file is a few lines; past this it is not one. */
const MAX_FILE_BYTES = 1024 * 1024
const HOST_FIELDS = ["ssh", "sockets", "allow_server_start", "safety", "connect_timeout_s"]

/**
 * Why `destination` is not one ssh may be given, or undefined when it is: an ssh_config alias, or
 * `user@host` with a plain user and a DNS name, IPv4 or IPv6 address. A leading `-` would be read
 * as an option (`-oProxyCommand=…` runs a command), `%` is expanded in ProxyCommand, and older ssh
 * clients (< 9.6) hand user and host to a shell there unchecked.
 */
export const destinationProblem = (destination: string): string | undefined => {
  if (destination === "") return "is empty"
  if (destination.startsWith("-")) return "starts with '-', which ssh would read as an option"
  if (/[\s%'"`$\\;&|<>(){}*?!#~]/.test(destination) || /[^\x21-\x7e]/.test(destination)) {
    return "holds whitespace, '%' or shell characters"
  }
  const at = destination.lastIndexOf("@")
  if (at === -1) {
    return ALIAS.test(destination) ? undefined : "is not an ssh_config alias (letters, digits, '.', '_', '-'; 63 at most) nor user@host"
  }
  const user = destination.slice(0, at)
  const host = destination.slice(at + 1)
  if (!USER.test(user)) return "has a user part that is not a plain login name (a-z, 0-9, '_', '.', '-')"
  if (DNS_NAME.test(host) && host.length <= 253) return undefined
  if (IPV6.test(host) && host.length <= 45) return undefined
  return "has a host part that is not a DNS name, IPv4 or IPv6 address"
}

/** Why `name` cannot name a remote socket, or undefined. */
export const socketNameProblem = (name: string): string | undefined =>
  NAME.test(name) ? undefined : "must be a socket name: letters, digits, '.', '_', '-', 63 at most, no '/'"

/** Text of the file as a message quotes it: controls and byte order marks escaped. */
const printable = (text: string): string => escapeControls(text).replaceAll("\uFEFF", "\\ufeff")

/** A string of the file, quoted for a message. */
const quoted = (value: string): string => printable(JSON.stringify(value))

/** The ssh_config path: `~` and `~/…` are HOME's, a relative path is the hosts file directory's. */
const sshConfigPath = (value: string, file: string, home: string | undefined): Result.Result<string, string> => {
  if (value !== "~" && !value.startsWith("~/")) {
    if (value.startsWith("~")) return Result.fail(`may start with ~/ (this user's HOME) only, not with another user's ~name.`)
    return Result.succeed(isAbsolute(value) ? value : resolve(dirname(file), value))
  }
  if (home === undefined || !isAbsolute(home)) return Result.fail("starts with ~, but HOME is not set.")
  return Result.succeed(value === "~" ? home : resolve(home, value.slice(2)))
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The file's text, parsed and validated; `source` names the setting for messages, `home` is what a
 * leading `~` of ssh_config means (the user's HOME).
 */
export const parseHostsFile = (text: string, file: string, source: string, home?: string): Result.Result<HostsConfig, string> =>
  Result.gen(function*() {
    const where = `${source} (${file})`
    let parsed: unknown
    try {
      parsed = JSON.parse(text.startsWith("\uFEFF") ? text.slice(1) : text)
    } catch (error) {
      // V8's message quotes the text around the error.
      return yield* Result.fail(`${where} is not JSON: ${printable(error instanceof Error ? error.message : String(error))}`)
    }
    if (!isRecord(parsed)) return yield* Result.fail(`${where} must hold a JSON object with a "hosts" object.`)
    const unknownTop = Object.keys(parsed).filter((key) => key !== "hosts" && key !== "ssh_config")
    if (unknownTop.length > 0) {
      return yield* Result.fail(
        `${where} has unknown fields ${unknownTop.map(quoted).join(", ")}; it takes "hosts" and "ssh_config".`
      )
    }
    let sshConfig: string | undefined
    if (parsed.ssh_config !== undefined) {
      if (typeof parsed.ssh_config !== "string" || parsed.ssh_config === "" || parsed.ssh_config.includes("\0")) {
        return yield* Result.fail(`${where}: "ssh_config" must be a path to an ssh_config file.`)
      }
      const path = sshConfigPath(parsed.ssh_config, file, home)
      if (Result.isFailure(path)) return yield* Result.fail(`${where}: "ssh_config" ${path.failure}`)
      sshConfig = path.success
    }
    if (!isRecord(parsed.hosts)) {
      return yield* Result.fail(`${where} must have a "hosts" object: {"<name>": {"ssh": "<alias or user@host>"}}.`)
    }
    const hosts: Array<HostSettings> = []
    for (const [name, entry] of Object.entries(parsed.hosts)) {
      const at = `${where}, host ${quoted(name)}`
      // Any case: "Local" beside "local" in one enum would read as this machine.
      if (name.toLowerCase() === LOCAL_HOST) {
        return yield* Result.fail(`${at}: "local" is reserved for this machine (in any case); give the host another name.`)
      }
      if (!NAME.test(name)) {
        return yield* Result.fail(
          `${where}: host name ${quoted(name)} must be letters, digits, '.', '_', '-' (63 at most, starting with a letter or digit).`
        )
      }
      if (!isRecord(entry)) return yield* Result.fail(`${at} must be an object with "ssh".`)
      const unknown = Object.keys(entry).filter((key) => !HOST_FIELDS.includes(key))
      if (unknown.length > 0) {
        return yield* Result.fail(
          `${at} has unknown fields ${unknown.map(quoted).join(", ")}; it takes ${HOST_FIELDS.join(", ")}.`
        )
      }
      if (typeof entry.ssh !== "string") return yield* Result.fail(`${at}: "ssh" must be an ssh_config alias or user@host.`)
      const problem = destinationProblem(entry.ssh)
      if (problem !== undefined) return yield* Result.fail(`${at}: "ssh" ${problem}.`)
      let sockets: Array<string> | undefined
      if (entry.sockets !== undefined) {
        if (!Array.isArray(entry.sockets) || entry.sockets.length === 0 || !entry.sockets.every((s) => typeof s === "string")) {
          return yield* Result.fail(`${at}: "sockets" must be a non-empty list of remote socket names.`)
        }
        for (const socket of entry.sockets as Array<string>) {
          const bad = socketNameProblem(socket)
          if (bad !== undefined) return yield* Result.fail(`${at}: socket ${quoted(socket)} ${bad}.`)
        }
        sockets = [...new Set(entry.sockets as Array<string>)]
      }
      if (entry.allow_server_start !== undefined && typeof entry.allow_server_start !== "boolean") {
        return yield* Result.fail(`${at}: "allow_server_start" must be true or false.`)
      }
      if (entry.safety !== undefined && !(SAFETY_LEVELS as ReadonlyArray<unknown>).includes(entry.safety)) {
        return yield* Result.fail(`${at}: "safety" must be one of ${SAFETY_LEVELS.join(", ")}.`)
      }
      // Absent is the default; null is a value, refused like any other that is not a number.
      const timeout = entry.connect_timeout_s === undefined ? DEFAULT_CONNECT_TIMEOUT_S : entry.connect_timeout_s
      if (
        typeof timeout !== "number" || !Number.isInteger(timeout) || timeout < CONNECT_TIMEOUT_BOUNDS[0] ||
        timeout > CONNECT_TIMEOUT_BOUNDS[1]
      ) {
        return yield* Result.fail(`${at}: "connect_timeout_s" must be a whole number of seconds, ${CONNECT_TIMEOUT_BOUNDS.join("..")}.`)
      }
      hosts.push({
        name,
        destination: entry.ssh,
        sockets,
        allowServerStart: entry.allow_server_start === true,
        safety: entry.safety as SafetyLevel | undefined,
        connectTimeoutS: timeout
      })
    }
    if (hosts.length === 0) return yield* Result.fail(`${where} names no hosts; remove the setting or add a host.`)
    return { file, sshConfig, hosts, environment: {} }
  })

/** Reads and validates the file a setting names; `read` is the file system's (a test's stand-in). */
export const loadHostsFile = (
  file: string,
  source: string,
  read: (path: string) => Buffer,
  home?: string
): Result.Result<HostsConfig, string> => {
  let bytes: Buffer
  try {
    bytes = read(file)
  } catch (error) {
    return Result.fail(`${source} names ${file}, which cannot be read: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (bytes.length > MAX_FILE_BYTES) return Result.fail(`${source} names ${file}, which is over 1 MiB: not a hosts file.`)
  return parseHostsFile(bytes.toString("utf8"), file, source, home)
}
