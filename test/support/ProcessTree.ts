/**
 * Processes as Linux's /proc shows them, read synchronously: whether a pid still runs (a zombie
 * does not: it waits only to be reaped, by us or by an init that may never do it), a pid's
 * descendants, and a blocking sleep for helpers that must stay synchronous (a world is made inside a
 * test without awaiting, and process `exit` handlers cannot await).
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs"

/** The state letter and parent pid of `/proc/<pid>/stat`, or undefined when the pid is gone. */
const statOf = (pid: number): { readonly state: string; readonly ppid: number } | undefined => {
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8")
  } catch {
    return undefined
  }
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
  const [state = "", ppid = ""] = text.slice(text.lastIndexOf(")") + 2).split(" ")
  return { state, ppid: Number(ppid) }
}

/** Whether `pid` exists and is not a zombie (or dead, state X). */
export const isRunning = (pid: number): boolean => {
  const stat = statOf(pid)
  return stat !== undefined && stat.state !== "Z" && stat.state !== "X"
}

/** Every running descendant of `pid` (children first-level first), taken from one pass over /proc. */
export const descendantsOf = (pid: number): Array<number> => {
  const children = new Map<number, Array<number>>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const child = Number(entry)
    const stat = statOf(child)
    if (stat === undefined || !isRunning(child)) continue
    children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), child])
  }
  const found: Array<number> = []
  const queue = [pid]
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      found.push(child)
      queue.push(child)
    }
  }
  return found
}

const sleeper = new Int32Array(new SharedArrayBuffer(4))

/** Blocks this thread for `ms` milliseconds. */
export const sleepSync = (ms: number): void => {
  Atomics.wait(sleeper, 0, 0, ms)
}

/** Polls `done` every 10 ms until it holds or `timeoutMs` passes; answers whether it held. */
export const pollSync = (done: () => boolean, timeoutMs: number): boolean => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (done()) return true
    if (Date.now() > deadline) return false
    sleepSync(10)
  }
}

/**
 * Ends processes: SIGTERM to each, then SIGKILL to any still running after `graceMs`; answers the
 * pids still running after that (none, unless a process is stuck in the kernel).
 */
export const terminate = (pids: ReadonlyArray<number>, graceMs = 3_000): Array<number> => {
  const signal = (signal: NodeJS.Signals) => (pid: number) => {
    try {
      process.kill(pid, signal)
    } catch {
      // Gone already.
    }
  }
  pids.forEach(signal("SIGTERM"))
  if (pollSync(() => pids.every((pid) => !isRunning(pid)), graceMs)) return []
  pids.filter(isRunning).forEach(signal("SIGKILL"))
  pollSync(() => pids.every((pid) => !isRunning(pid)), 2_000)
  return pids.filter(isRunning)
}

/**
 * Waits up to `graceMs` for `pids` to end by themselves (a process told to exit may still be
 * writing, e.g. a shell's or a REPL's history), then ends any left with `terminate`; answers the
 * pids still running after that.
 */
export const awaitEnded = (pids: ReadonlyArray<number>, graceMs = 5_000): Array<number> =>
  pollSync(() => pids.every((pid) => !isRunning(pid)), graceMs) ? [] : terminate(pids.filter(isRunning))

/** The inodes of the Unix sockets bound at `place` or inside it (listeners and the connections they accepted). */
const socketInodesAt = (place: string): Set<string> => {
  const inodes = new Set<string>()
  const prefix = place.endsWith("/") ? place : `${place}/`
  // Num RefCount Protocol Flags Type St Inode Path: the path is the rest of the line, spaces and all.
  for (const line of readFileSync("/proc/net/unix", "utf8").split("\n").slice(1)) {
    const match = /^\S+: \S+ \S+ \S+ \S+ \S+ (\d+) (.*)$/.exec(line)
    if (match !== null && (match[2] === place || match[2]!.startsWith(prefix))) inodes.add(match[1]!)
  }
  return inodes
}

/** The inodes of the sockets a process has open (none once it is gone). */
const socketInodesOf = (pid: string): Set<string> => {
  const inodes = new Set<string>()
  let fds: Array<string>
  try {
    fds = readdirSync(`/proc/${pid}/fd`)
  } catch {
    return inodes
  }
  for (const fd of fds) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]
      if (inode !== undefined) inodes.add(inode)
    } catch {
      // Closed meanwhile.
    }
  }
  return inodes
}

/**
 * The processes holding a Unix socket bound at `place` (a socket's path, or a directory it is
 * inside): for tmux sockets, their servers, whatever version they are (a client of another version
 * cannot even ask one to exit), also those whose socket file is gone.
 */
export const socketHoldersAt = (place: string): Array<number> => {
  const inodes = socketInodesAt(place)
  if (inodes.size === 0) return []
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry) && [...socketInodesOf(entry)].some((inode) => inodes.has(inode)))
    .map(Number)
}

/**
 * The Unix socket paths a process listens on (an ssh master's control socket and forwards): its
 * sockets in the listening state (flag __SO_ACCEPTCON), as a connection accepted there shows the
 * listener's path too.
 */
export const listenersOf = (pid: number): Array<string> => {
  const inodes = socketInodesOf(String(pid))
  return readFileSync("/proc/net/unix", "utf8").split("\n").slice(1).flatMap((line) => {
    const match = /^\S+: \S+ \S+ (\S+) \S+ \S+ (\d+) (.*)$/.exec(line)
    return match !== null && match[1] === "00010000" && inodes.has(match[2]!) ? [match[3]!] : []
  })
}
