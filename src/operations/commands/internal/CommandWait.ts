/**
 * Waiting for a framed command (see CommandFraming) to end, for run_command and wait_for_command:
 * polling its log (or the pane's history when there is no log of ours), tmux once a second for the
 * pane's life, and, until the command starts, whether the shell took the line at all. A wait ends
 * with the command's end, the pane's death (also when the whole tmux server is gone: the output so
 * far is kept), the verdict that the line did not run, or the timeout; the claim, the recording and
 * the log are cleaned up on every path that ends the run.
 *
 * A pane on a remote host has its log there (see RemoteRunLogs): the wait polls the run's record
 * over the socket, less often than a local file, takes the log when the recorder hands it over,
 * and reads it on the host only when it needs output before that (the time is up, the pane died
 * and the hand-over does not come).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { isRemoteHost } from "../../../context/RemoteHosts.js"
import type { ResolvedSocket } from "../../../context/SocketResolver.js"
import type { TmuxError } from "../../../domain/Errors.js"
import * as Format from "../../../tmux/Format.js"
import { decode, query, queryTree, runTree } from "../../../tmux/Query.js"
import { Tmux } from "../../../tmux/Tmux.js"
import { joinBounded } from "../../bounds/OutputBudget.js"
import type { MatchReport } from "../../bounds/OutputMatches.js"
import { type EffectiveTimeout, pollUntil } from "../../bounds/Waiting.js"
import { deleteTmuxBuffer } from "../../input/Buffers.js"
import { type CommandHandle, encodeHandle } from "../CommandHandle.js"
import type { CommandResult, WaitRequest } from "../RunCommand.js"
import { commandBufferName, type FramedOutput, judgeShell, newRunId } from "./CommandFraming.js"
import { matchReportOf, type OutputShape, unreadNotes } from "./CommandOutput.js"
import { closePipeCommands, releaseClaimCommands, runBufferRecord, runBuffersCommand } from "./PaneClaim.js"
import {
  feedSnapshot,
  parsePoll,
  parseSnapshot,
  pollCommands,
  readCommands,
  recordOffsetCommands,
  releaseRecordCommands,
  type RemoteLog
} from "./RemoteRunLogs.js"
import { readLog, removeLog } from "./RunLogs.js"
import { shellInput } from "./ShellInput.js"

/** How often the pane itself is checked while waiting (the log is read far more often). */
const PANE_CHECK_MS = 1000
/** A remote pane gone, how long its recorder may take to hand its log over before the log is read on the host. */
const HAND_OVER_GRACE_MS = 2000
const HAND_OVER_POLL_MS = 50
/** On a remote host, how long after a look that found the pane gone the look is made again (see paneNow). */
const GONE_CONFIRM_MS = 300
/** The time up, how long a last read of a remote run's log may take (a stalled link would hold it for a call's whole deadline). */
const LAST_READ_MS = 2000
/** After C-c, how long to watch for the command to stop. */
const INTERRUPT_GRACE_MS = 2000
/** A shell at its prompt fetches the typed line's buffer within milliseconds; one that has not after this will not. */
const START_GRACE_MS = 2000
/** The buffer fetched, the start marker follows at once; when it has not after this, the line ran without the framing. */
const FETCH_GRACE_MS = 1000

/** Everything one wait needs, whether it follows the typing or a handle. */
export interface Run {
  readonly socket: ResolvedSocket
  /**
   * The run's log; in scrollback mode it stays empty and only says the run is not reported yet, as
   * the record of a run on a remote host does (RunLogs.remoteRunRecordPath).
   */
  readonly log: string
  /** A pane on a remote host: its log there (the record of it in tmux is released with the run); undefined on this machine. */
  readonly remote: RemoteLog | undefined
  /** Signs the handle a timed-out wait returns. */
  readonly key: Buffer
  /** The run as the next handle will carry it (source and fetched_by change while waiting). */
  handle: CommandHandle
  readonly framed: FramedOutput
  /** How the result keeps the output (the framed output's sinks come from it). */
  readonly shape: OutputShape
  /** The tmux program as a job of the pane's server runs it (see tmuxProgramFor, RemoteRunLogs.REMOTE_TMUX_PROGRAM). */
  readonly tmuxProgram: string
}

