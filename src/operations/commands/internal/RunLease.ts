/**
 * Whether a run's framing is still running in its pane's shell, seen from outside: the framing
 * group holds the run's log open on LEASE_FD (see CommandFraming) for exactly as long as it runs,
 * and the shell closes it when the group ends or is cut short. The pane's foreground program tells
 * a stopped command from a running one only when the command has a child process; a shell running
 * `read x` looks the same as a shell back at its prompt, but only the first holds the lease.
 *
 * Read from /proc (the logs are local files, so the pane's shell runs on this host): the pane's
 * first process and the leader of its terminal's foreground group (a shell started inside it) are
 * looked at. Where there is no /proc, or it cannot be read, the answer is "unknown"; and so it is
 * for a pane on a remote host, whose processes are that host's (a pid here would be another
 * process), and whose framing holds no log open (RemoteRunLogs.REMOTE_LEASE).
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { basename } from "node:path"
import { isRemoteHost } from "../../../context/RemoteHosts.js"
import type { ResolvedSocket } from "../../../context/SocketResolver.js"
import { LEASE_FD } from "./CommandFraming.js"

export type Lease = "held" | "released" | "unknown"

/** The foreground process group of `pid`'s terminal (field 8 of /proc/<pid>/stat; the command name may hold spaces). */
const foregroundGroup = (pid: number): number => {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[5])
}

/** Whether `pid` has run `id`'s log open on the lease descriptor (under its ended name too, or deleted). */
const holds = (pid: number, id: string): boolean => {
  try {
    return basename(fs.readlinkSync(`/proc/${pid}/fd/${LEASE_FD}`)).startsWith(`${id}.log`)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false
    throw error
  }
}

/** Whether the shell of the pane (of `socket`'s server) whose first process is `panePid` still runs run `id`'s framing. */
export const runLease = (socket: ResolvedSocket, panePid: number | null, id: string): Effect.Effect<Lease> =>
  Effect.sync(() => {
    if (panePid === null || isRemoteHost(socket.host)) return "unknown"
    try {
      const leader = foregroundGroup(panePid)
      return holds(panePid, id) || (leader > 0 && leader !== panePid && holds(leader, id)) ? "held" : "released"
    } catch {
      return "unknown"
    }
  })
