/**
 * run_command and wait_for_command: a command typed into a pane's own shell (see CommandFraming),
 * the pane claimed in tmux for it (see PaneClaim), its whole output recorded by `pipe-pane` into a
 * private log (see RunLogs), the wait done here (see CommandWait), and an honest outcome: completed
 * with the exit status, timed_out with a handle to keep waiting (optionally after C-c), pane_died,
 * or not_started when the shell did not run the line. Cancelling the call (an MCP cancel) stops the
 * wait, not the command; the recording is then stopped and its log removed.
 *
 * A pane on a remote host (issue 22) runs its shell there: the typed line, the framing and the
 * recorder name that host's paths and tmux only, the log is kept on the host (see RemoteRunLogs;
 * a host without a private run directory gets its commands read from the pane's history,
 * output_source scrollback), and this machine keeps only the handle's key and the run's record.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type { InvocationContext } from "../../context/InvocationContext.js"
import { isRemoteHost, RemoteHosts } from "../../context/RemoteHosts.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { TmuxMcpConfig } from "../../context/TmuxMcpConfig.js"
import { Conflict, Denied, Failed, InvalidInput, NotFound, type ToolError } from "../../domain/Errors.js"
import { PaneId } from "../../domain/Ids.js"
import { generationOf, Int, NonNegativeInt } from "../../domain/Model.js"
import * as Format from "../../tmux/Format.js"
import { decode, decodeServerIdentity, queryTree, serverIdentityCommand } from "../../tmux/Query.js"
import { Tmux, type TmuxCommand } from "../../tmux/Tmux.js"
import { BudgetFields } from "../bounds/OutputBudget.js"
import { MatchFields, type MatchSpec } from "../bounds/OutputMatches.js"
import { type EffectiveTimeout, timeoutFields } from "../bounds/Waiting.js"
import { lookupPane } from "../hierarchy/Hierarchy.js"
import { hasNoSessionYet, rereadWhileStarting, serverProgramName } from "../hierarchy/PaneStart.js"
import { deleteTmuxBuffer } from "../input/Buffers.js"
import { ensureGeneration, type GenerationCheck } from "../servers/Servers.js"
import { type CommandHandle, decodeHandle, handleKey, OutputSource } from "./CommandHandle.js"
import {
  commandBufferName,
  FramedOutput,
  framingScript,
  judgeShell,
  layTypedLine,
  newRunId,
  newRunSecret,
  typedLine
} from "./internal/CommandFraming.js"
import { outputShape } from "./internal/CommandOutput.js"
import { finishRun, lookAgainIfGone, releaseRun, type Run, tmuxProgramFor } from "./internal/CommandWait.js"
import {
  claimCommand,
  type ClaimState,
  claimStateRecord,
  isClaimValue,
  refusedClaimRecord,
  runBufferRecord,
  runBuffersCommand,
  STALE_UNFETCHED_S
} from "./internal/PaneClaim.js"
import {
  claimRecordCommands,
  REMOTE_LEASE,
  REMOTE_TMUX_PROGRAM,
  type RemoteLog,
  remoteLogPath,
  remoteRecorderCommand,
  staleRuns,
  sweepCommands,
  sweepListCommands
} from "./internal/RemoteRunLogs.js"
import { runLease } from "./internal/RunLease.js"
import { createLog, logDirectory, logExists, logPath, recorderCommand, remoteRunRecordPath, removeLog } from "./internal/RunLogs.js"
import { shellInput } from "./internal/ShellInput.js"

/** A command's text travels in a tmux buffer; this keeps one call's payload reasonable. */
export const MAX_COMMAND_BYTES = 262_144
/** A claim whose command seems stopped is looked at twice, this far apart, before it is taken over. */
const STALE_CONFIRM_MS = 300

/** How a command's wait ended. */
export const CommandOutcome = Schema.Literals(["completed", "shell_exited", "timed_out", "pane_died", "not_started"]).annotate({
  description:
    "completed: the command finished (exit_status is set). shell_exited: it ended the shell (exit; bash, zsh), exit_status is the shell's. timed_out: the wait ran out; unless interrupt stopped it the command still runs and handle lets wait_for_command carry on. pane_died: the pane closed or its program exited before the command finished. not_started: the shell did not run the line (an unfinished quote, a program reading input, or text already there took it); it was withdrawn and will not run later; output shows the pane's last lines."
})

/**
 * A command's outcome, exit status and output (head and tail, bounded), with a handle to keep
 * waiting while it runs.
 */