/** The tmux program as a pane's shell (or a recorder) should call it: our configured binary when it is a path. */
export const tmuxProgramFor = (tmuxBin: string) => (tmuxBin.includes("/") ? tmuxBin : "tmux")

const liveRecord = Format.record("liv", {
  pane_id: Format.string("pane_id"),
  pid: Format.nullableInt("pane_pid"),
  dead: Format.bool("pane_dead"),
  command: Format.string("pane_current_command"),
  claim: Format.string("@etm-run"),
  stopped: Format.string("@etm-stopped"),
  history: Format.int("history_size"),
  historyLimit: Format.int("history_limit")
})

const lookAtPane = (run: Run) =>
  queryTree(run.socket, (m) => [["list-panes", "-t", run.handle.pane_id, "-F", liveRecord.format(m)]], {
    kind: "pane",
    id: run.handle.pane_id
  }).pipe(
    Effect.flatMap((output) => decode(liveRecord, output)),
    Effect.map((rows) => rows.find((row) => row.pane_id === run.handle.pane_id)),
    Effect.map((row) => (row === undefined || row.dead || row.pid !== run.handle.pane_pid ? undefined : row)),
    Effect.catchTags({ NotFound: () => Effect.succeed(undefined), NoServer: () => Effect.succeed(undefined) })
  )

/**
 * A look that finds nothing (undefined), taken once more a moment later on a remote host: there a
 * connection the dying ssh link drops reads as a server gone, and the second look, once the link
 * is seen down, fails as the link's instead.
 */
export const lookAgainIfGone = <A, E, R>(
  socket: ResolvedSocket,
  look: Effect.Effect<A | undefined, E, R>
): Effect.Effect<A | undefined, E, R> =>
  isRemoteHost(socket.host)
    ? Effect.flatMap(look, (found) => found !== undefined ? Effect.succeed(found) : Effect.andThen(Effect.sleep(GONE_CONFIRM_MS), look))
    : look

/** The pane as it is now: alive with the run's pid, or gone (dead, respawned, closed, its server gone). */
const paneNow = (run: Run) => lookAgainIfGone(run.socket, lookAtPane(run))

/**
 * A failure the ssh link explains (down, or silent past a call's deadline): the remote run goes on
 * there, and its wait with it; the link comes back by itself.
 */
const isLinkTrouble = (run: Run) => (error: TmuxError): boolean =>
  run.remote !== undefined && error._tag === "Failed" && (error.reason === "host" || error.reason === "timeout")

type ReadStatus = "reading" | "recorder_stopped" | "pane_gone"

/** Reads what is new: the log (pipe; on a remote host, once handed over), or the pane's whole history (scrollback). */
const readNew = (run: Run) =>
  run.handle.source === "pipe"
    ? run.remote === undefined ? readLocalLog(run) : readHandedOver(run)
    : runTree(run.socket, [
      ["capture-pane", "-p", "-J", "-t", run.handle.pane_id, "-S", "-", "-E", "-"],
      ["display-message", "-p", "-t", run.handle.pane_id, `${CURSOR_MARK}#{cursor_y} #{pane_height}`]
    ], {
      kind: "pane",
      id: run.handle.pane_id
    }).pipe(
      Effect.map((text) => {
        run.framed.rescan(Buffer.from(finishedRows(text), "utf8"), run.handle.returned_lines)
        return "reading" as ReadStatus
      }),
      Effect.catchTags({ NotFound: () => Effect.succeed<ReadStatus>("pane_gone"), NoServer: () => Effect.succeed<ReadStatus>("pane_gone") })
    )

const CURSOR_MARK = "etm-cursor "

/**
 * The lines of a history capture that are finished: the cursor's row is still being written (a
 * line whose end has not come, or nothing yet) and the rows below it are empty, so they are left
 * out, as a log's unfinished last line is; counted as lines, they would be skipped when the next
 * call reads the history again, and a line printed there later lost. A joined line that reaches the
 * cursor's row is unfinished too, and goes with it.
 */
