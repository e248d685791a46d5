/**
 * What starting a server does to the file system: tmux unlinks the socket path before it binds its
 * socket there (server_create_socket), and opens, then unlinks, `<path>.lock` (client_connect,
 * server_start), whatever those paths hold. So before a server is started, a path that holds
 * anything but a socket is refused, and so is a lock file tmux cannot have made (tmux's own are
 * empty). The check runs right before the starting invocation; what appears at the path in the
 * few milliseconds between the two (the tmux client's start and connect) is still replaced.
 */
import * as Effect from "effect/Effect"
import type { Stats } from "node:fs"
import { lstat } from "node:fs/promises"
import { isRemoteHost } from "../../context/RemoteHosts.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { InvalidInput } from "../../domain/Errors.js"

const kindOf = (info: Stats): string =>
  info.isFile()
    ? "a regular file"
    : info.isDirectory()
    ? "a directory"
    : info.isSymbolicLink()
    ? "a symbolic link"
    : info.isFIFO()
    ? "a fifo"
    : "a device file"

/** What is at `path` (not following a symlink), or None when nothing is or it cannot be seen. */
const inspect = (path: string): Effect.Effect<Stats | undefined> =>
  Effect.tryPromise(() => lstat(path)).pipe(Effect.orElseSucceed(() => undefined))

/**
 * Fails unless starting a server on `socket` can only replace a socket and tmux's own lock file.
 * A remote host's socket is in that user's tmux socket directory there (the resolver takes no
 * other path), which this machine cannot look into: what is at the same path here is no answer.
 */
export const refuseOccupiedSocketPath = (socket: ResolvedSocket): Effect.Effect<void, InvalidInput> =>
  isRemoteHost(socket.host) ? Effect.void : refuseOccupiedLocalPath(socket)

const refuseOccupiedLocalPath = (socket: ResolvedSocket): Effect.Effect<void, InvalidInput> =>
  Effect.gen(function*() {
    const occupant = yield* inspect(socket.path)
    if (occupant !== undefined && !occupant.isSocket()) {
      return yield* Effect.fail(
        new InvalidInput({
          reason: `the socket path ${socket.label} names ${
            kindOf(occupant)
          }, not a socket: starting a tmux server there would delete it. Pick another socket_path or socket_name; nothing was started.`
        })
      )
    }
    const lock = yield* inspect(`${socket.path}.lock`)
    if (lock !== undefined && !(lock.isFile() && lock.size === 0)) {
      return yield* Effect.fail(
        new InvalidInput({
          reason: `${socket.path}.lock is ${
            lock.isFile() ? "a regular file that is not empty" : kindOf(lock)
          }, not a lock file tmux left: starting a tmux server on ${socket.label} would delete it. Pick another socket_path or socket_name; nothing was started.`
        })
      )
    }
  })