export const CommandResult = Schema.Struct({
  pane_id: PaneId,
  outcome: CommandOutcome,
  exit_status: Schema.NullOr(Int).annotate({ description: "The command's exit status; null unless completed or shell_exited." }),
  output: Schema.String.annotate({
    description:
      "What the command printed (stdout and stderr as the terminal showed them), new since the last call for this command; escapes and other terminal controls stripped unless keep_escapes. With match or tail_lines: its last lines. For not_started: what the pane showed instead."
  }),
  ...BudgetFields,
  ...MatchFields,
  earlier_lines: NonNegativeInt.annotate({ description: "Output lines returned by earlier calls for the same command." }),
  started: Schema.Boolean.annotate({
    description:
      "The shell began running the command. false after a timeout means the shell has not taken the line yet (a not_started answer follows if it does not)."
  }),
  interrupt_sent: Schema.Boolean.annotate({ description: "C-c was sent because the wait ran out (interrupt_on_timeout)." }),
  command_stopped: Schema.NullOr(Schema.Boolean).annotate({
    description:
      "After the C-c: whether the command stopped (the shell is back in the foreground). Also true, without a C-c of ours, when another run_command found the command stopped (as after a C-c typed by someone else) and took the pane over. null otherwise."
  }),
  handle: Schema.NullOr(Schema.String).annotate({
    description:
      "Pass to wait_for_command to keep waiting for this command; null once it ended. It stays valid while the pane and its tmux server live, until wait_for_command reports the end."
  }),
  elapsed_ms: NonNegativeInt.annotate({ description: "Milliseconds since the command was typed (across calls)." }),
  shell: Schema.String,
  output_source: OutputSource,
  ...timeoutFields
})
export type CommandResult = typeof CommandResult.Type

/** How much of a command's output a result holds, and whether terminal escapes stay in it. */
export interface OutputOptions {
  readonly maxLines: number
  readonly maxBytes: number
  readonly keepEscapes: boolean
  /** Only the last lines, instead of head and tail (default DEFAULT_MATCH_TAIL_LINES with match). */
  readonly tailLines?: number | undefined
  /** Lines to find in the whole output: they come back as matches, with the tail as the output. */
  readonly match?: MatchSpec | undefined
}

/** A command to run in a pane's shell and how long to wait for it. */
export interface RunRequest extends OutputOptions, GenerationCheck {
  readonly command: string
  readonly timeout: EffectiveTimeout
  readonly interruptOnTimeout: boolean
  /** Run even in a pane a person is watching. */
  readonly force: boolean
}

/** How long to keep waiting for a command started earlier. */
export interface WaitRequest extends OutputOptions {
  readonly timeout: EffectiveTimeout
  readonly interruptOnTimeout: boolean
}

type Services = Tmux | TmuxMcpConfig | InvocationContext

const invalid = (reason: string) => Effect.fail(new InvalidInput({ reason }))
const conflict = (kind: Conflict["kind"], reason: string) => new Conflict({ kind, reason })

/** Why the pane's state refuses a command now, if it does (claims aside). */
const stateConflict = (paneId: string, state: ClaimState): Conflict | undefined => {
  if (state.dead) return conflict("dead", `pane ${paneId} is dead (its program exited).`)
  if (state.in_mode) return conflict("copy_mode", `pane ${paneId} is in copy mode (or another tmux mode): keys would go to that mode.`)
  if (state.alternate) {
    return conflict(
      "full_screen",
      `pane ${paneId} shows a full-screen program (${state.command}); run_command needs a shell at its prompt.`
    )
  }
  const verdict = judgeShell(state.command)
  if (verdict._tag === "OtherShell") {
    return conflict(
      "unsupported_shell",
      `pane ${paneId} runs ${verdict.shell}, whose syntax run_command cannot frame safely (it supports bash, zsh, sh, dash, ksh).`
    )
  }
  if (verdict._tag === "NotAShell") {
    return state.claim === ""
      ? conflict("busy", `pane ${paneId} is busy: its foreground program is ${verdict.program || "unknown"}, not a shell at its prompt.`)
      : pending(paneId)
  }
  return undefined
}

const pending = (paneId: string) => conflict("run_pending", `pane ${paneId} is taken by another run_command, whose command has not ended.`)