const finishedRows = (text: string): string => {
  const lines = text.split("\n")
  if (lines.at(-1) === "") lines.pop()
  const cursor = /^etm-cursor (\d+) (\d+)$/.exec(lines.at(-1) ?? "")
  if (cursor === null) return lines.length === 0 ? "" : `${lines.join("\n")}\n`
  const unfinished = Number(cursor[2]) - Number(cursor[1])
  const rows = lines.slice(0, Math.max(0, lines.length - 1 - unfinished))
  return rows.length === 0 ? "" : `${rows.join("\n")}\n`
}

const readLocalLog = (run: Run) =>
  Effect.gen(function*() {
    for (;;) {
      const read = yield* readLog(run.log, run.framed.offset + run.framed.pendingLength)
      if (read === null) return "recorder_stopped" as ReadStatus
      if (read.bytes.length > 0) run.framed.feed(read.bytes)
      if (run.framed.state.ended) return "reading" as ReadStatus
      if (read.bytes.length === 0) return (read.finished ? "recorder_stopped" : "reading") as ReadStatus
    }
  })

/** A remote run's record: still recording (nothing new here), or the handed-over log, fed. */
const readHandedOver = (run: Run) =>
  Effect.flatMap(Tmux, (tmux) => tmux.run(run.socket, pollCommands(run.handle.id))).pipe(
    Effect.map((output): ReadStatus => {
      const state = parsePoll(output)
      if (state._tag === "Recording") return "reading"
      if (state._tag === "HandedOver" && state.snapshot !== undefined) feedSnapshot(run.framed, state.snapshot)
      // Handed over, the log holds all there will be; no record: the run was released by another wait.
      return run.framed.state.ended ? "reading" : "recorder_stopped"
    }),
    Effect.catchTag("NoServer", () => Effect.succeed<ReadStatus>("pane_gone"))
  )

/**
 * Reads a remote run's log on the host, from where this wait stands, while its recorder still
 * has it; then tells the recorder how far it was read. True when the output is as read as it can
 * be (read now, or nothing to read there); false when the read failed or found the log handed over
 * meanwhile (the next poll takes it): the output is then left to the hand-over.
 */
const readOnHost = (run: Run) =>
  Effect.gen(function*() {
    const log = run.remote?.log ?? null
    if (log === null || run.handle.source !== "pipe" || run.framed.state.ended) return true
    const tmux = yield* Tmux
    const { id } = run.handle
    const read = readCommands({
      id,
      log,
      from: run.framed.offset + run.framed.pendingLength,
      socketPath: run.socket.path,
      buffer: `etm.read.${id}.${newRunId()}`
    })
    const output = yield* tmux.run(run.socket, read).pipe(Effect.option)
    const snapshot = output._tag === "Some" ? parseSnapshot(output.value) : undefined
    if (snapshot === undefined || snapshot === "missing") return false
    feedSnapshot(run.framed, snapshot)
    yield* tmux.run(run.socket, recordOffsetCommands(id, run.framed.offset)).pipe(Effect.ignore)
    return true
  })

/** A remote pane gone: its recorder hands the log over as it stops; waited for a little, else the log is read on the host. */
const awaitHandOver = (run: Run) =>
  Effect.gen(function*() {
    if (run.remote === undefined) return
    const deadline = (yield* Clock.currentTimeMillis) + HAND_OVER_GRACE_MS
    while (run.handle.source === "pipe" && !run.framed.state.ended) {
      if ((yield* readNew(run)) !== "reading") return
      if ((yield* Clock.currentTimeMillis) >= deadline) return yield* Effect.asVoid(readOnHost(run))
      yield* Effect.sleep(HAND_OVER_POLL_MS)
    }
  })

/**
 * ended: the end marker with the secret. died: the pane is gone. not_started: the shell did not run
 * the framing. taken_over: another run_command judged the command stopped and claimed the pane.
 */
