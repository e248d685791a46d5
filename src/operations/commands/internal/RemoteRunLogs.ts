/**
 * Where run_command keeps a command's log when the pane's shell runs on a remote host (issue 22):
 * on that host, because the recorder (the pane's `pipe-pane`, see RunLogs) runs there, in the
 * private directory the host's discovery made (RemoteHostView.runDirectory, 0700). This process
 * never opens that file: the log reaches it over the tmux socket, as text in a tmux buffer.
 *
 * - The record: the server option `@etm-log-<id>` says the log is still wanted. Set to 0 when the
 *   pane is claimed, it holds how far a wait has read the log, becomes `ended` once the log is in
 *   the buffer `etm.log.<id>`, and is unset (with the buffer) when the command is reported ended or
 *   the run withdrawn. (That the handle is not spent is kept here, in RunLogs' remote run record.)
 * - The recorder records and watches as on this machine, and once its stream ended it hands the
 *   log over: a snapshot of it from the recorded offset (SNAPSHOT) goes into `etm.push.<id>`, the
 *   log is removed, and in the same tmux command list the push is renamed `etm.log.<id>` and the
 *   record marked ended, only while the record is set: a run reported meanwhile leaves nothing
 *   behind. A recorder that saw the end closes the pipe first (so tee has written all), and
 *   releases the pane's claim only after the hand-over, so a run that finds the claim gone finds
 *   the log too.
 * - A wait polls the record (one round trip, the log's buffer with it once ended). Output wanted
 *   before the end (a timeout) is read with the same snapshot run on the host by `run-shell`
 *   into a buffer of that read, shown and deleted in the same command list.
 * - A snapshot is bounded: from the offset, at most HEAD_BYTES, then at most the last TAIL_BYTES;
 *   what lies between is not sent, only its size and how many line ends it held, and the output
 *   says so (FramedOutput.skip: the cut line is marked and counted, the lines counted as elided).
 *   It travels in hex (`od`, POSIX): tmux's output reaches this process as UTF-8 text, and a log's
 *   bytes need not be UTF-8, while offsets must count bytes.
 * - Sweeping: a log on the host is removed by its recorder; a log buffer nobody came for is removed
 *   an hour after its hand-over (by the tmux server's clock) the next time a command runs there.
 *
 * The scripts are fixed text: paths, names and numbers reach them as quoted words.
 */
import { posix } from "node:path"
import { ifFormat } from "../../../tmux/ControlProtocol.js"
import { literalizeFormat } from "../../../tmux/Literal.js"
import type { TmuxCommand } from "../../../tmux/Tmux.js"
import { isRunId, shellQuote } from "./CommandFraming.js"
import type { FramedOutput } from "./CommandFraming.js"
import { closePipeCommands, releaseClaimCommands } from "./PaneClaim.js"
import { asPipeCommand, forgetPipeCommands, recordAndWatch, RECORDER_LIMITS, type RecorderOptions, recorderTmuxCall } from "./RunLogs.js"

/** How the pane's shell and the recorder call tmux on a remote host: from its PATH (a path of this machine means nothing there). */
export const REMOTE_TMUX_PROGRAM = "tmux"

/** What a remote run's framing holds open as its lease: the lease is looked at through /proc on this machine only (see RunLease). */
export const REMOTE_LEASE = "/dev/null"

/** Bytes of a snapshot from its offset on, and of its end: what lies between is counted, not sent. */
export const HEAD_BYTES = 512 * 1024
export const TAIL_BYTES = 512 * 1024

/** A run's log on the remote host, where known (null: the host has no run directory, the pane's history is read). */
export interface RemoteLog {
  readonly log: string | null
}

/** The run's log in the host's run directory. */
export const remoteLogPath = (runDirectory: string, id: string): string => {
  if (!isRunId(id)) throw new Error(`not a run id: ${id}`)
  return posix.join(runDirectory, `${id}.log`)
}

const recordOption = (id: string) => `@etm-log-${id}`
/** The buffer a handed-over log is in until its command is reported ended. */
export const logBufferName = (id: string): string => `etm.log.${id}`
const pushBufferName = (id: string) => `etm.push.${id}`
const LOG_BUFFERS = "etm.log.*"
const record = (id: string) => `#{${recordOption(id)}}`

const SNAPSHOT_MARK = "etm-log-snapshot-1"

/**
 * Writes the snapshot of the log `$f` from byte `$o` (a header line, then the bytes in hex); a
 * header saying `missing` when there is no log. One line: run-shell hands it to the server's
 * default-shell first, which need not take newlines inside quotes.
 */
