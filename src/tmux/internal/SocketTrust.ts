/**
 * Whose socket a call is about to connect to, checked right before each connection (not when the
 * socket was resolved: a file can appear or change in between).
 *
 * A tmux server can ask its client to open files (MSG_READ_OPEN / MSG_WRITE_OPEN). The socket
 * client refuses every such open, the tmux CLI obeys them; so what answers on a socket decides
 * what a spawned CLI reads and writes. tmux's own rule for its socket directory is that it belongs
 * to the user and to no one else; here, per socket:
 * - `own`: a socket of this process's uid, in a directory no other user can change (owned by this
 *   uid or root, and not writable by group or others unless sticky, like /tmp): only this user
 *   (or root) can have made it or put another file in its place. Every transport may use it.
 * - `foreign`: anything else that is a socket. Only a path the user configured may name one (root
 *   watching a user's tmux through LIBTMUX_SOCKET_PATH), and only the socket transport, which opens
 *   no file for anyone, serves it.
 * - `absent`: no socket there (or none this process can see); connecting finds no server, and
 *   only a call that starts a server creates one.
 */
import { lstatSync, realpathSync, type Stats } from "node:fs"
import { dirname } from "node:path"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { Failed } from "../../domain/Errors.js"

export type SocketTrust =
  | { readonly _tag: "own"; readonly path: string }
  | { readonly _tag: "foreign"; readonly path: string; readonly why: string }
  | { readonly _tag: "absent" }

const S_ISVTX = 0o1000

const lstatOrUndefined = (path: string): Stats | undefined => {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

/** The socket at `path` as its owner decides; a symlink is judged (and connected to) by its target. */
export const socketTrust = (path: string, uid: number): SocketTrust => {
  let stats = lstatOrUndefined(path)
  let real = path
  if (stats?.isSymbolicLink() === true) {
    try {
      real = realpathSync.native(path)
    } catch {
      return { _tag: "absent" }
    }
    stats = lstatOrUndefined(real)
  }
  if (stats === undefined || !stats.isSocket()) return { _tag: "absent" }
  if (stats.uid !== uid) return { _tag: "foreign", path: real, why: `it belongs to uid ${stats.uid}, not to this process's uid ${uid}` }
  const directory = lstatOrUndefined(dirname(real))
  if (directory === undefined) return { _tag: "absent" }
  if (directory.uid !== uid && directory.uid !== 0) {
    return { _tag: "foreign", path: real, why: `its directory belongs to uid ${directory.uid}, who can put another socket in its place` }
  }
  if ((directory.mode & 0o022) !== 0 && (directory.mode & S_ISVTX) === 0) {
    return { _tag: "foreign", path: real, why: "its directory is writable by other users, who can put another socket in its place" }
  }
  return { _tag: "own", path: real }
}

/** Sockets the user named in the configuration (or the pane's own $TMUX): these may be another user's. */
export const mayBeForeign = (socket: ResolvedSocket): boolean =>
  socket.rule === "LIBTMUX_SOCKET_PATH" || socket.rule === "--socket-path" || socket.rule === "caller ($TMUX)"

/** The refusal of a socket no transport may use, before anything connects. */
export const foreignRefused = (socket: ResolvedSocket, why: string, description: string): Failed =>
  new Failed({
    command: description,
    reason: "refused",
    exitCode: null,
    stderr: mayBeForeign(socket)
      ? `socket ${socket.label} is not this user's (${why}): another user's tmux is served by tmux's client protocol only (LIBTMUX_MCP_TRANSPORT=socket), never by a tmux process, which would open any file that server asks for`
      : `socket ${socket.label} is not this user's (${why}): only this user's own tmux sockets are used when a call names one; to watch another user's server, the user sets LIBTMUX_SOCKET_PATH to it`
  })
