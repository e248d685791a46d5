/**
 * run_command and wait_for_command: a command typed into a pane's own shell (see CommandFraming),
 * its whole output recorded by `pipe-pane` into a private log (see RunLogs), the wait done here
 * (polling the log, and tmux once a second for the pane's life), and an honest outcome: completed
 * with the exit status, timed_out with a handle to keep waiting (optionally after C-c), or
 * pane_died. Cancelling the call (an MCP cancel) stops the wait, not the command; the recording
 * is then stopped and its log removed.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Denied, InvalidInput, NotFound, type TmuxError, type ToolError } from "../domain/Errors.js"
import { PaneId } from "../domain/Ids.js"
import { generationOf, Int, NonNegativeInt } from "../domain/Model.js"
import { Config } from "../services/Config.js"
import type { InvocationContext } from "../services/InvocationContext.js"
import type { ResolvedSocket } from "../services/SocketResolver.js"
import * as Format from "../tmux/Format.js"
import { Tmux } from "../tmux/Tmux.js"
import { type CommandHandle, encodeHandle, OutputSource } from "./CommandHandle.js"
import { commandBufferName, FramedOutput, judgeShell, newRunId, typedLine } from "./CommandFraming.js"
import { lookupPane } from "./Hierarchy.js"
import { BudgetFields, HeadTail, joinBounded } from "./OutputBudget.js"
import { decode, decodeServerIdentity, queryTree, runTree, serverIdentityCommand } from "./Query.js"
import { createLog, logDirectory, logPath, readLog, recorderCommand, removeLog } from "./RunLogs.js"
import { type EffectiveTimeout, pollUntil, timeoutFields } from "./Waiting.js"

/** A command's text travels in a tmux buffer; this keeps one call's payload reasonable. */
export const MAX_COMMAND_BYTES = 262_144
/** How often the pane itself is checked while waiting (the log is read far more often). */
const PANE_CHECK_MS = 1000
/** After C-c, how long to watch for the command to stop. */
const INTERRUPT_GRACE_MS = 2000

export const CommandOutcome = Schema.Literal("completed", "timed_out", "pane_died").annotations({
  description:
    "completed: the command finished (exit_status is set). timed_out: the wait ran out; unless interrupt stopped it the command still runs and handle lets wait_for_command carry on. pane_died: the pane closed or its program exited before the command finished."
})

export const CommandResult = Schema.Struct({
  pane_id: PaneId,
  outcome: CommandOutcome,
  exit_status: Schema.NullOr(Int).annotations({ description: "The command's exit status; null unless completed." }),
  output: Schema.String.annotations({
    description: "What the command printed (stdout and stderr as the terminal showed them), new since the last call for this command; escapes stripped unless keep_escapes."
  }),
  ...BudgetFields,
  earlier_lines: NonNegativeInt.annotations({ description: "Output lines returned by earlier calls for the same command." }),
  started: Schema.Boolean.annotations({
    description: "The shell began running the command. false after a timeout means it is still waiting for the shell (busy, or stuck on an unfinished quote of earlier input)."
  }),
  interrupt_sent: Schema.Boolean.annotations({ description: "C-c was sent because the wait ran out (interrupt_on_timeout)." }),
  command_stopped: Schema.NullOr(Schema.Boolean).annotations({
    description: "After the C-c: whether the command stopped (the shell is back in the foreground). null when no C-c was sent."
  }),
  handle: Schema.NullOr(Schema.String).annotations({
    description: "Pass to wait_for_command to keep waiting for this command; null once it ended. It stays valid while the pane and its tmux server live."
  }),
  elapsed_ms: NonNegativeInt.annotations({ description: "Milliseconds since the command was typed (across calls)." }),
  shell: Schema.String,
  output_source: OutputSource,
  ...timeoutFields
})
export type CommandResult = typeof CommandResult.Type

export interface OutputOptions {
  readonly maxLines: number
  readonly maxBytes: number
  readonly keepEscapes: boolean
}

export interface RunRequest extends OutputOptions {
  readonly command: string
  readonly timeout: EffectiveTimeout
  readonly interruptOnTimeout: boolean
  /** Run even in a pane a person is watching. */
  readonly force: boolean
}

export interface WaitRequest extends OutputOptions {
  readonly timeout: EffectiveTimeout
  readonly interruptOnTimeout: boolean
}

const runStateRecord = Format.record("run", {
  pane_id: Format.string("pane_id"),
  pipe: Format.bool("pane_pipe"),
  alternate: Format.bool("alternate_on")
})

