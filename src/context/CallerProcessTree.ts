/**
 * The caller found through this process's ancestors, for when `TMUX` did not reach us: many MCP
 * clients start a stdio server with only HOME, LOGNAME, PATH, SHELL, TERM and USER, but the shell
 * of the pane the agent runs in still holds TMUX and TMUX_PANE in its own environment. Linux only
 * (/proc); elsewhere nothing is found, which is an honest answer.
 *
 * What /proc holds is untrusted: every read is bounded, an ancestor of another uid is passed over
 * without reading its environment, values are validated before use, and a socket is named only when
 * it is a socket file of our own uid (lstat: a symlink is not followed). This module never talks to
 * tmux: which pane runs our ancestor is confirmed against the live server by the caller of
 * `searchProcessTree` (services/CallerSearch.ts).
 */
import { closeSync, lstatSync, openSync, readSync } from "node:fs"
import { parseTmuxVariable, type TmuxVariable } from "./internal/TmuxVariable.js"
import { MAX_SOCKET_PATH_BYTES } from "./SocketResolver.js"

/** How /proc and the file system are read; tests give a fake. */
export interface ProcReader {
  /** `/proc/<pid>/stat`; undefined when unreadable. */
  readonly stat: (pid: number) => string | undefined
  /** `/proc/<pid>/status`; undefined when unreadable. */
  readonly status: (pid: number) => string | undefined
  /** At most `maxBytes + 1` bytes of `/proc/<pid>/environ` (more than maxBytes: too long to take). */
  readonly environ: (pid: number, maxBytes: number) => Uint8Array | undefined
  /** The file at `path` itself (a symlink is not followed). */
  readonly lstat: (path: string) => { readonly socket: boolean; readonly symlink: boolean; readonly uid: number } | undefined
}

/** Ancestors looked at, at most: a real chain (client, shells, pane) is a handful. */
export const MAX_ANCESTORS = 64
/** An environment past this is not read at all (Linux's own default limit for argv + environ is 2 MiB). */
export const MAX_ENVIRON_BYTES = 256 * 1024
/** /proc/<pid>/stat and status are a few hundred bytes; a bound all the same. */
const MAX_PROC_TEXT_BYTES = 8 * 1024
const MAX_TMPDIR_BYTES = 1024

/** The caller an ancestor's environment names, already checked for form and socket ownership. */
export interface TreeCaller {
  /** The ancestor whose environment said it. */
  readonly pid: number
  readonly tmux: TmuxVariable
  /** Its `TMUX_PANE`, when well-formed: the pane is confirmed against the server's pane_pids later. */
  readonly paneId: string | null
  /** Its `TMUX_TMPDIR`, when an absolute path. */
  readonly tmuxTmpdir: string | undefined
}

export interface TreeSearch {
  /** Our ancestors of our own uid, nearest first: the caller's pane runs one of them. */
  readonly ancestors: ReadonlyArray<number>
  /** The nearest such ancestor whose TMUX names a socket of ours. */
  readonly found: TreeCaller | undefined
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\ufffd]/

/** The parent pid from `/proc/<pid>/stat`: the command name (field 2) may hold `)` and spaces, so fields are read after the last `)`. */
const parentOf = (stat: string): number | undefined => {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  const ppid = Number(fields[1])
  return Number.isSafeInteger(ppid) && ppid > 0 ? ppid : undefined
}

/** Real and effective uid from `/proc/<pid>/status` must both be ours: a setuid ancestor is not. */
const isOurs = (status: string, uid: number): boolean => {
  const match = /^Uid:\s+(\d+)\s+(\d+)/m.exec(status)
  return match !== null && Number(match[1]) === uid && Number(match[2]) === uid
}

/** The first value of each wanted variable (as getenv would find it), or nothing when the block is over its bound. */
const variables = (environ: Uint8Array, names: ReadonlyArray<string>): Map<string, string> | undefined => {
  if (environ.byteLength > MAX_ENVIRON_BYTES) return undefined
  const found = new Map<string, string>()
  for (const entry of Buffer.from(environ.buffer, environ.byteOffset, environ.byteLength).toString("utf8").split("\0")) {
    const equals = entry.indexOf("=")
    const name = equals < 0 ? "" : entry.slice(0, equals)
    if (names.includes(name) && !found.has(name)) found.set(name, entry.slice(equals + 1))
  }
  return found
}

