/**
 * Where run_command keeps a command's raw output while it runs: one file per command, written by the
 * pane's `pipe-pane` (so the whole output is kept, not only what fits the screen or the history),
 * in a directory only this user can enter, next to tmux's own (`$TMUX_TMPDIR`, default /tmp).
 * Files are named by the command's id alone, so a handle a caller hands back can never point us at
 * any other file. The writer is `cat` (it writes what it reads at once; `head -c` would hold output
 * back in its stdio buffer). A log lives as long as its command: a wait that sees the command end,
 * or the pane die, removes it, and so does a cancel.
 * A command nobody waits for any more leaves its log behind; so when its pipe closes (the pane or
 * server died) the writer renames it `<id>.log.ended`, still readable, and ended logs untouched
 * for an hour are swept away the next time a command runs.
 */
import * as fs from "node:fs"
import { join } from "node:path"
import * as Effect from "effect/Effect"
import { Failed } from "../domain/Errors.js"
import { isRunId, shellQuote } from "./CommandFraming.js"

/** Bytes read from a log per poll, so one poll never holds a huge file in memory. */
const READ_CHUNK = 1024 * 1024

const failure = (detail: string) => new Failed({ command: "run log", reason: "spawn", exitCode: null, stderr: detail })

/** Ended logs older than this are removed (a wait would find the pane gone long ago). */
const ENDED_LOG_MAX_AGE_MS = 60 * 60 * 1000
const ENDED = ".ended"

/**
 * The log directory, made on first use: owned by us, mode 0700, not a symlink (shared /tmp). Old
 * ended logs are swept here.
 */
export const logDirectory = (base: string, uid: number): Effect.Effect<string, Failed> =>
  Effect.try({
    try: () => {
      const dir = join(base, `effect-tmux-mcp-${uid}`)
      try {
        fs.mkdirSync(dir, { mode: 0o700 })
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      }
      const stat = fs.lstatSync(dir)
      if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o077) !== 0) {
        throw new Error(`${dir} is not a private directory of uid ${uid}; remove it and retry`)
      }
      const now = Date.now()
      for (const name of fs.readdirSync(dir)) {
        if (!name.endsWith(ENDED)) continue
        const path = join(dir, name)
        try {
          if (now - fs.statSync(path).mtimeMs > ENDED_LOG_MAX_AGE_MS) fs.rmSync(path, { force: true })
        } catch {
          // Removed meanwhile by another server process: nothing to do.
        }
      }
      return dir
    },
    catch: (error) => failure(`cannot prepare the output log directory: ${error instanceof Error ? error.message : String(error)}`)
  })

export const logPath = (dir: string, id: string): string => {
  if (!isRunId(id)) throw new Error(`not a run id: ${id}`)
  return join(dir, `${id}.log`)
}

/** Creates the empty log before the pipe opens, so "no file" always means "lost", never "no output yet". */
export const createLog = (path: string): Effect.Effect<void, Failed> =>
  Effect.try({
    try: () => fs.closeSync(fs.openSync(path, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600)),
    catch: (error) => failure(`cannot create the output log: ${error instanceof Error ? error.message : String(error)}`)
  })

/**
 * The `pipe-pane` command that records into `path`: when the pipe closes, the log is renamed as
 * ended (see the top of this module).
 */
export const recorderCommand = (path: string): string =>
  `cat >> ${shellQuote(path)}; mv -f ${shellQuote(path)} ${shellQuote(`${path}${ENDED}`)}`

const openEither = (path: string): number | null => {
  for (const candidate of [path, `${path}${ENDED}`]) {
    try {
      return fs.openSync(candidate, "r")
    } catch {
      // Not under this name.
    }
  }
  return null
}

/** The bytes of the log from `offset` on (at most one chunk), or null when the log is gone. */
export const readLog = (path: string, offset: number): Effect.Effect<Buffer | null> =>
  Effect.sync(() => {
    const fd = openEither(path)
    if (fd === null) return null
    try {
      const size = fs.fstatSync(fd).size
      const length = Math.max(0, Math.min(READ_CHUNK, size - offset))
      const buffer = Buffer.alloc(length)
      const read = length === 0 ? 0 : fs.readSync(fd, buffer, 0, length, offset)
      return buffer.subarray(0, read)
    } finally {
      fs.closeSync(fd)
    }
  })

/** Removes the log under either name (the writer may rename it as it goes). */
export const removeLog = (path: string): Effect.Effect<void> =>
  Effect.sync(() => {
    fs.rmSync(path, { force: true })
    fs.rmSync(`${path}${ENDED}`, { force: true })
  })
