/**
 * Every ssh this server runs, as argv: fixed options first, then `--`, then the destination, which
 * comes from the hosts file only (validated there: HostsConfig.destinationProblem). The options
 * are forced, whatever the user's ssh_config says, because each closes a way for a remote host,
 * a prompt or the user's other settings to take a call over:
 * - BatchMode: no password or host-key prompt can hang a call (or reach the MCP client);
 * - StrictHostKeyChecking=yes: an unknown or changed host key is refused, never accepted silently;
 * - ServerAliveInterval/CountMax: a dead link ends the master within seconds;
 * - ExitOnForwardFailure, StreamLocalBindUnlink, StreamLocalBindMask=0177: a forward binds its
 *   socket afresh, readable by this user only, or fails;
 * - ClearAllForwardings on the master: the user's LocalForward/RemoteForward lines do not ride along;
 * - ForwardAgent/ForwardX11 off, PermitLocalCommand off, RequestTTY off: nothing else travels;
 * - ControlMaster/ControlPath: this server's own master, in its private directory, never the user's.
 */
import type { HostsConfig, HostSettings } from "../../context/HostsConfig.js"

/** The options every ssh of this server gets. */
export const forcedOptions = (host: HostSettings): ReadonlyArray<string> =>
  [
    "BatchMode=yes",
    "StrictHostKeyChecking=yes",
    `ConnectTimeout=${host.connectTimeoutS}`,
    "ServerAliveInterval=5",
    "ServerAliveCountMax=2",
    "ExitOnForwardFailure=yes",
    "StreamLocalBindUnlink=yes",
    "StreamLocalBindMask=0177",
    "ForwardAgent=no",
    "ForwardX11=no",
    "PermitLocalCommand=no",
    "RequestTTY=no",
    "ControlPersist=no"
  ].flatMap((option) => ["-o", option])

const prefix = (config: HostsConfig, host: HostSettings, controlPath: string): Array<string> => [
  ...(config.sshConfig === undefined ? [] : ["-F", config.sshConfig]),
  ...forcedOptions(host),
  "-o",
  `ControlPath=${controlPath}`
]

/**
 * The master: one connection per host, no command, no forwards of the user's; `-N` keeps it idle.
 * ControlMaster=yes and no `-M`: ssh reads `-M` on top of it as "ask", and with BatchMode every
 * forward request would then be refused ("Permission denied").
 */
export const masterArgv = (config: HostsConfig, host: HostSettings, controlPath: string): ReadonlyArray<string> => [
  ...prefix(config, host, controlPath),
  "-o",
  "ControlMaster=yes",
  "-o",
  "ClearAllForwardings=yes",
  "-N",
  "--",
  host.destination
]

const muxForwardArgv = (operation: "forward" | "cancel") =>
(
  config: HostsConfig,
  host: HostSettings,
  controlPath: string,
  localPath: string,
  remotePath: string
): ReadonlyArray<string> => [
  ...prefix(config, host, controlPath),
  "-o",
  "ControlMaster=no",
  "-O",
  operation,
  "-L",
  `${localPath}:${remotePath}`,
  "--",
  host.destination
]

/** Asks the master to forward `localPath` to the Unix socket `remotePath` on the host. */
export const forwardArgv = muxForwardArgv("forward")

/**
 * Asks the master to stop that forward: its listener closes (a descriptor of the master's fewer);
 * connections made through it stay. The socket file stays too: ssh never removes it.
 */
export const cancelForwardArgv = muxForwardArgv("cancel")

/**
 * Ends the master behind the control socket `controlPath`: the start-up sweep's, for a master whose
 * server died without ending it (SIGKILL). `-F /dev/null` reads no ssh_config, so nothing of the
 * user's (a `Match exec`) runs for it; the destination only completes ssh's command line, as a
 * master answers `-O exit` whatever it is.
 */
export const exitMasterArgv = (controlPath: string): ReadonlyArray<string> => [
  "-F",
  "/dev/null",
  "-o",
  "BatchMode=yes",
  "-o",
  `ControlPath=${controlPath}`,
  "-O",
  "exit",
  "--",
  "effect-tmux-mcp-sweep"
]