const readState = (socket: ResolvedSocket, paneId: string) =>
  Effect.gen(function*() {
    const output = yield* queryTree(socket, (m) => [["list-panes", "-t", paneId, "-F", claimStateRecord.format(m)]], {
      kind: "pane",
      id: paneId
    })
    const state = (yield* decode(claimStateRecord, output)).find((row) => row.pane_id === paneId)
    if (state === undefined) return yield* Effect.fail(new NotFound({ kind: "pane", target: paneId, socket: socket.label }))
    return state
  })

/**
 * A pane whose foreground program still bears the server's own name has not started its program
 * yet (PaneStart): its state is read again until it has (rereadWhileStarting).
 */
const awaitPaneStart = (socket: ResolvedSocket, paneId: string, state: ClaimState, serverPid: number) =>
  Effect.gen(function*() {
    // Only a pane that would be refused as busy is worth the look at the server's name.
    if (state.claim !== "" || state.dead || judgeShell(state.command)._tag !== "NotAShell") return state
    const serverName = yield* serverProgramName(socket, serverPid)
    const isStarting = (current: ClaimState) => {
      const verdict = judgeShell(current.command)
      // `env`: the create tools start a one-word command as `env -- <command>` (Spawn), which execs it at once.
      // No session yet (before the child's setsid): tmux names the command it was given
      // ("HISTFILE=/dev/null bash" reads as `null`), whatever it is.
      return current.claim === "" && !current.dead && verdict._tag === "NotAShell" &&
        (verdict.program === serverName || verdict.program === "env" || hasNoSessionYet(current))
    }
    return yield* rereadWhileStarting(state, isStarting, readState(socket, paneId))
  })

/** The tmux program as a job of `socket`'s server (the pane's shell, a recorder, a probe) runs it. */
const tmuxProgramOf = (socket: ResolvedSocket, tmuxBin: string) => isRemoteHost(socket.host) ? REMOTE_TMUX_PROGRAM : tmuxProgramFor(tmuxBin)

/**
 * Judges the claim another run left on the pane: the state to claim over (the claim is stale), or
 * the refusal (it is not).
 */
const judgeClaim = (
  socket: ResolvedSocket,
  paneId: string,
  state: ClaimState,
  buffers: ReadonlyArray<{ name: string; created: number }>,
  tmuxProgram: string
) =>
  Effect.gen(function*() {
    if (!isClaimValue(state.claim)) return yield* Effect.fail(pending(paneId))
    const buffer = buffers.find((row) => row.name === commandBufferName(state.claim))
    if (buffer !== undefined) {
      // Typed but never fetched: a live run_command withdraws it long before this, unless the line
      // waits in the terminal for a shell that is still starting (ShellInput): that run is live.
      if ((yield* Clock.currentTimeMillis) / 1000 - buffer.created < STALE_UNFETCHED_S) return yield* Effect.fail(pending(paneId))
      if (state.pid !== null && (yield* shellInput(socket, { panePid: state.pid, tmuxProgram })) === "busy") {
        return yield* Effect.fail(pending(paneId))
      }
      yield* deleteTmuxBuffer(socket, buffer.name)
      return state
    }
    // Fetched, and the shell is in the foreground: the command ended without its end (a C-c drops
    // the rest of the framing), or runs shell builtins only (`read x`), which only the framing's
    // lease tells apart. Seen so twice, it counts as stopped.
    if ((yield* runLease(socket, state.pid, state.claim)) === "held") return yield* Effect.fail(pending(paneId))
    yield* Effect.sleep(STALE_CONFIRM_MS)
    const again = yield* readState(socket, paneId)
    const refusal = stateConflict(paneId, again)
    if (refusal !== undefined) return yield* Effect.fail(refusal)
    if (again.claim !== state.claim || (yield* runLease(socket, again.pid, again.claim)) === "held") {
      return yield* Effect.fail(pending(paneId))
    }
    return again
  })

/** A shell that has not drawn its prompt yet is looked at again after this, then less often (each look runs a probe). */
const PROMPT_POLL_MS = 50
const PROMPT_POLL_MAX_MS = 500

/**
 * Waits, within the run's timeout, for a shell that is still starting (its rc file running) to
 * show its prompt and read its terminal. A line typed before that is echoed twice (by the terminal
 * at once, by the line editor when it reads it) where the script cannot erase it, and before
 * rc files' output. A prompt leaves the cursor past its first column: only a pane whose cursor is
 * in the first column is looked at (ShellInput), so a shell at its prompt costs nothing. The
 * answer is where the cursor is (only that: the claim goes through only if the pane is still as
 * first read), and `shown`: the prompt is drawn there (or the shell reads its terminal); false
 * when the time ran out first: the line is typed anyway, and waits for the shell as it always did.
 */
