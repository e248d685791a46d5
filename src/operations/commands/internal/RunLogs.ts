/**
 * Where run_command keeps what a command leaves behind while it runs, in a directory only this user
 * can enter, next to tmux's own (`$TMUX_TMPDIR`, default /tmp): one log per command, written by the
 * pane's `pipe-pane` (so the whole output is kept, not only what fits the screen or the history),
 * and the key that signs handles (see CommandHandle). Logs are named by the command's id alone, so a
 * handle can never point us at any other file, and a log exists exactly as long as its command has
 * not been reported ended: a wait that sees the end, the pane die or the command not start removes
 * it, and so does a cancel. (A command read from the pane's history gets an empty log, for that.)
 *
 * The recorder needs no one to stop it. `tee` copies what the pane prints into the log at once (no
 * buffering) and on to `grep`, which watches for the run's recorder key (see recordAndWatch: the
 * start hands it over in the byte stream, the end prints it); when it shows, the recorder closes
 * its own pipe through tmux, with everything up to the end already in the log, and releases the
 * pane's run claim (see PaneClaim). Nothing a command can read (the screen, the buffers, the run
 * id in the pane's options, any argv) stops the recording early, and only the real end (with the
 * secret) ends a wait. A log never grows past LOG_LIMIT_BLOCKS (the
 * recorder's file-size limit; tee goes on feeding grep), and grep's memory is bounded too
 * (WATCHER_MEMORY_KIB: a line that never ends). When the recorder stops for any reason, it
 * renames the log `<id>.log.ended`; ended logs untouched for an hour, and the empty logs of
 * history-read commands untouched for a day, are swept the next time a command runs.
 */
import * as Effect from "effect/Effect"
import * as fs from "node:fs"
import { join } from "node:path"
import { ensurePrivateDirectory } from "../../../context/PrivateDirectory.js"
import { Failed } from "../../../domain/Errors.js"
import { ifFormat } from "../../../tmux/ControlProtocol.js"
import { literalizeFormat } from "../../../tmux/Literal.js"
import { isRunId, shellQuote, startMarker } from "./CommandFraming.js"
import { closePipeCommands, releaseClaimCommands } from "./PaneClaim.js"

/** Bytes read from a log per poll, so one poll never holds a huge file in memory. */
const READ_CHUNK = 1024 * 1024

/** The recorder's file-size limit, in the shell's `ulimit -f` blocks (512 bytes in POSIX sh: 128 MiB; bash's own sh mode: 256 MiB). */
export const LOG_LIMIT_BLOCKS = 262_144

/**
 * The memory (KiB of address space, `ulimit -v`) the recorder's grep may use: grep holds a whole
 * line, and a line may never end. A grep needs a few MiB; past this it fails, and a grep behind
 * `fold` (lines cut at FOLD_WIDTH bytes, its output block-buffered: it may see the end late) watches
 * the rest of the stream instead.
 */
export const WATCHER_MEMORY_KIB = 16_384
const FOLD_WIDTH = 4096

const failure = (detail: string) => new Failed({ command: "run log", reason: "spawn", exitCode: null, stderr: detail })

/** Ended logs older than this are removed (a wait would find the pane gone long ago). */
const ENDED_LOG_MAX_AGE_MS = 60 * 60 * 1000
/** Empty logs (commands read from the pane's history) older than this are removed. */
const EMPTY_LOG_MAX_AGE_MS = 24 * 60 * 60 * 1000
const LOG = ".log"
const ENDED = ".ended"
const REMOTE = ".remote"

const sweep = (dir: string) => {
  // Wall-clock on purpose: ages are measured against the file system's mtimes, which are.
  const now = Date.now()
  for (const name of fs.readdirSync(dir)) {
    const ended = name.endsWith(`${LOG}${ENDED}`)
    const remote = name.endsWith(REMOTE)
    if (!ended && !remote && !name.endsWith(LOG)) continue
    const path = join(dir, name)
    try {
      const stat = fs.statSync(path)
      const age = now - stat.mtimeMs
      const old = ended ? age > ENDED_LOG_MAX_AGE_MS : stat.size === 0 && age > EMPTY_LOG_MAX_AGE_MS
      if (old) fs.rmSync(path, { force: true })
    } catch {
      // Removed meanwhile by another server process: nothing to do.
    }
  }
}