type Ending = "ended" | "died" | "not_started" | "taken_over"

/** Takes the command's buffer back if the shell has not fetched it: true when it is withdrawn (it can never run now). */
const withdraw = (run: Run) =>
  deleteTmuxBuffer(run.socket, commandBufferName(run.handle.id)).pipe(Effect.catch(() => Effect.succeed(false)))

/**
 * tmux drops a tenth of a full history at a time, so a history this full may have dropped lines
 * since the line was typed.
 */
const HISTORY_FULL_SHARE = 0.9

/**
 * Whether the pane's history may have lost the typed line and the start marker after it: then their
 * absence proves nothing. The log of a recorder holds everything, so only a history read can.
 */
const startMayBeLost = (run: Run, pane: { readonly history: number; readonly historyLimit: number }) =>
  run.handle.source === "scrollback" && !run.framed.typedLineSeen && pane.history >= pane.historyLimit * HISTORY_FULL_SHARE

/** Whether the typed line's buffer is still there: the shell has not fetched it (none: the look failed). */
const lineUnfetched = (run: Run) =>
  query(run.socket, (m) => [runBuffersCommand(m)]).pipe(
    Effect.flatMap((output) => decode(runBufferRecord, output)),
    Effect.map((rows) => Option.some(rows.some((row) => row.name === commandBufferName(run.handle.id)))),
    Effect.catch(() => Effect.succeed(Option.none<boolean>()))
  )

/**
 * Until the start marker shows: whether the shell took the line (see START_GRACE_MS, FETCH_GRACE_MS).
 * not_started only when that is established: the line withdrawn unfetched after something else read
 * it (see ShellInput: a shell still starting reads it later, and is waited for), or fetched with
 * the start still missing from a stream that would hold it.
 */
const startVerdict = (run: Run, pane: { readonly pid: number | null; readonly history: number; readonly historyLimit: number }) =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    if (run.handle.fetched_by === null) {
      if (now - run.handle.typed_at < START_GRACE_MS) return Option.none<Ending>()
      const input = pane.pid === null ? "unknown" : yield* shellInput(run.socket, { panePid: pane.pid, tmuxProgram: run.tmuxProgram })
      if (input === "reading") {
        if (yield* withdraw(run)) return Option.some<Ending>("not_started")
      } else if (Option.getOrElse(yield* lineUnfetched(run), () => true)) {
        // The line waits in the terminal for a shell that has not read it yet: it runs once it does.
        return Option.none<Ending>()
      }
      run.handle = { ...run.handle, fetched_by: now }
      return Option.none<Ending>()
    }
    if (now - run.handle.fetched_by < FETCH_GRACE_MS) return Option.none<Ending>()
    // A host's log reaches this process at its hand-over: before judging, it is read there.
    if (run.remote !== undefined && !(yield* readOnHost(run))) return Option.none<Ending>()
    if (run.framed.state.started) return Option.none<Ending>()
    if (!startMayBeLost(run, pane)) return Option.some<Ending>("not_started")
    // The line was fetched and whatever it printed may have scrolled away: it ran, as far as can be told.
    run.framed.assumeStarted()
    return Option.none<Ending>()
  })