const SNAPSHOT = `if [ -f "$f" ]; then ${
  [
    `s=$(( $(wc -c <"$f") ))`,
    `case $o in ""|*[!0-9]*) o=0;; esac`,
    `[ "$o" -le "$s" ] || o=$s`,
    `n=$((s - o)); h=$n; [ "$h" -le ${HEAD_BYTES} ] || h=${HEAD_BYTES}`,
    `t=$((n - h)); [ "$t" -le ${TAIL_BYTES} ] || t=${TAIL_BYTES}`,
    `g=$((n - h - t)); l=0`,
    `[ "$g" -eq 0 ] || l=$(( $(tail -c +$((o + h + 1)) "$f" | head -c "$g" | tr -cd "\\n" | wc -c) ))`,
    `printf "${SNAPSHOT_MARK} %s %s %s %s %s\\n" "$o" "$s" "$h" "$g" "$l"`,
    `{ tail -c +$((o + 1)) "$f" | head -c "$h"; [ "$t" -eq 0 ] || tail -c +$((s - t + 1)) "$f" | head -c "$t"; } | od -An -v -tx1`
  ].join("; ")
}; else printf "${SNAPSHOT_MARK} missing\\n"; fi`

/** The snapshot of log `$1` from byte `$2`, into buffer `$5` of the server at `$4` (tmux program `$3`). */
export const READ_SCRIPT = `f=$1; o=$2; { ${SNAPSHOT}; } | "$3" -S "$4" load-buffer -b "$5" - >/dev/null 2>&1`

/** Hands the snapshot read from stdin over, if the log is still wanted (see the top of this module). */
const handOverCommands = (id: string): ReadonlyArray<TmuxCommand> => [
  ["load-buffer", "-b", pushBufferName(id), "-"],
  ifFormat(
    `#{!=:${record(id)},}`,
    [["set-buffer", "-b", pushBufferName(id), "-n", logBufferName(id)], ["set-option", "-s", recordOption(id), "ended"]],
    { otherwise: [["delete-buffer", "-b", pushBufferName(id)]] }
  )
]

/**
 * The `pipe-pane` command of a remote pane: records and watches as on this machine, then hands
 * the log over and removes it; `log`, `socketPath` and `tmuxProgram` are the host's.
 */
export const remoteRecorderCommand = ({ id, log, paneId, socketPath, tmuxProgram }: RecorderOptions): string => {
  const tmux = (commands: ReadonlyArray<TmuxCommand>) => recorderTmuxCall(tmuxProgram, socketPath, commands)
  // The pipe is closed (tee ends, the log is whole) now; the claim is released after the hand-over.
  const ended = `${tmux(closePipeCommands(paneId, id))}; true`
  const stopped = `${tmux(forgetPipeCommands(paneId, id))}; false`
  const wanted = `o=$(${tmux([["display-message", "-p", record(id)]])} 2>/dev/null)`
  const handOver = `{ f=${shellQuote(log)}; ${SNAPSHOT}; rm -f "$f"; } | ${
    recorderTmuxCall(tmuxProgram, socketPath, handOverCommands(id), { stdin: true })
  } >/dev/null 2>&1`
  const script = [
    ...RECORDER_LIMITS,
    `if ${recordAndWatch(log, id, ended, stopped)}; then e=1; else e=0; fi`,
    wanted,
    `case $o in ""|*[!0-9]*) ;; *) ${handOver};; esac`,
    `[ "$e" = 0 ] || ${tmux(releaseClaimCommands(paneId, id))} >/dev/null 2>&1`,
    // Whatever failed above, the log does not outlive its recorder.
    `rm -f ${shellQuote(log)}`
  ].join("; ")
  return asPipeCommand(script)
}

/** Sets the run's record as the pane is claimed (before its recorder opens). */
export const claimRecordCommands = (id: string): ReadonlyArray<TmuxCommand> => [["set-option", "-s", recordOption(id), "0"]]

/** Says how far the log was read, for the recorder's hand-over to start there (while the log is on the host). */
export const recordOffsetCommands = (id: string, offset: number): ReadonlyArray<TmuxCommand> => [
  ifFormat(`#{m:[0-9]*,${record(id)}}`, [["set-option", "-s", recordOption(id), String(offset)]])
]

/** Removes the record and the handed-over log: the command was reported ended, or its run withdrawn. */
export const releaseRecordCommands = (id: string): ReadonlyArray<TmuxCommand> => [
  ifFormat(`#{==:${record(id)},ended}`, [["delete-buffer", "-b", logBufferName(id)]]),
  ["set-option", "-s", "-u", recordOption(id)]
]

/** One look at the run: its record's value on the first line, then (once ended) its log's buffer. */
export const pollCommands = (id: string): ReadonlyArray<TmuxCommand> => [
  ["display-message", "-p", record(id)],
  ifFormat(`#{==:${record(id)},ended}`, [["show-buffer", "-b", logBufferName(id)]])
]

export type RecordState =
  | { readonly _tag: "Recording" }
  | { readonly _tag: "HandedOver"; readonly snapshot: Snapshot | undefined }
  | { readonly _tag: "Gone" }

/** What a poll printed: still recording, handed over (the snapshot, undefined when unreadable), or no record. */
export const parsePoll = (output: string): RecordState => {
  const newline = output.indexOf("\n")
  const value = newline < 0 ? output : output.slice(0, newline)
  if (/^[0-9]+$/.test(value)) return { _tag: "Recording" }
  if (value !== "ended") return { _tag: "Gone" }
  const snapshot = parseSnapshot(output.slice(newline + 1))
  return { _tag: "HandedOver", snapshot: snapshot === "missing" ? undefined : snapshot }
}

