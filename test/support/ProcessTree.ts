/**
 * Processes as Linux's /proc shows them, read synchronously: whether a pid still runs (a zombie
 * does not: it waits only to be reaped, by us or by an init that may never do it), a pid's
 * descendants, and a blocking sleep for helpers that must stay synchronous (a world is made inside a
 * test without awaiting, and process `exit` handlers cannot await).
 */
import { readdirSync, readFileSync } from "node:fs"

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