/** Polls until the command ends, the pane dies, the line proves not to run, or the time is up (none). */
const waitForEnd = (run: Run, timeout: EffectiveTimeout) =>
  Effect.gen(function*() {
    let lastPaneCheck = yield* Clock.currentTimeMillis
    const lastWords = Effect.map(
      readNew(run).pipe(Effect.andThen(awaitHandOver(run)), Effect.catch(() => Effect.void)),
      () => (run.framed.state.ended ? "ended" : "died") as Ending
    )
    const waited = yield* pollUntil(
      Effect.gen(function*() {
        const status = yield* readNew(run)
        if (run.framed.state.ended) {
          return Option.some<Ending>("ended")
        }
        if (status === "pane_gone" && (run.remote === undefined || (yield* paneNow(run)) === undefined)) {
          return Option.some<Ending>("died")
        }
        if (status === "recorder_stopped") {
          // The recorder is gone without the end: the pane died (or its server), or a line that looked
          // like the end, or someone else's pipe, stopped it. The rest is in the pane's history.
          if ((yield* paneNow(run)) === undefined) {
            return Option.some(yield* lastWords)
          }
          run.handle = { ...run.handle, source: "scrollback" }
          lastPaneCheck = yield* Clock.currentTimeMillis
          return Option.none<Ending>()
        }
        const now = yield* Clock.currentTimeMillis
        if (now - lastPaneCheck < PANE_CHECK_MS) {
          return Option.none<Ending>()
        }
        lastPaneCheck = now
        const pane = yield* paneNow(run)
        // The last words of a pane that died may still be in the log.
        if (pane === undefined) {
          return Option.some(yield* lastWords)
        }
        if (run.framed.state.started) {
          const takenOver = pane.stopped === run.handle.id || (pane.claim !== "" && pane.claim !== run.handle.id)
          return takenOver ? Option.some<Ending>("taken_over") : Option.none<Ending>()
        }
        return yield* startVerdict(run, pane)
      }).pipe(Effect.catchIf(isLinkTrouble(run), () => Effect.succeed(Option.none<Ending>()))),
      // A log is a local file, cheap to look at often; a history capture is a tmux process each
      // time, and a remote run's record a round trip over the link, whose looks a stalled link
      // must not hold past the wait's end.
      run.handle.source === "pipe" && run.remote === undefined
        ? { timeout, firstInterval: 10, maxInterval: 100, message: `waiting for the command in ${run.handle.pane_id}` }
        : { timeout, message: `waiting for the command in ${run.handle.pane_id}`, boundLooks: run.remote !== undefined }
    )
    if (Option.isSome(waited.value) || run.remote === undefined) return waited
    // The time is up: what the command printed so far is on the host, and may hold its end.
    yield* readOnHost(run).pipe(Effect.timeout(LAST_READ_MS), Effect.ignore)
    return run.framed.state.ended ? { ...waited, value: Option.some<Ending>("ended") } : waited
  })

/** Undoes what the run set up, each part only if it is still the run's: its pipe, its claim, its buffer, its log. */
export const releaseRun = (run: Run, options: { readonly buffer: boolean }) =>
  Effect.gen(function*() {
    const tmux = yield* Tmux
    const { id, pane_id } = run.handle
    // A remote run's record first: it does not need the pane, and commands after one that fails on a gone pane do not run.
    const record = run.remote === undefined ? [] : releaseRecordCommands(id)
    yield* tmux.run(run.socket, [...record, ...closePipeCommands(pane_id, id), ...releaseClaimCommands(pane_id, id)]).pipe(Effect.ignore)
    if (options.buffer) yield* withdraw(run)
    yield* removeLog(run.log)
  })