export interface ReadRequest {
  readonly id: string
  readonly log: string
  readonly from: number
  readonly socketPath: string
  /** A buffer name of this read alone. */
  readonly buffer: string
}

/**
 * Reads the log from `from` on while it is on the host: run-shell runs the snapshot there (with
 * the server's default-shell, hence the explicit /bin/sh), and the buffer it loaded is shown and
 * deleted. run-shell expands formats in its command: `#` is doubled.
 */
export const readCommands = ({ buffer, from, log, socketPath }: ReadRequest): ReadonlyArray<TmuxCommand> => {
  const words = [log, String(from), REMOTE_TMUX_PROGRAM, socketPath, buffer].map(shellQuote).join(" ")
  return [
    ["run-shell", literalizeFormat(`exec /bin/sh -c ${shellQuote(READ_SCRIPT)} sh ${words}`)],
    ["show-buffer", "-b", buffer],
    ["delete-buffer", "-b", buffer]
  ]
}

/** A bounded piece of a log: `head` bytes from `from`, `gap` bytes (`gapLines` line ends) not sent, then the rest up to `size`. */
export interface Snapshot {
  readonly from: number
  readonly size: number
  readonly head: number
  readonly gap: number
  readonly gapLines: number
  /** The head's bytes, then the tail's. */
  readonly bytes: Buffer
}

/** A snapshot as SNAPSHOT wrote it; "missing" for no log; undefined for anything else. */
export const parseSnapshot = (text: string): Snapshot | "missing" | undefined => {
  const newline = text.indexOf("\n")
  const header = (newline < 0 ? text : text.slice(0, newline)).split(" ")
  if (header[0] !== SNAPSHOT_MARK) return undefined
  if (header.length === 2 && header[1] === "missing") return "missing"
  const numbers = header.slice(1).map(Number)
  if (numbers.length !== 5 || !numbers.every((n) => Number.isSafeInteger(n) && n >= 0)) return undefined
  const [from, size, head, gap, gapLines] = numbers as [number, number, number, number, number]
  const hex = text.slice(newline + 1).replace(/\s+/g, "")
  const length = size - from
  if (length < head + gap || !/^[0-9a-f]*$/.test(hex) || hex.length !== 2 * (length - gap)) return undefined
  return { from, size, head, gap, gapLines, bytes: Buffer.from(hex, "hex") }
}

/**
 * Feeds what of a snapshot comes after what `framed` has taken so far: the head from there, the
 * gap as skipped (its line ends counted only when nothing of it was taken before), the tail.
 */
export const feedSnapshot = (framed: FramedOutput, snapshot: Snapshot): void => {
  const { bytes, from, gap, gapLines, head, size } = snapshot
  const headEnd = from + head
  const tailStart = headEnd + gap
  let at = framed.offset + framed.pendingLength
  if (at < from) {
    framed.skip(from - at, null)
    at = from
  }
  if (at < headEnd) {
    framed.feed(bytes.subarray(at - from, head))
    at = headEnd
  }
  if (at < tailStart) {
    framed.skip(tailStart - at, at === headEnd ? gapLines : null)
    at = tailStart
  }
  if (at < size) framed.feed(bytes.subarray(head + at - tailStart))
}

/** Lists the log buffers with their age on the server's clock (a buffer made just now says what time it is there). */
export const sweepListCommands = (clock: string): ReadonlyArray<TmuxCommand> => [
  ["set-buffer", "-b", clock, "0"],
  [
    "list-buffers",
    "-F",
    "#{buffer_created} #{buffer_name}",
    "-f",
    `#{||:#{m:${LOG_BUFFERS},#{buffer_name}},#{==:#{buffer_name},${clock}}}`
  ],
  ["delete-buffer", "-b", clock]
]

/** A log buffer nobody came for this long after its hand-over is removed (as ended logs on this machine are). */
const HANDED_OVER_MAX_AGE_S = 60 * 60

/** The runs whose log buffers a sweep listing shows too old. */
export const staleRuns = (listing: string, clock: string): ReadonlyArray<string> => {
  const rows = listing.split("\n").map((line) => /^(\d+) (\S+)$/.exec(line)).filter((row) => row !== null)
  const now = rows.find((row) => row[2] === clock)
  if (now === undefined) return []
  return rows
    .filter((row) => Number(now[1]) - Number(row[1]) > HANDED_OVER_MAX_AGE_S)
    .map((row) => /^etm\.log\.([0-9a-f]{16})$/.exec(row[2]!)?.[1])
    .filter((id) => id !== undefined)
}

/** Removes swept runs' records and buffers. */
export const sweepCommands = (ids: ReadonlyArray<string>): ReadonlyArray<TmuxCommand> =>
  ids.flatMap((id) => [["set-option", "-s", "-u", recordOption(id)], ["delete-buffer", "-b", logBufferName(id)]])