/**
 * The log directory, made on first use: owned by us, mode 0700, not a symlink (shared /tmp). Old
 * logs are swept here.
 */
export const logDirectory = (base: string, uid: number): Effect.Effect<string, Failed> =>
  Effect.try({
    try: () => {
      const dir = join(base, `effect-tmux-mcp-${uid}`)
      ensurePrivateDirectory(dir, uid)
      sweep(dir)
      return dir
    },
    catch: (error) => failure(`cannot prepare the output log directory: ${error instanceof Error ? error.message : String(error)}`)
  })

export const logPath = (dir: string, id: string): string => {
  if (!isRunId(id)) throw new Error(`not a run id: ${id}`)
  return join(dir, `${id}${LOG}`)
}

/**
 * A command whose pane runs on a remote host keeps its log there (see RemoteRunLogs); here it has
 * only its record: an empty file that exists exactly as long as the command has not been reported
 * ended, made, checked and removed as a log is (createLog, logExists, removeLog), and swept as
 * the empty logs of history-read commands are.
 */
export const remoteRunRecordPath = (dir: string, id: string): string => {
  if (!isRunId(id)) throw new Error(`not a run id: ${id}`)
  return join(dir, `${id}${REMOTE}`)
}

/** Creates the empty log before the pipe opens, so "no file" always means "reported or lost", never "no output yet". */
export const createLog = (path: string): Effect.Effect<void, Failed> =>
  Effect.try({
    try: () => fs.closeSync(fs.openSync(path, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY, 0o600)),
    catch: (error) => failure(`cannot create the output log: ${error instanceof Error ? error.message : String(error)}`)
  })

export interface RecorderOptions {
  readonly log: string
  readonly id: string
  readonly paneId: string
  readonly socketPath: string
  /** The tmux program as the recorder (a child of the tmux server) should run it. */
  readonly tmuxProgram: string
}

/**
 * The recorder's call of tmux: `commands` as one list on the server at `socketPath` (as the
 * recorder's host names it), with no standard input unless `stdin` (for `load-buffer -`).
 */
export const recorderTmuxCall = (
  tmuxProgram: string,
  socketPath: string,
  commands: ReadonlyArray<ReadonlyArray<string>>,
  { stdin = false }: { readonly stdin?: boolean } = {}
): string =>
  `${shellQuote(tmuxProgram)} -S ${shellQuote(socketPath)} ${commands.map((command) => command.map(shellQuote).join(" ")).join(" \\; ")}${
    stdin ? "" : " </dev/null"
  }`

/** Past the size limit, writes to the log fail (and tee carries on for grep) instead of killing tee. */
export const RECORDER_LIMITS: ReadonlyArray<string> = ["trap '' XFSZ", `ulimit -f ${LOG_LIMIT_BLOCKS} 2>/dev/null`]

/**
 * The recording itself: tee into `log`; read the stream up to run `id`'s start, which brings the
 * run's recorder key (see CommandFraming.FramingOptions.recorderKey), then grep for the key, which
 * the end prints after its status; then the shell commands `ended`, or `stopped` when the stream
 * ended without it. The key travels only in the script and the pane's byte stream (the start is an
 * escape string the screen does not show), and reaches grep as its pattern file (a pipe from
 * printf, a builtin): never an argv, a buffer or the screen, so nothing a command can read there,
 * nor the run id it can learn (the pane's options), stops the recording. The start is read a line
 * at a time by the shell's `read`, which takes no byte past its line: grep gets all the rest.
 */