/** Waits, interrupts if asked, and shapes the result; the run is released on every path that ends it. */
export const finishRun = (run: Run, request: WaitRequest, serverGone = false) =>
  Effect.gen(function*() {
    const release = () => releaseRun(run, { buffer: !run.framed.state.started })
    let ending: Ending | undefined
    if (serverGone) {
      // Nothing to wait for: read what the log holds and report the pane gone with its server.
      yield* readNew(run).pipe(Effect.catch(() => Effect.void))
      ending = run.framed.state.ended ? "ended" : "died"
    } else {
      const waited = yield* waitForEnd(run, request.timeout).pipe(Effect.onInterrupt(release))
      ending = Option.getOrUndefined(waited.value)
    }
    let interruptSent = false
    let stopped: boolean | null = null
    // A link that is down cannot carry the C-c: the run then goes on, its handle returned.
    const unreachable = <A, R>(look: Effect.Effect<A, TmuxError, R>) =>
      Effect.catchIf(look, isLinkTrouble(run), () => Effect.succeed("unreachable" as const))
    if (ending === undefined && request.interruptOnTimeout) {
      const pane = yield* unreachable(paneNow(run))
      if (pane === "unreachable") {
        // Left as timed out.
      } else if (pane === undefined) ending = "died"
      else if (!run.framed.state.started) {
        // C-c would hit whatever keeps the shell from our line; withdrawing the line is the stop.
        if (yield* withdraw(run)) ending = "not_started"
      } else {
        // Our command runs in that same pane process (started, not ended, same pid): C-c is for it.
        interruptSent = true
        yield* (yield* Tmux).run(run.socket, [["send-keys", "-t", run.handle.pane_id, "C-c"]]).pipe(Effect.ignore)
        const grace = yield* waitForEnd(run, { seconds: INTERRUPT_GRACE_MS / 1000, clamped: false }).pipe(Effect.onInterrupt(release))
        ending = Option.getOrUndefined(grace.value)
        if (ending === undefined) {
          // bash and zsh drop the rest of the typed line when C-c kills its command, end marker included:
          // the shell back in the foreground is the sign that the command stopped.
          const after = yield* unreachable(paneNow(run))
          if (after !== "unreachable") {
            stopped = after !== undefined && judgeShell(after.command)._tag !== "NotAShell"
            if (after === undefined) ending = "died"
          }
        } else stopped = true
      }
    }
    if (ending === "taken_over") stopped = true
    const state = run.framed.state
    const outcome: CommandResult["outcome"] = ending === "ended" && !interruptSent
      ? "completed"
      : ending === "died"
      ? state.shellExited ? "shell_exited" : "pane_died"
      : ending === "not_started"
      ? "not_started"
      : "timed_out"
    const keepWaiting = outcome === "timed_out" && stopped !== true
    if (!keepWaiting) yield* release()
    if (outcome !== "shell_exited") run.framed.settle()
    const bounded = outcome === "not_started" ? preambleOf(run) : run.framed.budget.result()
    // A command that did not start printed nothing: nothing matched.
    const matched = !run.shape.matching
      ? undefined
      : outcome === "not_started"
      ? { matches: [], match_count: 0 }
      : withUnreadNotes(run, matchReportOf(run.framed.budget))
    const handle: CommandHandle = {
      ...run.handle,
      offset: run.handle.source === "pipe" ? run.framed.offset : 0,
      started: state.started,
      returned_lines: run.handle.returned_lines + bounded.lines_total
    }
    const result: CommandResult = {
      pane_id: run.handle.pane_id,
      outcome,
      exit_status: state.ended || outcome === "shell_exited" ? state.exitStatus : null,
      output: joinBounded(bounded),
      lines_total: bounded.lines_total,
      elided_lines: bounded.elided_lines,
      elided_after_line: bounded.elided_after_line,
      // Output that scrolled out of the pane's history before it was read is left out too, and so
      // is the middle of a line too long to keep whole.
      truncated: bounded.truncated || (outcome !== "not_started" && (run.framed.startLost || run.framed.cutLines > 0)),
      cut_lines: bounded.cut_lines + (outcome === "not_started" ? 0 : run.framed.cutLines),
      ...matched,
      earlier_lines: run.handle.returned_lines,
      started: state.started,
      interrupt_sent: interruptSent,
      command_stopped: stopped,
      handle: keepWaiting ? encodeHandle(run.key, handle) : null,
      elapsed_ms: Math.max(0, (yield* Clock.currentTimeMillis) - run.handle.typed_at),
      shell: run.handle.shell,
      output_source: run.handle.source,
      effective_timeout: request.timeout.seconds,
      timeout_clamped: request.timeout.clamped
    }
    return result
  })

/** A search also misses what the framed output never read whole (see unreadNotes). */
const withUnreadNotes = (run: Run, report: MatchReport | undefined): MatchReport | undefined => {
  if (report === undefined) return undefined
  const notes = [...(report.match_missed === undefined ? [] : [report.match_missed]), ...unreadNotes(run.framed)]
  return notes.length === 0 ? report : { ...report, match_missed: notes.join("; ") }
}

/** What the pane showed in place of a command that did not start, within the output budget. */
const preambleOf = (run: Run) => {
  const budget = run.shape.unmatched()
  for (const line of run.framed.preamble) budget.push(line)
  return budget.result()
}