const awaitPrompt = (socket: ResolvedSocket, paneId: string, state: ClaimState, tmuxProgram: string, timeout: EffectiveTimeout) =>
  Effect.gen(function*() {
    let cursor = { x: state.cursor_x, width: state.width }
    const deadline = (yield* Clock.currentTimeMillis) + timeout.seconds * 1000
    let interval = PROMPT_POLL_MS
    const reread = Effect.map(readState(socket, paneId), (now) => ({ x: now.cursor_x, width: now.width }))
    while (cursor.x === 0 && state.pid !== null) {
      const input = yield* shellInput(socket, { panePid: state.pid, tmuxProgram })
      // The prompt may have been drawn since the pane was read.
      if (input !== "busy") return { cursor: yield* reread, shown: true, probed: true }
      if ((yield* Clock.currentTimeMillis) + interval >= deadline) return { cursor, shown: false, probed: true }
      yield* Effect.sleep(interval)
      interval = Math.min(PROMPT_POLL_MAX_MS, Math.round(interval * 1.5))
      cursor = yield* reread
    }
    return { cursor, shown: true, probed: false }
  })

/** The keys that empty the shell's edit line first: a terminal's reply or half-typed text would run in front of our line. */
const clearLineKeys = (shell: string): ReadonlyArray<string> =>
  // End first so C-u (kill backwards) takes the whole line wherever the cursor was; zsh's C-u
  // kills the whole line already, and its vi mode would read End's escape as a mode switch.
  shell === "zsh" ? ["C-u"] : ["End", "C-u"]

/**
 * Where a run on `socket`'s server keeps its log: undefined on this machine; on a remote host, the
 * log's path in the host's run directory (null when the host has none).
 */
const remoteLogOf = (socket: ResolvedSocket, id: string): Effect.Effect<RemoteLog | undefined, Failed> =>
  Effect.gen(function*() {
    if (!isRemoteHost(socket.host)) return undefined
    const hosts = yield* Effect.serviceOption(RemoteHosts)
    if (Option.isNone(hosts)) {
      return yield* Effect.fail(
        new Failed({ command: "run_command", reason: "refused", exitCode: null, stderr: `no hosts file configures host ${socket.host}` })
      )
    }
    const { runDirectory } = yield* hosts.value.view(socket.host)
    return { log: runDirectory === null ? null : remoteLogPath(runDirectory, id) }
  })

/** Removes the logs handed over on a remote server that nobody came for (see RemoteRunLogs); a failure is left for the next run. */
const sweepHandedOver = (socket: ResolvedSocket) =>
  Effect.gen(function*() {
    const tmux = yield* Tmux
    const clock = `etm.clock.${newRunId()}`
    const stale = staleRuns(yield* tmux.run(socket, sweepListCommands(clock)), clock)
    if (stale.length > 0) yield* tmux.run(socket, sweepCommands(stale))
  }).pipe(Effect.ignore)

/**
 * Types shell text into a pane's own shell (its state, such as `cd` and `export`, persists) and
 * waits for its end; refuses busy panes, panes another run holds, and the caller's pane and watched
 * panes unless forced.
 */