const liveRecord = Format.record("liv", {
  pane_id: Format.string("pane_id"),
  pid: Format.nullableInt("pane_pid"),
  dead: Format.bool("pane_dead"),
  command: Format.string("pane_current_command")
})

type Services = Tmux | Config | InvocationContext

/** Everything one wait needs, whether it follows the typing or a handle. */
interface Run {
  readonly socket: ResolvedSocket
  readonly handle: CommandHandle
  readonly log: string | null
  readonly framed: FramedOutput
}

const invalid = (reason: string) => Effect.fail(new InvalidInput({ reason }))

/** The pane as it is now: alive with this pid and foreground program, or gone/dead. */
const paneNow = (run: Run) =>
  queryTree(run.socket, (m) => [["list-panes", "-t", run.handle.pane_id, "-F", liveRecord.format(m)]], {
    kind: "pane",
    id: run.handle.pane_id
  }).pipe(
    Effect.flatMap((output) => decode(liveRecord, output)),
    Effect.map((rows) => rows.find((row) => row.pane_id === run.handle.pane_id)),
    Effect.map((row) => (row === undefined || row.dead || row.pid !== run.handle.pane_pid ? undefined : row)),
    Effect.catchTag("NotFound", () => Effect.succeed(undefined))
  )
/** Reads what is new: the log (pipe), or the pane's whole history (scrollback). */
const readNew = (run: Run): Effect.Effect<void, TmuxError, Tmux> =>
  run.handle.source === "pipe"
    ? Effect.gen(function* () {
        for (;;) {
          const bytes = yield* readLog(run.log!, run.framed.offset + run.framed.pendingLength)
          if (bytes === null || bytes.length === 0) return
          run.framed.feed(bytes)
          if (run.framed.state.ended) return
        }
      })
    : Effect.gen(function* () {
        const text = yield* runTree(run.socket, [["capture-pane", "-p", "-J", "-t", run.handle.pane_id, "-S", "-", "-E", "-"]], {
          kind: "pane",
          id: run.handle.pane_id
        })
        run.framed.rescan(Buffer.from(text.endsWith("\n") ? text : `${text}\n`, "utf8"), run.handle.returned_lines)
      })

type Ending = "ended" | "died"

/** Polls until the command ends, the pane dies, or the time is up (none). */
const waitForEnd = (run: Run, timeout: EffectiveTimeout) => {
  let lastPaneCheck = Date.now()
  return pollUntil(
    Effect.gen(function* () {
      yield* readNew(run)
      if (run.framed.state.ended) return Option.some<Ending>("ended")
      if (Date.now() - lastPaneCheck >= PANE_CHECK_MS) {
        lastPaneCheck = Date.now()
        if ((yield* paneNow(run)) === undefined) {
          // The last words of a pane that died may still be in the log.
          yield* readNew(run).pipe(Effect.catchAll(() => Effect.void))
          return Option.some<Ending>(run.framed.state.ended ? "ended" : "died")
        }
      }
      return Option.none<Ending>()
    }),
    // A log is a local file, cheap to look at often; a history capture is a tmux process each time.
    run.handle.source === "pipe"
      ? { timeout, firstInterval: 10, maxInterval: 100, message: `waiting for the command in ${run.handle.pane_id}` }
      : { timeout, message: `waiting for the command in ${run.handle.pane_id}` }
  )
}

/** Stops the recording and forgets the log; the buffer goes too if the shell never fetched it. */
const cleanUp = (run: Run, options: { readonly buffer: boolean }) =>
  Effect.gen(function* () {
    const tmux = yield* Tmux
    // `pipe-pane` without a command closes the pane's pipe: ours (a pane with a pipe of its own
    // was read from its history, and its pipe is left alone).
    if (run.handle.source === "pipe") yield* tmux.run(run.socket, [["pipe-pane", "-t", run.handle.pane_id]]).pipe(Effect.ignore)
    if (options.buffer) yield* tmux.run(run.socket, [["delete-buffer", "-b", commandBufferName(run.handle.id)]]).pipe(Effect.ignore)
    if (run.log !== null) yield* removeLog(run.log)
  })

