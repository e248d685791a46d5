/**
 * A pane made a moment ago may not run its program yet. Until the child of tmux's fork has made
 * its session, tmux cannot read the pane's directory (it reports it empty) and names the command it
 * was given; from then until the exec, the pane's process is the server's own copy and tmux names
 * it as the server (`tmux`, or a loader's name when tmux runs through one). get_pane_info right
 * after a create waits out the first; run_command waits out both instead of calling the pane busy.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { closeSync, openSync, readSync } from "node:fs"
import { basename } from "node:path"
import { isRemoteHost } from "../../context/RemoteHosts.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"

/** How long a new pane may take to start: then run_command calls it busy, get_pane_info answers what it reads. */
const PANE_START_WAIT_MS = 2000
const PANE_START_POLL_MS = 20

/**
 * Reads a pane again, every PANE_START_POLL_MS for at most PANE_START_WAIT_MS, while the last
 * read says it is still starting; answers the last read.
 */
export const rereadWhileStarting = <A, E, R>(
  first: A,
  isStarting: (read: A) => boolean,
  reread: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const deadline = (yield* Clock.currentTimeMillis) + PANE_START_WAIT_MS
    let read = first
    while (isStarting(read) && (yield* Clock.currentTimeMillis) < deadline) {
      yield* Effect.sleep(PANE_START_POLL_MS)
      read = yield* reread
    }
    return read
  })

/**
 * A live pane whose directory reads empty has no session yet: tmux reads the directory of the
 * pane terminal's foreground process group, else of its session's leader, and a new pane's child
 * has neither until its setsid.
 */
export const hasNoSessionYet = (pane: { readonly cwd: string; readonly dead: boolean }): boolean => !pane.dead && pane.cwd === ""

/** Enough of /proc/PID/cmdline for the program's path; the rest is never read. */
const CMDLINE_READ_BYTES = 4096

/**
 * The name tmux gives its own server process (as `pane_current_command` would show it): the
 * basename of the server's argv[0], read from /proc on this machine. The pid is only a number, so
 * no file but that process's cmdline opens; a host's server, or one /proc cannot show, is `tmux`.
 */
export const serverProgramName = (socket: ResolvedSocket, serverPid: number): Effect.Effect<string> =>
  Effect.sync(() => {
    if (isRemoteHost(socket.host) || !Number.isSafeInteger(serverPid) || serverPid <= 0) return "tmux"
    let fd: number | undefined
    try {
      fd = openSync(`/proc/${serverPid}/cmdline`, "r")
      const bytes = Buffer.alloc(CMDLINE_READ_BYTES)
      const read = readSync(fd, bytes, 0, bytes.length, 0)
      const argv0 = bytes.subarray(0, read).toString("latin1").split("\0")[0] ?? ""
      return argv0 === "" ? "tmux" : basename(argv0)
    } catch {
      return "tmux"
    } finally {
      if (fd !== undefined) closeSync(fd)
    }
  })