export const runCommand = Effect.fn("RunCommand.runCommand")((
  socket: ResolvedSocket,
  paneId: string,
  request: RunRequest
): Effect.Effect<CommandResult, ToolError, Services> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, request.generation)
    const config = yield* TmuxMcpConfig
    const { command } = request
    if (command.trim() === "") return yield* invalid("command is empty; pass the shell command to run.")
    if (command.includes("\0")) return yield* invalid("command must not contain NUL characters.")
    if (Buffer.byteLength(command, "utf8") > MAX_COMMAND_BYTES) {
      return yield* invalid(`command must be at most ${MAX_COMMAND_BYTES} bytes; put a long script in a file and run that.`)
    }

    const shape = yield* outputShape(request)
    const looked = yield* lookupPane(
      socket,
      paneId,
      (m) => [["display-message", "-p", "-t", paneId, claimStateRecord.format(m)], runBuffersCommand(m)]
    )
    const { pane, server, output } = looked
    let state: ClaimState | undefined = (yield* decode(claimStateRecord, output)).find((row) => row.pane_id === paneId)
    if (state === undefined) return yield* Effect.fail(new NotFound({ kind: "pane", target: paneId, socket: socket.label }))
    state = yield* awaitPaneStart(socket, paneId, state, server.pid)
    const refusal = stateConflict(paneId, state)
    if (refusal?.kind === "dead") return yield* Effect.fail(refusal)
    // The caller's own pane is refused by the tool (refuseCallerPaneUnlessForced), as for send_keys.
    if (!request.force && pane.is_attended) return yield* Effect.fail(watched(paneId))
    if (refusal !== undefined) return yield* Effect.fail(refusal)
    const tmuxProgram = tmuxProgramOf(socket, config.tmuxBin)
    if (state.claim !== "") state = yield* judgeClaim(socket, paneId, state, yield* decode(runBufferRecord, output), tmuxProgram)
    if (judgeShell(state.command)._tag !== "Frameable") return yield* Effect.fail(pending(paneId))
    const promptSince = yield* Clock.currentTimeMillis
    const prompt = yield* awaitPrompt(socket, paneId, state, tmuxProgram, request.timeout)
    // The time spent waiting for the prompt counts against the timeout.
    const spent = (yield* Clock.currentTimeMillis) - promptSince
    if (prompt.probed) {
      // A shell looked at while it started may have become another program since (`sh -c 'exec
      // bash'`, the create tools' `env`), or another run may have claimed it: the claim needs the pane as it is now.
      state = yield* awaitPaneStart(socket, paneId, yield* readState(socket, paneId), server.pid)
      const now = stateConflict(paneId, state)
      if (now !== undefined) return yield* Effect.fail(now)
      if (state.claim !== "") return yield* Effect.fail(pending(paneId))
    }
    const shell = judgeShell(state.command)
    if (shell._tag !== "Frameable") return yield* Effect.fail(pending(paneId))

    const dir = yield* logDirectory(config.tmuxTmpdir, config.uid)
    const key = yield* handleKey(dir)
    const id = newRunId()
    const secret = newRunSecret()
    const remote = yield* remoteLogOf(socket, id)
    if (remote !== undefined) yield* sweepHandedOver(socket)
    // A pipe of the pane's own is left alone (tmux allows one); a leftover recorder of ours is replaced.
    const ownPipe = !state.pipe || (state.pipe_owner !== "" && isClaimValue(state.pipe_owner))
    // A host without a run directory has nowhere to record: the pane's history is read instead.
    const remoteLog = remote?.log ?? null
    const recording = ownPipe && (remote === undefined || remoteLog !== null)
    const source = recording ? "pipe" : "scrollback"
    const log = remote === undefined ? logPath(dir, id) : remoteRunRecordPath(dir, id)
    yield* createLog(log)
    const handle: CommandHandle = {
      id,
      secret,
      socket: socket.path,
      generation: generationOf(server),
      pane_id: paneId,
      pane_pid: pane.pid,
      shell: shell.shell,
      source,
      offset: 0,
      started: false,
      fetched_by: null,
      returned_lines: 0,
      typed_at: yield* Clock.currentTimeMillis,
      // wait_for_command finds the socket again on this host (CommandHandle.handleSocket).
      ...(isRemoteHost(socket.host) ? { host: socket.host } : {})
    }
    const run: Run = {
      socket,
      log,
      remote,
      key,
      handle,
      shape,
      tmuxProgram,
      framed: new FramedOutput({ id, secret }, shape.sink(1), request.keepEscapes, {
        started: false,
        offset: 0
      })
    }

    const laid = layTypedLine(
      typedLine({ id, socketPath: socket.path, tmuxProgram, suppressHistory: config.suppressHistory }),
      prompt.cursor.x,
      prompt.cursor.width
    )
    const typing: ReadonlyArray<TmuxCommand> = [
      ["load-buffer", "-b", commandBufferName(id), "-"],
      ["send-keys", "-t", paneId, ...clearLineKeys(shell.shell)],
      ["send-keys", "-t", paneId, "-l", "--", laid.line],
      ["send-keys", "-t", paneId, "Enter"]
    ]
    // remoteLog is null on this machine, a path when recording on a host.
    const recorder = !recording
      ? null
      : remoteLog === null
      ? recorderCommand({ id, log, paneId, socketPath: socket.path, tmuxProgram })
      : remoteRecorderCommand({ id, log: remoteLog, paneId, socketPath: socket.path, tmuxProgram })
    // A remote run's record is set before its recorder can hand anything over.
    const setup = recorder !== null && remoteLog !== null ? { setup: claimRecordCommands(id) } : {}
    const marks = Format.newMarks()
    // What the recorder watches for: it learns it from the start, in the pane's byte stream.
    const recorderKey = recorder === null ? undefined : newRunSecret()
    const claim = { paneId, id, seen: state, recorder, typing, ...setup }
    const claimed = yield* (yield* Tmux)
      .run(socket, [claimCommand(marks, claim)], {
        stdin: framingScript({ id, secret }, command, {
          shell: shell.shell,
          lease: remote === undefined ? log : REMOTE_LEASE,
          // A recorder reads the byte stream; a history read needs markers it can see.
          markers: recording ? "hidden" : "visible",
          recorderKey,
          // A line typed before the shell showed its prompt is echoed where the prompt is not yet known.
          tidy: prompt.shown ? laid.tidy : undefined
        })
      })
      // Failed or cancelled part-way: whatever of the claim, pipe and buffer was set is taken back.
      .pipe(Effect.onError(() => releaseRun(run, { buffer: true })))
    const refused = (yield* decode(refusedClaimRecord, Format.parseOutput(claimed, marks))).find((row) => row.pane_id === paneId)
    if (refused !== undefined) {
      // Another run_command (or a program, or a person) got there between our look and our claim.
      yield* removeLog(log)
      return yield* Effect.fail(stateConflict(paneId, refused) ?? pending(paneId))
    }
    const waiting = { ...request.timeout, seconds: Math.max(0, request.timeout.seconds - spent / 1000) }
    const result = yield* finishRun(run, { ...request, timeout: waiting })
    return { ...result, effective_timeout: request.timeout.seconds }
  })
)