/** Waits, interrupts if asked, and shapes the result; the recording is cleaned up on every path that ends it. */
const finish = (run: Run, request: WaitRequest | RunRequest, serverGone = false) =>
  Effect.gen(function* () {
    let ending: Ending | undefined
    if (serverGone) {
      // Nothing to wait for: read what the log holds and report the pane gone with its server.
      yield* readNew(run).pipe(Effect.catchAll(() => Effect.void))
      ending = run.framed.state.ended ? "ended" : "died"
    } else {
      const waited = yield* waitForEnd(run, request.timeout).pipe(Effect.onInterrupt(() => cleanUp(run, { buffer: !run.framed.state.started })))
      ending = Option.getOrUndefined(waited.value)
    }
    let interruptSent = false
    let stopped: boolean | null = null
    if (ending === undefined && request.interruptOnTimeout) {
      interruptSent = true
      yield* (yield* Tmux).run(run.socket, [["send-keys", "-t", run.handle.pane_id, "C-c"]]).pipe(Effect.ignore)
      const grace = yield* waitForEnd(run, { seconds: INTERRUPT_GRACE_MS / 1000, clamped: false }).pipe(
        Effect.onInterrupt(() => cleanUp(run, { buffer: !run.framed.state.started }))
      )
      ending = Option.getOrUndefined(grace.value)
      if (ending === "ended") stopped = true
      else if (ending === undefined) {
        // bash and zsh drop the rest of the typed line when C-c kills its command, end marker included:
        // the shell back in the foreground is the sign that the command stopped.
        const pane = yield* paneNow(run)
        stopped = pane !== undefined && judgeShell(pane.command)._tag !== "NotAShell"
        if (pane === undefined) ending = "died"
      } else stopped = true
    }
    const state = run.framed.state
    const outcome = ending === "ended" && !interruptSent ? "completed" : ending === "died" ? "pane_died" : "timed_out"
    const keepWaiting = outcome === "timed_out" && stopped !== true
    if (!keepWaiting) yield* cleanUp(run, { buffer: !state.started })
    const bounded = run.framed.budget.result()
    const handle: CommandHandle = {
      ...run.handle,
      offset: run.framed.offset,
      started: state.started,
      returned_lines: run.handle.returned_lines + bounded.lines_total
    }
    const result: CommandResult = {
      pane_id: run.handle.pane_id,
      outcome,
      exit_status: state.ended ? state.exitStatus : null,
      output: joinBounded(bounded),
      lines_total: bounded.lines_total,
      elided_lines: bounded.elided_lines,
      elided_after_line: bounded.elided_after_line,
      truncated: bounded.truncated,
      cut_lines: bounded.cut_lines,
      earlier_lines: run.handle.returned_lines,
      started: state.started,
      interrupt_sent: interruptSent,
      command_stopped: stopped,
      handle: keepWaiting ? encodeHandle(handle) : null,
      elapsed_ms: Math.max(0, Date.now() - run.handle.typed_at),
      shell: run.handle.shell,
      output_source: run.handle.source,
      effective_timeout: request.timeout.seconds,
      timeout_clamped: request.timeout.clamped
    }
    return result
  })

/** The tmux program as a pane's shell should call it: our configured binary when it is a path. */
const tmuxProgramFor = (tmuxBin: string) => (tmuxBin.includes("/") ? tmuxBin : "tmux")

/**
 * Panes (socket and pane id) where a run_command of this process is between its check and its end.
 * A second command typed there meanwhile would queue behind the first in the terminal, and the pane
 * has room for one pipe only: it is refused instead. (The shell's foreground process tells other
 * processes' commands apart: a running command makes the pane busy.)
 */
const panesInUse = new Set<string>()

const claimPane = (socket: ResolvedSocket, paneId: string) => {
  const key = `${socket.path}\n${paneId}`
  return Effect.acquireRelease(
    Effect.suspend(() => {
      if (panesInUse.has(key)) {
        return invalid(`pane ${paneId} is running another run_command of this server; wait for that call to end, then retry.`)
      }
      panesInUse.add(key)
      return Effect.void
    }),
    () => Effect.sync(() => panesInUse.delete(key))
  )
}