/**
 * Runs `script` on the host through the master: `exec /bin/sh -c '<script>' sh <args>` (see
 * remoteCommand). `exec` leaves the login shell at once: only /bin/sh reads the script, and the
 * arguments reach it as `$1`… untouched.
 */
export const remoteExecArgv = (
  config: HostsConfig,
  host: HostSettings,
  controlPath: string,
  script: string,
  args: ReadonlyArray<string>
): ReadonlyArray<string> => [
  ...prefix(config, host, controlPath),
  "-o",
  "ControlMaster=no",
  "-T",
  "--",
  host.destination,
  remoteCommand(script, args)
]

/** A word quoted for a POSIX shell: inside single quotes nothing is special but the quote itself. */
export const posixQuote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`

/**
 * Text every login shell reads alike inside single quotes (sshd runs `<shell> -c <string>`, whatever
 * the login user's shell is; tried with dash, bash, tcsh 6.24 and fish 3.6): printable ASCII but
 * `\` (fish reads `\\` and `\'` there as escapes) and `!` (csh expands history there, even for -c:
 * "Event not found"); csh also refuses a newline ("Unmatched '"). A quote is closed, escaped and
 * reopened (`'\''`), which every one of them reads as a quote.
 */
const LOGIN_SHELL_SAFE = /^[\x20-\x5b\x5d-\x7e]*$/
const OUTSIDE_LOGIN_SHELL_SAFE = /[^\x20-\x5b\x5d-\x7e]|!/g

/** A fixed script may hold `\` only before a letter (`\n` for printf): never a quote or another `\`. */
const scriptIsLoginShellSafe = (script: string): boolean =>
  !script.includes("!") && LOGIN_SHELL_SAFE.test(script.replace(/\\[A-Za-z]/g, ""))

const needsEscapes = (arg: string): boolean => !LOGIN_SHELL_SAFE.test(arg) || arg.includes("!")

/** `arg` as `printf %b` reads it back: each byte of a character outside the safe set as `\0ooo`. */
const asEscapes = (arg: string): string =>
  arg.replace(
    OUTSIDE_LOGIN_SHELL_SAFE,
    (character) => [...Buffer.from(character, "utf8")].map((byte) => `\\0${byte.toString(8).padStart(3, "0")}`).join("")
  )

/**
 * Put before a script whose arguments were escaped: `$1` says which of the rest were (1 or 0 each);
 * they are decoded in place (`x` keeps trailing newlines through the command substitution).
 */
const DECODE_ARGUMENTS =
  `m=$1; shift; for a do case $m in 1*) a=$(printf '%bx' "$a"); a=\${a%x};; esac; m=\${m#?}; shift; set -- "$@" "$a"; done`

/**
 * The one string the remote login shell gets: the script and each argument in single quotes, in
 * text every login shell reads alike. An argument holding anything else (a newline, `\`, `!`,
 * non-ASCII) travels as printf escapes, which DECODE_ARGUMENTS turns back before the script runs.
 */
export const remoteCommand = (script: string, args: ReadonlyArray<string>): string => {
  if (!scriptIsLoginShellSafe(script)) throw new Error("a remote script holds text a login shell may read otherwise")
  if (!args.some(needsEscapes)) return ["exec", "/bin/sh", "-c", posixQuote(script), "sh", ...args.map(posixQuote)].join(" ")
  const escaped = args.map(needsEscapes)
  return [
    "exec",
    "/bin/sh",
    "-c",
    posixQuote(`${DECODE_ARGUMENTS}; ${script}`),
    "sh",
    posixQuote(escaped.map((yes) => (yes ? "1" : "0")).join("")),
    ...args.map((arg, index) => posixQuote(escaped[index] ? asEscapes(arg) : arg))
  ].join(" ")
}

/** `ssh -V`, for doctor. */
export const versionArgv: ReadonlyArray<string> = ["-V"]

/** Parses `OpenSSH_9.2p1 …` into [major, minor], or undefined for another ssh. */
export const openSshVersion = (text: string): readonly [number, number] | undefined => {
  const match = /OpenSSH_(\d+)\.(\d+)/.exec(text)
  return match === null ? undefined : [Number(match[1]), Number(match[2])]
}
