/**
 * What OpenSSH alters in a path it is given, so that no path reaches ssh in a form it would read
 * as another path. A remote socket path comes from the host (its TMUX_TMPDIR): a `%u` there would
 * make ssh forward to a path holding this machine's user name, where a decoy tmux may answer.
 *
 * From OpenSSH's source (9.2 to 10.x, the same rules):
 * - `-L <local>:<remote>`: readconf.c parse_forward expands `${VAR}` from ssh's environment
 *   (dollar_expand; an unset variable refuses the forward), then parse_fwd_field splits the fields
 *   at `:` and drops each `\` (it escapes the next character); a field that is a path needs a
 *   `/` and must be shorter than a socket address. ssh.c then expands `%` tokens in both paths
 *   (`%u` this user, `%d` this home, `%%` a `%`; an unknown one is fatal).
 * - `-o ControlPath=<path>`: readconf.c reads the value with argv_split (quotes and `\` escapes
 *   read, whitespace ends it, `#` after whitespace starts a comment), then ssh.c expands `~`,
 *   `%` tokens and `${VAR}` in it.
 *
 * Escaping (`%%`, `\:`) differs between versions (forward paths were not expanded before 8.x), so
 * such a path is refused, never rewritten.
 */
import { MAX_SOCKET_PATH_BYTES } from "../../context/SocketResolver.js"

const common = (path: string): string | undefined => {
  if (!path.startsWith("/")) return "it is not absolute"
  if (path.includes("%")) return "it holds '%', which ssh expands as a token (%u is this machine's user, %d its home)"
  if (path.includes("${")) return "it holds '${', which ssh expands from its own environment"
  if (path.includes("\\")) return "it holds '\\', which ssh reads as an escape and drops"
  return undefined
}

/** Why ssh would not forward exactly `path` as one side of `-L <local>:<remote>`, or undefined. */
export const forwardPathProblem = (path: string): string | undefined => {
  const problem = common(path)
  if (problem !== undefined) return problem
  if (path.includes(":")) return "it holds ':', where ssh splits a forward"
  if (Buffer.byteLength(path, "utf8") > MAX_SOCKET_PATH_BYTES) return `it is longer than a socket address (${MAX_SOCKET_PATH_BYTES} bytes)`
  return undefined
}

/** Why ssh would not use exactly `path` as `-o ControlPath=<path>`, or undefined. */
export const controlPathProblem = (path: string): string | undefined => {
  const problem = common(path)
  if (problem !== undefined) return problem
  if (/["']/.test(path)) return "it holds a quote, which ssh reads in an option's value"
  if (/\s/.test(path)) return "it holds whitespace, which ends an option's value for ssh"
  return undefined
}