export const runCommand = (
  socket: ResolvedSocket,
  paneId: string,
  request: RunRequest
): Effect.Effect<CommandResult, ToolError, Services> =>
  Effect.gen(function* () {
    const config = yield* Config
    yield* claimPane(socket, paneId)
    const { command } = request
    if (command.trim() === "") return yield* invalid("command is empty; pass the shell command to run.")
    if (command.includes("\0")) return yield* invalid("command must not contain NUL characters.")
    if (Buffer.byteLength(command, "utf8") > MAX_COMMAND_BYTES) {
      return yield* invalid(`command must be at most ${MAX_COMMAND_BYTES} bytes; put a long script in a file and run that.`)
    }

    const { pane, server, output } = yield* lookupPane(socket, paneId, (m) => [
      ["display-message", "-p", "-t", paneId, runStateRecord.format(m)]
    ])
    const state = (yield* decode(runStateRecord, output)).find((row) => row.pane_id === paneId)
    if (state === undefined) return yield* Effect.fail(new NotFound({ kind: "pane", target: paneId, socket: socket.label }))

    if (pane.dead) return yield* invalid(`pane ${paneId} is dead (its program exited); respawn_pane it or pick another pane.`)
    // The caller's own pane is refused by the tool (refuseCallerPaneUnlessForced), as for send_keys.
    if (!request.force && pane.is_attended) {
      return yield* Effect.fail(
        new Denied({
          kind: "watched",
          reason: `Refusing to run a command in ${paneId}: a person's tmux client shows that pane right now, and typing there would mix with what they do.`
        })
      )
    }
    if (pane.in_mode) return yield* invalid(`pane ${paneId} is in copy mode (or another tmux mode): keys would go to that mode. Leave the mode (send_keys "q") and retry.`)
    if (state.alternate) return yield* invalid(`pane ${paneId} shows a full-screen program (${pane.command}); run_command needs a shell at its prompt. Use send_keys to drive the program.`)
    const verdict = judgeShell(pane.command)
    if (verdict._tag === "OtherShell") {
      return yield* invalid(
        `pane ${paneId} runs ${verdict.shell}, whose syntax run_command cannot frame safely (it supports bash, zsh, sh, dash, ksh). Use send_keys or paste_text there, or start a POSIX shell in another pane.`
      )
    }
    if (verdict._tag === "NotAShell") {
      return yield* invalid(
        `pane ${paneId} is busy: its foreground program is ${verdict.program || "unknown"}, not a shell at its prompt. Wait for it (wait_for_text), stop it (send_keys C-c), or use another pane.`
      )
    }

    const id = newRunId()
    const source = state.pipe ? "scrollback" : "pipe"
    const log = source === "pipe" ? logPath(yield* logDirectory(config.tmuxTmpdir, config.uid), id) : null
    if (log !== null) yield* createLog(log)
    const handle: CommandHandle = {
      id,
      socket: socket.path,
      generation: generationOf(server),
      pane_id: paneId,
      pane_pid: pane.pid,
      shell: verdict.shell,
      source,
      offset: 0,
      started: false,
      returned_lines: 0,
      typed_at: Date.now()
    }
    const run: Run = { socket, handle, log, framed: new FramedOutput(id, () => new HeadTail(request.maxLines, request.maxBytes), request.keepEscapes, { started: false, offset: 0 }) }

    const line = typedLine({ id, socketPath: socket.path, tmuxProgram: tmuxProgramFor(config.tmuxBin), suppressHistory: config.suppressHistory })
    yield* (yield* Tmux)
      .run(
        socket,
        [
          ["load-buffer", "-b", commandBufferName(id), "-"],
          ...(log === null ? [] : [["pipe-pane", "-o", "-t", paneId, recorderCommand(log)]]),
          ["send-keys", "-t", paneId, "-l", "--", line],
          ["send-keys", "-t", paneId, "Enter"]
        ],
        { stdin: command }
      )
      .pipe(Effect.tapError(() => cleanUp(run, { buffer: true })))
    return yield* finish(run, request)
  }).pipe(Effect.scoped)

export const waitForCommand = (
  socket: ResolvedSocket,
  handle: CommandHandle,
  request: WaitRequest
): Effect.Effect<CommandResult, ToolError, Services> =>
  Effect.gen(function* () {
    const config = yield* Config
    const output = yield* queryTree(socket, (m) => [serverIdentityCommand(m)], { kind: "server", id: socket.path }).pipe(
      Effect.catchTag("NoServer", () => Effect.succeed(undefined))
    )
    const server = output === undefined ? undefined : yield* decodeServerIdentity(output)
    if (server !== undefined && generationOf(server) !== handle.generation) {
      return yield* Effect.fail(new NotFound({ kind: "server", target: handle.generation, socket: socket.label }))
    }
    const log = handle.source === "pipe" ? logPath(yield* logDirectory(config.tmuxTmpdir, config.uid), handle.id) : null
    const run: Run = {
      socket,
      handle,
      log,
      framed: new FramedOutput(handle.id, () => new HeadTail(request.maxLines, request.maxBytes), request.keepEscapes, {
        started: handle.started,
        offset: handle.source === "pipe" ? handle.offset : 0
      })
    }
    // A server that is gone took the pane with it.
    return yield* finish(run, request, server === undefined)
  })

