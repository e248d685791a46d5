/**
 * The only programs this server runs on a remote host, fixed text run by /bin/sh there with their
 * arguments as `$1`… (SshArgv.remoteCommand): no caller text is ever part of a script. Each is one
 * line (commands joined by `; `): the login shell that hands it to /bin/sh may be csh, which
 * refuses a newline inside quotes.
 *
 * `DISCOVERY` runs once per connection: who the login user is, their HOME, where their tmux keeps
 * sockets (TMUX_TMPDIR resolved as tmux does, through realpath) and which sockets are there, and it
 * makes the private directory run_command's logs live in on that host (0700, owned by that user,
 * not a symlink; else none). `SOCKETS` lists the sockets again, for list_servers. `TMUX_START`
 * runs one tmux command list that may start a server: `tmux -u -S <path> <list>`.
 */
import { socketNameProblem } from "../../context/HostsConfig.js"

/** The first line of discovery's answer: anything else did not run our script. */
const DISCOVERY_MARK = "effect-tmux-mcp discovery 1"

// `if`, not `[ … ] &&`: the script's status is its last command's, and a last entry that is not a
// socket (or an empty directory's unexpanded glob) must not fail the listing.
const LIST_SOCKETS = `if [ -d "$d" ]; then for f in "$d"/*; do if [ -S "$f" ]; then printf 's %s\\n' "\${f##*/}"; fi; done; fi`

const SOCKET_DIRECTORY = [
  `u=$(id -u) || exit 3`,
  `t=\${TMUX_TMPDIR:-/tmp}`,
  `t=$(cd "$t" 2>/dev/null && pwd -P) || t=/tmp`,
  `d="$t/tmux-$u"`
].join("; ")

export const DISCOVERY = [
  SOCKET_DIRECTORY,
  `r="$t/effect-tmux-mcp-$u"`,
  `(umask 077 && mkdir -p "$r") 2>/dev/null`,
  // No `!`: csh reads it (history) even inside the quotes the script travels in.
  `if [ -L "$r" ]; then r=; elif [ -d "$r" ] && [ -O "$r" ] && chmod 700 "$r" 2>/dev/null; then :; else r=; fi`,
  `printf '%s\\n%s\\n%s\\n%s\\n%s\\n' '${DISCOVERY_MARK}' "$u" "$HOME" "$d" "$r"`,
  LIST_SOCKETS
].join("; ")

export const SOCKETS = [SOCKET_DIRECTORY, `printf '%s\\n' '${DISCOVERY_MARK}'`, LIST_SOCKETS].join("; ")

/**
 * `-S` makes no directory (only `-L` does): the socket directory is made as tmux makes it (0700),
 * and the client runs in HOME, as a socket client's identity says (a login's directory is the
 * passwd entry's, which may be another), so a new session starts there either way.
 */
export const TMUX_START = [
  `s=$1; shift`,
  `d=\${s%/*}`,
  `[ -d "$d" ] || (umask 077 && mkdir -p "$d") || exit 3`,
  `cd "$HOME" 2>/dev/null || cd /`,
  `exec tmux -u -S "$s" "$@"`
].join("; ")

export interface Discovered {
  readonly uid: number
  readonly home: string
  readonly socketDirectory: string
  readonly runDirectory: string | null
  readonly sockets: ReadonlyArray<string>
}

/**
 * A path ssh can forward and tmux can be told, from what a host printed: absolute, printable, no
 * `:` (it separates a forward's two paths) and no whitespace.
 */
const usablePath = (path: string): boolean => path.startsWith("/") && /^[\x21-\x7e]+$/.test(path) && !path.includes(":")

const socketNames = (lines: ReadonlyArray<string>): Array<string> =>
  lines.filter((line) => line.startsWith("s ")).map((line) => line.slice(2)).filter((name) => socketNameProblem(name) === undefined)

/** Discovery's answer, or why it is not one. */
export const parseDiscovery = (stdout: string): Discovered | string => {
  const lines = stdout.split("\n")
  if (lines[0] !== DISCOVERY_MARK) {
    return "the host's shell did not run the discovery script (its login shell printed something else first?)"
  }
  // Digits only: Number("") is 0, which would read a missing id as root's.
  const uid = /^\d{1,10}$/.test(lines[1] ?? "") ? Number(lines[1]) : Number.NaN
  const home = lines[2] ?? ""
  const socketDirectory = lines[3] ?? ""
  const run = lines[4] ?? ""
  if (!Number.isInteger(uid) || uid < 0) return "the host did not say the login user's id"
  if (!usablePath(socketDirectory)) {
    return `the host's tmux socket directory is not a path this server can use: ${JSON.stringify(socketDirectory.slice(0, 120))}`
  }
  return {
    uid,
    home: home.startsWith("/") ? home : "/",
    socketDirectory,
    runDirectory: run !== "" && usablePath(run) ? run : null,
    sockets: socketNames(lines.slice(5))
  }
}

/** The socket names of a `SOCKETS` answer, or why it is not one. */
export const parseSockets = (stdout: string): ReadonlyArray<string> | string => {
  const lines = stdout.split("\n")
  return lines[0] === DISCOVERY_MARK ? socketNames(lines.slice(1)) : "the host's shell did not run the listing script"
}