export const recordAndWatch = (log: string, id: string, ended: string, stopped: string): string => {
  const start = `${startMarker(id)} `
  const findKey = `k=; while IFS= read -r l; do case $l in *${shellQuote(start)}*) k=\${l#*${
    shellQuote(start)
  }}; k=\${k%%[!0-9a-f]*}; break;; esac; done`
  const patterns = `printf '%s\\n' "$k"`
  // grep reads the pattern on descriptor 3 and the rest of the stream (kept on 4) as its input.
  const watch = `${patterns} | (exec 3<&0 <&4 4<&-; ulimit -c 0; ulimit -v ${WATCHER_MEMORY_KIB}; LC_ALL=C exec grep -q -F -f /dev/fd/3)`
  const watchFolded = `${patterns} | { exec 3<&0 <&4 4<&-; LC_ALL=C fold -b -w ${FOLD_WIDTH} | LC_ALL=C grep -q -F -f /dev/fd/3; }`
  // No start (the line never ran): the stream was read to its end, and the recording stopped.
  return `tee -a ${
    shellQuote(log)
  } | { exec 4<&0; ${findKey}; if [ \${#k} -eq 32 ] && { ${watch} || ${watchFolded}; }; then ${ended}; else ${stopped}; fi; } >/dev/null 2>&1`
}

/** tmux expands formats and strftime escapes in a pipe-pane command: its `#` and `%` are doubled to arrive as written. */
export const asPipeCommand = (script: string): string => literalizeFormat(script).replaceAll("%", "%%")

/**
 * The `pipe-pane` command that records into the log and stops at the end (see the top of this
 * module).
 */
export const recorderCommand = ({ id, log, paneId, socketPath, tmuxProgram }: RecorderOptions): string => {
  const ended = recorderTmuxCall(tmuxProgram, socketPath, [...closePipeCommands(paneId, id), ...releaseClaimCommands(paneId, id)])
  // Stopped some other way (the pane or server died, someone else's pipe replaced ours): the pipe is no longer ours.
  const stopped = recorderTmuxCall(tmuxProgram, socketPath, forgetPipeCommands(paneId, id))
  const script = [
    ...RECORDER_LIMITS,
    recordAndWatch(log, id, ended, stopped),
    `mv -f ${shellQuote(log)} ${shellQuote(`${log}${ENDED}`)} 2>/dev/null`
  ].join("; ")
  return asPipeCommand(script)
}

/** Forgets that the pane's pipe is the recorder of run `id` (without closing whatever pipe it has now). */
export const forgetPipeCommands = (paneId: string, id: string): ReadonlyArray<ReadonlyArray<string>> => [
  ifFormat(`#{==:#{@etm-pipe},${id}}`, [["set-option", "-p", "-u", "-t", paneId, "@etm-pipe"]], { target: paneId })
]

export interface LogRead {
  /** The bytes from the offset on (at most one chunk). */
  readonly bytes: Buffer
  /** The recorder has stopped: nothing will be added. */
  readonly finished: boolean
}

const openLog = (path: string): { readonly fd: number; readonly finished: boolean } | null => {
  for (
    const [candidate, finished] of [
      [path, false],
      [`${path}${ENDED}`, true]
    ] as const
  ) {
    try {
      return { fd: fs.openSync(candidate, "r"), finished }
    } catch {
      // Not under this name.
    }
  }
  return null
}

/** Reads the log from `offset` on, or null when the log is gone (its command was reported ended, or it expired). */
export const readLog = (path: string, offset: number): Effect.Effect<LogRead | null> =>
  Effect.sync(() => {
    const opened = openLog(path)
    if (opened === null) return null
    try {
      const size = fs.fstatSync(opened.fd).size
      const length = Math.max(0, Math.min(READ_CHUNK, size - offset))
      const buffer = Buffer.alloc(length)
      const read = length === 0 ? 0 : fs.readSync(opened.fd, buffer, 0, length, offset)
      return { bytes: buffer.subarray(0, read), finished: opened.finished && offset + read >= size }
    } finally {
      fs.closeSync(opened.fd)
    }
  })

/** Whether the log still exists under either name: its command has not been reported ended. */
export const logExists = (path: string): Effect.Effect<boolean> =>
  Effect.sync(() => fs.existsSync(path) || fs.existsSync(`${path}${ENDED}`))

/** Removes the log under either name (the writer may rename it as it goes). */
export const removeLog = (path: string): Effect.Effect<void> =>
  Effect.sync(() => {
    fs.rmSync(path, { force: true })
    fs.rmSync(`${path}${ENDED}`, { force: true })
  })