const watched = (paneId: string) =>
  new Denied({
    kind: "watched",
    reason:
      `Refusing to run a command in ${paneId}: a person's tmux client shows that pane right now, and typing there would mix with what they do.`
  })

/**
 * Reads a handle a caller gives back: signed by a server of this user, and not spent (a handle of a
 * command that was reported ended, or whose record expired, is refused as well).
 */
export const openHandle = Effect.fn("RunCommand.openHandle")((
  text: string
): Effect.Effect<CommandHandle, InvalidInput | ToolError, TmuxMcpConfig> =>
  Effect.gen(function*() {
    const config = yield* TmuxMcpConfig
    const dir = yield* logDirectory(config.tmuxTmpdir, config.uid)
    const handle = yield* decodeHandle(yield* handleKey(dir), text)
    if (!(yield* logExists(handle.host === undefined ? logPath(dir, handle.id) : remoteRunRecordPath(dir, handle.id)))) {
      return yield* invalid(
        "handle's command has already ended and its result was returned (a handle works until then), or its record expired."
      )
    }
    return handle
  })
)

/**
 * Keeps waiting for a command that timed out, by its handle (see `openHandle`): the output since,
 * and the exit status once it completes.
 */
export const waitForCommand = Effect.fn("RunCommand.waitForCommand")((
  socket: ResolvedSocket,
  handle: CommandHandle,
  request: WaitRequest
): Effect.Effect<CommandResult, ToolError, Services> =>
  Effect.gen(function*() {
    const config = yield* TmuxMcpConfig
    const shape = yield* outputShape(request)
    const output = yield* lookAgainIfGone(
      socket,
      queryTree(socket, (m) => [serverIdentityCommand(m)], { kind: "server", id: socket.path }).pipe(
        Effect.catchTag("NoServer", () => Effect.succeed(undefined))
      )
    )
    const server = output === undefined ? undefined : yield* decodeServerIdentity(output)
    if (server !== undefined && generationOf(server) !== handle.generation) {
      return yield* Effect.fail(new NotFound({ kind: "server", target: handle.generation, socket: socket.label }))
    }
    const dir = yield* logDirectory(config.tmuxTmpdir, config.uid)
    const remote = yield* remoteLogOf(socket, handle.id)
    const run: Run = {
      socket,
      log: handle.host === undefined ? logPath(dir, handle.id) : remoteRunRecordPath(dir, handle.id),
      remote,
      key: yield* handleKey(dir),
      handle,
      shape,
      tmuxProgram: tmuxProgramOf(socket, config.tmuxBin),
      framed: new FramedOutput(handle, shape.sink(handle.returned_lines + 1), request.keepEscapes, {
        started: handle.started,
        offset: handle.source === "pipe" ? handle.offset : 0
      })
    }
    // A server that is gone took the pane with it.
    return yield* finishRun(run, request, server === undefined)
  })
)