const tmuxOf = (value: string | undefined): TmuxVariable | undefined => {
  // A socket path, a pid and a session id: nothing longer is a tmux's.
  if (value === undefined || value.length > MAX_SOCKET_PATH_BYTES + 24 || CONTROL.test(value)) return undefined
  const parsed = parseTmuxVariable(value)
  if (parsed._tag === "None") return undefined
  const { serverPid, sessionIndex, socketPath } = parsed.value
  return Buffer.byteLength(socketPath, "utf8") <= MAX_SOCKET_PATH_BYTES && Number.isSafeInteger(serverPid) &&
      /^-?\d{1,10}$/.test(sessionIndex)
    ? parsed.value
    : undefined
}

const paneOf = (value: string | undefined): string | null => value !== undefined && /^%\d{1,10}$/.test(value) ? value : null

const tmpdirOf = (value: string | undefined): string | undefined =>
  value !== undefined && value.startsWith("/") && Buffer.byteLength(value, "utf8") <= MAX_TMPDIR_BYTES && !CONTROL.test(value)
    ? value
    : undefined

/** A socket file of our uid itself, never through a symlink: only such a socket is ever named. */
const isOwnSocket = (reader: ProcReader, path: string, uid: number): boolean => {
  const file = reader.lstat(path)
  return file !== undefined && file.socket && !file.symlink && file.uid === uid
}

/**
 * Walks up from `self.ppid` (at most MAX_ANCESTORS, stopping at init, an unreadable process or a
 * loop) and finds the nearest ancestor of our uid whose TMUX names a socket of ours.
 */
export const searchProcessTree = (self: { readonly pid: number; readonly ppid: number }, uid: number, reader: ProcReader): TreeSearch => {
  const ancestors: Array<number> = []
  const seen = new Set<number>([self.pid])
  let found: TreeCaller | undefined
  let pid: number | undefined = self.ppid
  for (let depth = 0; depth < MAX_ANCESTORS && pid !== undefined && pid > 1 && !seen.has(pid); depth++) {
    seen.add(pid)
    const stat = reader.stat(pid)
    const status = reader.status(pid)
    if (stat === undefined || status === undefined) break
    // Another uid's process is passed over unread: its environment is not ours to take.
    if (isOurs(status, uid)) {
      ancestors.push(pid)
      if (found === undefined) found = callerIn(reader, pid, uid)
    }
    pid = parentOf(stat)
  }
  return { ancestors, found }
}

const callerIn = (reader: ProcReader, pid: number, uid: number): TreeCaller | undefined => {
  const environ = reader.environ(pid, MAX_ENVIRON_BYTES)
  const vars = environ === undefined ? undefined : variables(environ, ["TMUX", "TMUX_PANE", "TMUX_TMPDIR"])
  const tmux = tmuxOf(vars?.get("TMUX"))
  if (vars === undefined || tmux === undefined || !isOwnSocket(reader, tmux.socketPath, uid)) return undefined
  return { pid, tmux, paneId: paneOf(vars.get("TMUX_PANE")), tmuxTmpdir: tmpdirOf(vars.get("TMUX_TMPDIR")) }
}

/** At most `max` bytes of a file, or undefined when it cannot be read. */
const readBounded = (path: string, max: number): Buffer | undefined => {
  let fd: number | undefined
  try {
    fd = openSync(path, "r")
    const buffer = Buffer.alloc(max)
    let length = 0
    for (let n = -1; n !== 0 && length < max; length += n) n = readSync(fd, buffer, length, max - length, null)
    return buffer.subarray(0, length)
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/** This machine's /proc (nothing where there is none) and file system. */
export const liveProcReader: ProcReader = {
  stat: (pid) => readBounded(`/proc/${pid}/stat`, MAX_PROC_TEXT_BYTES)?.toString("utf8"),
  status: (pid) => readBounded(`/proc/${pid}/status`, MAX_PROC_TEXT_BYTES)?.toString("utf8"),
  environ: (pid, maxBytes) => readBounded(`/proc/${pid}/environ`, maxBytes + 1),
  lstat: (path) => {
    try {
      const stats = lstatSync(path)
      return { socket: stats.isSocket(), symlink: stats.isSymbolicLink(), uid: stats.uid }
    } catch {
      return undefined
    }
  }
}
