/**
 * Which run_command owns a pane, kept in tmux itself so that every MCP server process on the tmux
 * server agrees: the pane option `@etm-run` names the run that typed there and has not been reported
 * ended, and `@etm-pipe` names the run whose recorder is the pane's `pipe-pane`.
 *
 * A run claims a pane with one command list: `if-shell -F` checks that the pane is still as it was
 * read (the same claim, the same pipe, still a shell at its prompt, no mode, no full-screen program)
 * and only then sets the claim, opens the recorder, loads the command's buffer and types. tmux runs
 * a client's command list without running another client's commands in between (up to a command
 * that waits: the `load-buffer` from stdin comes after the claim), so of two racing servers exactly
 * one claims, and the other gets the pane's state printed back.
 *
 * A claim never outlives its run for good: the recorder releases it when it sees the end (no MCP
 * server needed), a wait that sees the run end releases it, and a claim left behind by a run that
 * never started (its buffer still unfetched after STALE_UNFETCHED_S) or that stopped without its
 * end (a C-c drops the rest of the framing line: the shell is back in the foreground, and stays
 * there) is judged stale by the next run_command, which takes it over with the same atomic check,
 * and leaves the stale run's id in `@etm-stopped` so that a wait still following it learns why.
 */
import { ifFormat } from "../../../tmux/ControlProtocol.js"
import * as Format from "../../../tmux/Format.js"
import type { TmuxCommand } from "../../../tmux/Tmux.js"

/** A claim whose buffer nobody fetched for this long has no live run_command behind it (a live one withdraws it far sooner). */
export const STALE_UNFETCHED_S = 10

/** What a run_command reads of a pane before it claims it (and what a refused claim prints back). */
export const claimStateFields = {
  pane_id: Format.string("pane_id"),
  pid: Format.nullableInt("pane_pid"),
  dead: Format.bool("pane_dead"),
  in_mode: Format.bool("pane_in_mode"),
  alternate: Format.bool("alternate_on"),
  pipe: Format.bool("pane_pipe"),
  command: Format.string("pane_current_command"),
  // Empty until a new pane's child has made its session (PaneStart): its command is then a name tmux made up.
  cwd: Format.string("pane_current_path"),
  claim: Format.string("@etm-run"),
  pipe_owner: Format.string("@etm-pipe"),
  // Where the prompt ends, for the script to erase the typed line there (see CommandFraming.ScreenTidy).
  cursor_x: Format.int("cursor_x"),
  width: Format.int("pane_width")
}
export const claimStateRecord = Format.record("clm", claimStateFields)
export const refusedClaimRecord = Format.record("rfs", claimStateFields)
export type ClaimState = Format.Decoded<typeof claimStateFields>

/** Command buffers of runs (any server's), with their age. */
export const runBufferRecord = Format.record("rbf", {
  name: Format.string("buffer_name"),
  created: Format.int("buffer_created")
})
export const runBuffersCommand = (marks: Format.Marks): TmuxCommand => [
  "list-buffers",
  "-F",
  runBufferRecord.format(marks),
  "-f",
  "#{m:etm.run.*,#{buffer_name}}"
]

/** Whether run ids read from tmux can go into a claim's formats. */
export const isClaimValue = (value: string): boolean => value === "" || /^[0-9a-f]{16}$/.test(value)

const isFormatSafe = (value: string) => /^[A-Za-z0-9._/+-]*$/.test(value)

const equals = (variable: string, value: string) => `#{==:#{${variable}},${value}}`
const all = (conditions: ReadonlyArray<string>): string =>
  conditions.length === 1 ? conditions[0]! : `#{&&:${conditions[0]},${all(conditions.slice(1))}}`

/** Runs `commands` only while the pane option `option` is `id`. */
const whileOption = (paneId: string, option: string, id: string, commands: ReadonlyArray<TmuxCommand>): TmuxCommand =>
  ifFormat(equals(option, id), commands, { target: paneId })

/** Closes the pane's pipe if it is the recorder of run `id`. */
export const closePipeCommands = (paneId: string, id: string): ReadonlyArray<TmuxCommand> => [
  whileOption(paneId, "@etm-pipe", id, [
    ["pipe-pane", "-t", paneId],
    ["set-option", "-p", "-u", "-t", paneId, "@etm-pipe"]
  ])
]

/** Releases the pane's claim if run `id` holds it. */
export const releaseClaimCommands = (paneId: string, id: string): ReadonlyArray<TmuxCommand> => [
  whileOption(paneId, "@etm-run", id, [["set-option", "-p", "-u", "-t", paneId, "@etm-run"]])
]

export interface ClaimRequest {
  readonly paneId: string
  readonly id: string
  /** The pane as read just before: the claim goes through only if it is still so. */
  readonly seen: ClaimState
  /** The recorder to open as the pane's pipe (replacing a leftover recorder of ours), or none: the pane keeps its own pipe. */
  readonly recorder: string | null
  /** What else the run sets up before its recorder opens (a remote run's record, see RemoteRunLogs). */
  readonly setup?: ReadonlyArray<TmuxCommand>
  /** What loads the command's buffer and types the line, once the pane is ours. */
  readonly typing: ReadonlyArray<TmuxCommand>
}

/**
 * The one command list that claims the pane and types, or prints the pane's state (a
 * `refusedClaimRecord`) and does nothing else.
 */
export const claimCommand = (marks: Format.Marks, request: ClaimRequest): TmuxCommand => {
  const { paneId, id, seen, recorder } = request
  const conditions = [
    equals("@etm-run", seen.claim),
    // Option values are anyone's to set: only a run id goes into a format (any other value keeps the pipe foreign).
    ...(isClaimValue(seen.pipe_owner) ? [equals("@etm-pipe", seen.pipe_owner)] : []),
    equals("pane_pipe", seen.pipe ? "1" : "0"),
    equals("pane_dead", "0"),
    equals("pane_in_mode", "0"),
    equals("alternate_on", "0"),
    ...(seen.pid === null ? [] : [equals("pane_pid", String(seen.pid))]),
    // A shell still in the foreground: no program started meanwhile.
    ...(isFormatSafe(seen.command) ? [equals("pane_current_command", seen.command)] : [])
  ]
  const claimed: Array<TmuxCommand> = [["set-option", "-p", "-t", paneId, "@etm-run", id]]
  if (seen.claim !== "") claimed.push(["set-option", "-p", "-t", paneId, "@etm-stopped", seen.claim])
  if (request.setup !== undefined) claimed.push(...request.setup)
  if (recorder !== null) claimed.push(["pipe-pane", "-t", paneId, recorder], ["set-option", "-p", "-t", paneId, "@etm-pipe", id])
  claimed.push(...request.typing)
  return ifFormat(all(conditions), claimed, {
    target: paneId,
    otherwise: [["display-message", "-p", "-t", paneId, refusedClaimRecord.format(marks)]]
  })
}
