/**
 * Bringing processes into tmux: a new session, a new window, a split pane, a respawned pane. Each
 * is one tmux command list that does the work and reads the result back: `-P -F` prints the new
 * object, and the server identity, the clients and the window links come from the same list, so
 * the answer describes exactly the object that was made.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { randomBytes } from "node:crypto"
import { posix } from "node:path"
import type { InvocationContext } from "../../context/InvocationContext.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { escapeControls } from "../../domain/ControlText.js"
import { type Denied, type Failed, InvalidInput, NotFound, type TmuxError } from "../../domain/Errors.js"
import type { PaneDetail, ServerIdentity, Session, Window } from "../../domain/Model.js"
import { Ownership } from "../../services/Ownership.js"
import { fitsOneInvocation, runInBatches } from "../../tmux/CommandBatches.js"
import * as Format from "../../tmux/Format.js"
import { literalizeFormat } from "../../tmux/Literal.js"
import {
  decode,
  decodeServerIdentity,
  noCurrentTargetIsNotFound,
  query,
  type QueryTarget,
  queryTree,
  runTree,
  serverIdentityCommand
} from "../../tmux/Query.js"
import { paneRecord, sessionRecord, windowRecord } from "../../tmux/Records.js"
import { Tmux, type TmuxCommand } from "../../tmux/Tmux.js"
import { refuseCallerPane } from "../hierarchy/Guards.js"
import { clientsCommand, toPaneDetails } from "../hierarchy/Hierarchy.js"
import { placementsCommand } from "../hierarchy/Placements.js"
import { refuseOccupiedSocketPath } from "../internal/SocketPath.js"
import { checkName, type NameKind } from "../layout/Names.js"
import { startPastExitingServer } from "../servers/ExitingServer.js"
import { ensureGeneration, type GenerationCheck, probeServer } from "../servers/Servers.js"
import { refuseOverlongSpawn, type SpawnArguments, spawnArguments, type SpawnRequest } from "./Spawn.js"
import { checkStartDirectory } from "./StartDirectoryCheck.js"
import {
  DIRECTION_FLAGS,
  NO_ROOM,
  panesInOrder,
  type PaneSplit,
  splitCommands,
  type SplitDirection,
  type SplitSize,
  splitSpawns
} from "./WindowPanes.js"

export type { PaneSplit, SplitDirection, SplitSize } from "./WindowPanes.js"

/**
 * A detached session to create: names, size, whether a server may be started for it, and whether
 * this process owns it. With a generation, the session is created only on that server (it exists
 * then: no server is started).
 */
export interface CreateSessionRequest extends SpawnRequest, GenerationCheck {
  readonly sessionName?: string | undefined
  readonly windowName?: string | undefined
  /** Size of the initial window in cells; tmux's default-size (80x24) otherwise. */
  readonly width?: number | undefined
  readonly height?: number | undefined
  /** Start a server when none runs on the socket; otherwise a dead socket fails with NoServer. */
  readonly allowServerStart?: boolean | undefined
  /** The session belongs to this process: the Ownership scope kills it when it closes. */
  readonly owned?: boolean | undefined
  /** More panes for its window, each splitting the one made before (see WindowPanes). */
  readonly panes?: ReadonlyArray<PaneSplit> | undefined
}

/** The new session and the server that holds it. */
export interface CreatedSession {
  readonly session: Session
  readonly server: ServerIdentity
  /** Whether this call started the tmux server (no server answered the probe before it). */
  readonly serverStarted: boolean
  readonly owned: boolean
  /** With `panes` asked for: every pane of the session's window, in the order made (its first pane first). */
  readonly panes?: ReadonlyArray<PaneDetail>
}

/** A window to create in a session. */
export interface CreateWindowRequest extends SpawnRequest, GenerationCheck {
  readonly windowName?: string | undefined
  /** Where the window goes in the session; the next free index otherwise. */
  readonly windowIndex?: number | undefined
  /** Leave the session's current window as it is (default true). */
  readonly detached?: boolean | undefined
  /** More panes for the window, each splitting the one made before (see WindowPanes). */
  readonly panes?: ReadonlyArray<PaneSplit> | undefined
}

/** The new window, its pane and the server. */
export interface CreatedWindow {
  readonly window: Window
  /** The window's first pane. */
  readonly pane: PaneDetail
  readonly server: ServerIdentity
  /** With `panes` asked for: every pane of the window, in the order made (`pane` first). */
  readonly panes?: ReadonlyArray<PaneDetail>
}

/** How to split a pane: the side, the new pane's size, whether it becomes active. */
export interface SplitWindowRequest extends SpawnRequest, GenerationCheck {
  /** Default "below". */
  readonly direction?: SplitDirection | undefined
  /** Cells (e.g. 10) or a percentage of the split pane (e.g. "30%"); half otherwise. */
  readonly size?: SplitSize | undefined
  /** Leave the window's active pane as it is (default true). */
  readonly detached?: boolean | undefined
}

/** How to restart a pane's process. */
export interface RespawnPaneRequest extends SpawnRequest, GenerationCheck {
  /** Kill the pane's running process first (default true); without it only a dead pane respawns. */
  readonly kill?: boolean | undefined
}

/** A pane a split or respawn made, with its placements, and the server. */
export interface SpawnedPane {
  readonly pane: PaneDetail
  readonly server: ServerIdentity
}

/** Where a pane is: its process's directory, and the one it started in (all a dead pane has). */
const paneDirectoryRecord = Format.record("dir", {
  pane_id: Format.string("pane_id"),
  current: Format.string("pane_current_path"),
  start: Format.string("pane_start_path")
})

/**
 * The directory a split of `paneId` should start in. tmux's own default is the tmux client's
 * directory (this MCP server's), and a `-c '#{pane_current_path}'` would be expanded for the
 * session's active pane rather than the split one (tmux 3.3a), so the path is read first.
 */
const splitDirectory = (socket: ResolvedSocket, paneId: string): Effect.Effect<string | undefined, TmuxError, Tmux> =>
  Effect.gen(function*() {
    const output = yield* queryTree(socket, (m) => [["list-panes", "-t", paneId, "-F", paneDirectoryRecord.format(m)]], {
      kind: "pane",
      id: paneId
    })
    const pane = (yield* decode(paneDirectoryRecord, output)).find((row) => row.pane_id === paneId)
    if (pane === undefined) return yield* Effect.fail(new NotFound({ kind: "pane", target: paneId, socket: socket.label }))
    const directory = pane.current !== "" ? pane.current : pane.start
    return directory === "" ? undefined : directory
  })

const tmuxSaid = (pattern: RegExp) => (error: TmuxError | InvalidInput): error is Failed =>
  error._tag === "Failed" && error.reason === "exit" && pattern.test(error.stderr)

/** tmux's words for failures that are the caller's to fix (names are quoted as tmux stored them). */
const DUPLICATE_SESSION = /duplicate session: /
const INDEX_IN_USE = /index \d+ in use/
const PANE_STILL_ACTIVE = /still active/

const flagIf = (condition: boolean, ...flags: ReadonlyArray<string>): ReadonlyArray<string> => (condition ? flags : [])

/**
 * The flag that names a new session or window. A name tmux would store differently is refused
 * first, so the stored name is the one asked for.
 */
const nameFlag = (
  flag: string,
  kind: NameKind,
  argument: string,
  name: string | undefined
): Effect.Effect<ReadonlyArray<string>, InvalidInput> =>
  name === undefined ? Effect.succeed([]) : Effect.as(checkName(kind, name, argument), [flag, literalizeFormat(name)])

const firstRow = <A>(rows: ReadonlyArray<A>, what: string): Effect.Effect<A, Failed> =>
  rows[0] === undefined ? Effect.fail(Format.unreadable(`format ${what}`, `tmux printed no ${what} record`)) : Effect.succeed(rows[0])

/** What undoes a spawn whose process tmux started elsewhere, and how the error says so. */
interface Undo {
  readonly command: TmuxCommand | undefined
  readonly said: string
}

/**
 * On a remote host a start directory is passed as given and checked once the process runs
 * (StartDirectoryCheck): one that tmux started in HOME instead is undone and the call fails,
 * never silently. The path is the caller's: named, not echoed.
 */
const confirmStartDirectory = (
  socket: ResolvedSocket,
  request: SpawnRequest,
  spawn: SpawnArguments,
  paneId: string,
  undo: Undo
): Effect.Effect<void, TmuxError | InvalidInput, Tmux> => {
  const expected = spawn.remoteDirectory
  if (expected === undefined) return Effect.void
  return Effect.gen(function*() {
    const outcome = yield* checkStartDirectory(socket, paneId, expected, (request.command ?? []).length > 0)
    if (outcome._tag !== "FellBack") return
    if (undo.command !== undefined) yield* Effect.ignore(query(socket, () => [undo.command!]))
    const place = outcome.current === expected.home ? "the user's HOME there" : escapeControls(outcome.current)
    return yield* Effect.fail(
      new InvalidInput({
        reason:
          `start_directory does not exist on host ${expected.host} (or cannot be entered there, or is reached through a symlink: pass its real path): tmux started the process in ${place} instead, so ${undo.said}.`
      })
    )
  })
}

/** A pane's start directory, printed next to its pane record. */
const startDirectoryRecord = Format.record("spd", {
  pane_id: Format.string("pane_id"),
  directory: Format.string("pane_start_path")
})

/** The `-F` format that prints a spawned pane: its record and the directory it started in. */
const spawnedPaneFormat = (marks: Format.Marks): string => paneRecord.format(marks) + startDirectoryRecord.format(marks)

/**
 * The panes of one invocation's output (pane rows printed with `spawnedPaneFormat`, the clients
 * and the window links), each with the directory it started in as its cwd: its process was started
 * there a moment ago and has not had a chance to move, and a directory read now races with the
 * child's own set-up (tmux 3.3a then reports an empty path).
 */
const spawnedPanes = (
  socket: ResolvedSocket,
  server: ServerIdentity,
  output: Format.ParsedOutput
): Effect.Effect<Array<PaneDetail>, TmuxError, InvocationContext> =>
  Effect.gen(function*() {
    const panes = yield* toPaneDetails(socket, server, output)
    const starts = yield* decode(startDirectoryRecord, output)
    return panes.map((pane) => {
      const directory = starts.find((start) => start.pane_id === pane.pane_id)?.directory
      return directory === undefined || directory === "" ? pane : { ...pane, cwd: directory }
    })
  })

/**
 * A new pane as its process runs: the program of the argv it was started with. tmux reads the
 * command from the pane's process, which a moment after the spawn may not have become the program
 * yet (tmux 3.3a then names the default shell); without an argv the pane runs what tmux read.
 */
const startedWith = (pane: PaneDetail, argv: ReadonlyArray<string> | undefined): PaneDetail =>
  argv === undefined || argv[0] === undefined ? pane : { ...pane, command: posix.basename(argv[0]) }

/**
 * Runs a command list that spawns a pane and prints it with `spawnedPaneFormat`, reads it back with
 * the server identity, clients and window links, and returns that pane (`paneId`, or the only pane
 * the list printed), as started with `argv`.
 */
const spawnAndRead = (
  socket: ResolvedSocket,
  commands: (marks: Format.Marks) => ReadonlyArray<TmuxCommand>,
  target: QueryTarget,
  argv: ReadonlyArray<string> | undefined,
  paneId?: string
): Effect.Effect<SpawnedPane & { readonly output: Format.ParsedOutput }, TmuxError, Tmux | InvocationContext> =>
  Effect.gen(function*() {
    const marks = Format.newMarks()
    const output = Format.parseOutput(
      yield* runTree(socket, [serverIdentityCommand(marks), ...commands(marks), clientsCommand(marks), placementsCommand(marks)], target),
      marks
    )
    const server = yield* decodeServerIdentity(output)
    const id = paneId ?? (yield* firstRow(yield* decode(startDirectoryRecord, output), "pane")).pane_id
    const pane = (yield* spawnedPanes(socket, server, output)).find((candidate) => candidate.pane_id === id)
    // A pane whose process ends at once may be gone before the read-back (without remain-on-exit).
    if (pane === undefined) return yield* Effect.fail(new NotFound({ kind: "pane", target: id, socket: socket.label }))
    return { pane: startedWith(pane, argv), server, output }
  })

/**
 * Every pane of a built window in the order made (`first`, then one per split), each as started
 * with its argv, from the output of the list that made the splits and read the window back.
 */
const builtPanes = (
  socket: ResolvedSocket,
  server: ServerIdentity,
  output: Format.ParsedOutput,
  first: { readonly paneId: string; readonly argv: ReadonlyArray<string> | undefined },
  splits: ReadonlyArray<PaneSplit>
): Effect.Effect<ReadonlyArray<PaneDetail>, TmuxError, InvocationContext> =>
  Effect.gen(function*() {
    const panes = yield* panesInOrder(socket, first.paneId, yield* spawnedPanes(socket, server, output), output)
    return panes.map((pane, i) => startedWith(pane, i === 0 ? first.argv : splits[i - 1]!.command))
  })

/** Checks each split pane's start directory on a remote host (see confirmStartDirectory). */
const confirmSplitDirectories = (
  socket: ResolvedSocket,
  splits: ReadonlyArray<PaneSplit>,
  spawns: ReadonlyArray<SpawnArguments>,
  panes: ReadonlyArray<PaneDetail>,
  undo: Undo
): Effect.Effect<void, TmuxError | InvalidInput, Tmux> =>
  Effect.forEach(
    splits,
    (split, index) => confirmStartDirectory(socket, { command: split.command }, spawns[index]!, panes[index + 1]!.pane_id, undo),
    { discard: true }
  )

/**
 * The splits of a window that exists, then `readBack`, all aimed at `target`: one command list when
 * they fit in one, else the splits in as few lists as fit, one after the other (each split aimed at
 * the window splits its active pane, the one made just before), and the read-back last. Every
 * list's output, in order, for the one `marks` they were all made with.
 */
const splitThenRead = (
  socket: ResolvedSocket,
  splits: ReadonlyArray<TmuxCommand>,
  readBack: ReadonlyArray<TmuxCommand>,
  target: QueryTarget
): Effect.Effect<string, TmuxError, Tmux> =>
  fitsOneInvocation([...splits, ...readBack])
    ? runTree(socket, [...splits, ...readBack], target)
    : Effect.zipWith(
      runInBatches(socket, splits.map((split) => [split])).pipe(noCurrentTargetIsNotFound(socket, target)),
      runTree(socket, readBack, target),
      (made, read) => made + read
    )

/** Refuses, before anything runs, a first pane or a split whose command alone no tmux invocation carries. */
const refuseOverlongPanes = (
  first: { readonly pane: string; readonly command: TmuxCommand },
  splits: ReadonlyArray<TmuxCommand>
): Effect.Effect<void, InvalidInput> =>
  Effect.andThen(
    refuseOverlongSpawn(first.pane, first.command),
    Effect.forEach(splits, (split, index) => refuseOverlongSpawn(`panes[${index}]`, split), { discard: true })
  )

/**
 * A failed layout is the caller's to fix when tmux said a split did not fit; what the call made is
 * gone by then (`undone` says so).
 */
const layoutRefused = (undone: string) => (error: TmuxError): Effect.Effect<never, TmuxError | InvalidInput> =>
  tmuxSaid(NO_ROOM)(error)
    ? Effect.fail(
      new InvalidInput({
        reason:
          `a pane of panes does not fit (tmux: ${error.stderr.trim()}); ${undone}. Give smaller sizes, fewer panes or a larger window (x, y).`
      })
    )
    : Effect.fail(error)

/**
 * A new session, detached. On a socket with no server this fails with NoServer unless
 * `allowServerStart`; with it, a probe decides whether this call starts the server, so
 * `serverStarted` is true only for the call that did (a server started by someone else between
 * the probe and the call would also be reported as ours).
 */
export const createSession = Effect.fn("Create.createSession")((
  socket: ResolvedSocket,
  request: CreateSessionRequest
): Effect.Effect<CreatedSession, TmuxError | InvalidInput, Tmux | Ownership | InvocationContext> =>
  Effect.gen(function*() {
    const sessionName = yield* nameFlag("-s", "session name", "session_name", request.sessionName)
    const windowName = yield* nameFlag("-n", "window name", "window_name", request.windowName)
    const spawn = yield* spawnArguments(request, socket)
    const splits = request.panes ?? []
    const splitSpawnsOf = yield* splitSpawns(socket, request, splits)
    const owned = request.owned === true
    const newSession = (m: Format.Marks): TmuxCommand => [
      "new-session",
      "-d",
      "-P",
      "-F",
      sessionRecord.format(m),
      ...sessionName,
      ...windowName,
      ...(request.width === undefined ? [] : ["-x", String(request.width)]),
      ...(request.height === undefined ? [] : ["-y", String(request.height)]),
      ...spawn.flags,
      ...spawn.argv
    ]
    // Marks are all of one length: commands made with these have the size of those sent.
    const sizing = Format.newMarks()
    yield* refuseOverlongPanes(
      { pane: "the session's first pane", command: newSession(sizing) },
      splitCommands(sizing, splits, splitSpawnsOf, undefined)
    )
    yield* ensureGeneration(socket, request.generation)
    const running = request.allowServerStart === true ? yield* probeServer(socket) : Option.none()
    const startServer = request.allowServerStart === true && Option.isNone(running)
    if (startServer) yield* refuseOccupiedSocketPath(socket)
    const ownership = yield* Ownership
    // Registered before the session exists, so no moment has a marked session the finalizer would miss.
    if (owned) yield* ownership.register(socket)
    // While its panes are made the session carries a mark of this call: a split that fails ends the
    // list (or an interruption the call), and the mark is how the half-built session is found and
    // closed again.
    const building = splits.length > 0 ? `@etm-building-${randomBytes(6).toString("hex")}` : undefined
    // new-session makes the new session current, so a mark lands on it and nowhere else, and a split
    // without -t splits its active pane.
    const makeSession = (m: Format.Marks): Array<TmuxCommand> => [
      newSession(m),
      ...(owned ? [ownership.markCommand] : []),
      ...(building === undefined ? [] : [["set-option", building, "1"]])
    ]
    const readBack = (m: Format.Marks, session: string | undefined): Array<TmuxCommand> => {
      const at = session === undefined ? [] : ["-t", session]
      return [
        ["list-panes", ...at, "-F", spawnedPaneFormat(m)],
        // The session as built (new-session printed it before the splits).
        ["display-message", ...at, "-p", sessionRecord.format(m)],
        ["set-option", ...at, "-u", building!],
        clientsCommand(m),
        placementsCommand(m)
      ]
    }
    const inOne = (m: Format.Marks): Array<TmuxCommand> => [
      ...makeSession(m),
      ...(building === undefined ? [] : [...splitCommands(m, splits, splitSpawnsOf, undefined), ...readBack(m, undefined)]),
      serverIdentityCommand(m)
    ]
    const send = (start: boolean) =>
      building === undefined || fitsOneInvocation(inOne(sizing))
        ? query(socket, inOne, { startServer: start })
        : inSteps(socket, makeSession, (m, session) => ({
          splits: splitCommands(m, splits, splitSpawnsOf, session),
          readBack: [...readBack(m, session), serverIdentityCommand(m)]
        }), start)
    let serverStarted = startServer
    const output = yield* send(startServer).pipe(
      // A call that may start a server and finds none, though the probe found one or was to start
      // one, met a server exiting (kill-server): it waits that out and starts a new one.
      Effect.catchTag("NoServer", (gone) =>
        request.allowServerStart !== true || request.generation !== undefined
          ? Effect.fail(gone)
          : refuseOccupiedSocketPath(socket).pipe(
            Effect.andThen(startPastExitingServer(send(true))),
            Effect.tap(() => Effect.sync(() => (serverStarted = true)))
          )),
      Effect.onInterrupt(() => building === undefined ? Effect.void : closeBuilding(socket, building)),
      Effect.catchIf(tmuxSaid(DUPLICATE_SESSION), (error) =>
        Effect.fail(
          new InvalidInput({
            reason:
              `a session with that name already exists on ${socket.label} (tmux: ${error.stderr.trim()}). Pick another session_name; list_sessions shows the names in use.`
          })
        )),
      Effect.catch((error) =>
        error._tag === "InvalidInput" || building === undefined
          ? Effect.fail(error)
          : Effect.andThen(closeBuilding(socket, building), layoutRefused("the new session was closed again")(error))
      )
    )
    const sessions = yield* decode(sessionRecord, output)
    const made = yield* firstRow(sessions, "session")
    const server = yield* decodeServerIdentity(output)
    const undo = { command: ["kill-session", "-t", made.session_id], said: "the new session was closed again" }
    yield* confirmStartDirectory(socket, request, spawn, made.active_pane_id, undo)
    if (building === undefined) return { session: made as Session, server, serverStarted, owned }
    const panes = yield* builtPanes(socket, server, output, { paneId: made.active_pane_id, argv: request.command }, splits)
    yield* confirmSplitDirectories(socket, splits, splitSpawnsOf, panes, undo)
    const session = sessions[sessions.length - 1]! as Session
    return { session, server, serverStarted, owned, panes }
  })
)

/**
 * A session whose panes do not fit in one command list with it: the session first (with its
 * build mark), then its splits and read-back aimed at it (splitThenRead). Read as one output.
 */
const inSteps = (
  socket: ResolvedSocket,
  made: (marks: Format.Marks) => ReadonlyArray<TmuxCommand>,
  rest: (marks: Format.Marks, session: string) => {
    readonly splits: ReadonlyArray<TmuxCommand>
    readonly readBack: ReadonlyArray<TmuxCommand>
  },
  startServer: boolean
): Effect.Effect<Format.ParsedOutput, TmuxError, Tmux> =>
  Effect.gen(function*() {
    const marks = Format.newMarks()
    const first = yield* (yield* Tmux).run(socket, made(marks), { startServer })
    const session = (yield* firstRow(yield* decode(sessionRecord, Format.parseOutput(first, marks)), "session")).session_id
    const { readBack, splits } = rest(marks, session)
    const more = yield* splitThenRead(socket, splits, readBack, { kind: "session", id: session })
    return Format.parseOutput(first + more, marks)
  })

/** Closes the sessions that carry a build mark (one, or none when new-session itself failed). */
const closeBuilding = (socket: ResolvedSocket, building: string): Effect.Effect<void, never, Tmux> => {
  const marked = Format.record("bld", { session_id: Format.string("session_id"), mark: Format.string(building) })
  return Effect.gen(function*() {
    const sessions = yield* decode(marked, yield* query(socket, (m) => [["list-sessions", "-F", marked.format(m)]]))
    const ids = sessions.filter((session) => session.mark === "1").map((session) => session.session_id)
    if (ids.length > 0) yield* query(socket, () => ids.map((id) => ["kill-session", "-t", id]))
  }).pipe(Effect.ignore)
}

/** A new window in an explicitly named session, and its pane. */
export const createWindow = Effect.fn("Create.createWindow")((
  socket: ResolvedSocket,
  sessionId: string,
  request: CreateWindowRequest
): Effect.Effect<CreatedWindow, TmuxError | InvalidInput, Tmux | InvocationContext> =>
  Effect.gen(function*() {
    const windowName = yield* nameFlag("-n", "window name", "window_name", request.windowName)
    const spawn = yield* spawnArguments(request, socket)
    const splits = request.panes ?? []
    const splitSpawnsOf = yield* splitSpawns(socket, request, splits)
    // "$1:" means "in session $1, at the next free index" (a bare target may name a window instead).
    const target = `${sessionId}:${request.windowIndex ?? ""}`
    const newWindow = (m: Format.Marks): TmuxCommand => [
      "new-window",
      ...flagIf(request.detached !== false, "-d"),
      "-P",
      // Several records from one format: the new pane, its start directory and its window.
      "-F",
      spawnedPaneFormat(m) + windowRecord.format(m),
      ...windowName,
      ...spawn.flags,
      "-t",
      target,
      ...spawn.argv
    ]
    const sizing = Format.newMarks()
    yield* refuseOverlongPanes(
      { pane: "the window's first pane", command: newWindow(sizing) },
      splitCommands(sizing, splits, splitSpawnsOf, "@0")
    )
    yield* ensureGeneration(socket, request.generation)
    // With panes, the window is made uninterruptibly (each tmux call is bounded), so that an
    // interruption finds it and closes it again rather than leave it half-built.
    return yield* Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const made = spawnAndRead(socket, (m) => [newWindow(m)], { kind: "session", id: sessionId }, request.command)
        const { output, pane, server } = yield* (splits.length > 0 ? made : restore(made)).pipe(
          Effect.catchIf(tmuxSaid(INDEX_IN_USE), () =>
            Effect.fail(
              new InvalidInput({
                reason:
                  `window index ${request.windowIndex} is already taken in session ${sessionId}; omit window_index for the next free one.`
              })
            ))
        )
        const window = yield* firstRow(yield* decode(windowRecord, output), "window")
        const undo = { command: ["kill-window", "-t", window.window_id], said: "the new window was closed again" }
        const closeWindow = Effect.ignore(query(socket, () => [undo.command]))
        return yield* restore(Effect.gen(function*() {
          yield* confirmStartDirectory(socket, request, spawn, pane.pane_id, undo)
          if (splits.length === 0) return { window: window as Window, pane, server }
          // A window made with -d is not the list's current one: the splits go in lists of their own, aimed at it.
          const marks = Format.newMarks()
          const built = Format.parseOutput(
            yield* splitThenRead(socket, splitCommands(marks, splits, splitSpawnsOf, window.window_id), [
              serverIdentityCommand(marks),
              ["list-panes", "-t", window.window_id, "-F", spawnedPaneFormat(marks)],
              // The window as built: its size, layout and active pane changed with each split.
              ["display-message", "-p", "-t", window.window_id, windowRecord.format(marks)],
              clientsCommand(marks),
              placementsCommand(marks)
            ], { kind: "window", id: window.window_id }).pipe(
              Effect.catch((error) =>
                error._tag === "NotFound" ? Effect.fail(error) : Effect.andThen(closeWindow, layoutRefused(undo.said)(error))
              )
            ),
            marks
          )
          const builtServer = yield* decodeServerIdentity(built)
          const panes = yield* builtPanes(socket, builtServer, built, { paneId: pane.pane_id, argv: request.command }, splits)
          yield* confirmSplitDirectories(socket, splits, splitSpawnsOf, panes, undo)
          const builtWindow = yield* firstRow(yield* decode(windowRecord, built), "window")
          return { window: builtWindow as Window, pane: panes[0]!, server, panes }
        })).pipe(Effect.onInterrupt(() => splits.length === 0 ? Effect.void : closeWindow))
      })
    )
  })
)

/** A new pane next to an existing one, starting in that pane's directory unless told otherwise. */
export const splitWindow = Effect.fn("Create.splitWindow")((
  socket: ResolvedSocket,
  paneId: string,
  request: SplitWindowRequest
): Effect.Effect<SpawnedPane, TmuxError | InvalidInput, Tmux | InvocationContext> =>
  Effect.gen(function*() {
    const spawn = yield* spawnArguments(request, socket)
    yield* ensureGeneration(socket, request.generation)
    const directory = request.startDirectory === undefined ? yield* splitDirectory(socket, paneId) : undefined
    const split = (m: Format.Marks): TmuxCommand => [
      "split-window",
      ...DIRECTION_FLAGS[request.direction ?? "below"],
      ...flagIf(request.detached !== false, "-d"),
      ...(request.size === undefined ? [] : ["-l", String(request.size)]),
      "-P",
      "-F",
      spawnedPaneFormat(m),
      ...(directory === undefined ? [] : ["-c", literalizeFormat(directory)]),
      ...spawn.flags,
      "-t",
      paneId,
      ...spawn.argv
    ]
    yield* refuseOverlongSpawn("the new pane", split(Format.newMarks()))
    const { pane, server } = yield* spawnAndRead(
      socket,
      (m) => [split(m)],
      { kind: "pane", id: paneId },
      request.command
    )
    yield* confirmStartDirectory(socket, request, spawn, pane.pane_id, {
      command: ["kill-pane", "-t", pane.pane_id],
      said: "the new pane was closed again"
    })
    return { pane, server }
  })
)

/**
 * Restarts a pane's process: the given argv, or the command the pane was started with. Never the
 * pane this MCP server runs in.
 */
export const respawnPane = Effect.fn("Create.respawnPane")((
  socket: ResolvedSocket,
  paneId: string,
  request: RespawnPaneRequest
): Effect.Effect<SpawnedPane, TmuxError | InvalidInput | Denied, Tmux | InvocationContext> =>
  Effect.gen(function*() {
    yield* refuseCallerPane(socket, paneId, "respawn")
    const spawn = yield* spawnArguments(request, socket)
    const respawn: TmuxCommand = ["respawn-pane", ...flagIf(request.kill !== false, "-k"), ...spawn.flags, "-t", paneId, ...spawn.argv]
    yield* refuseOverlongSpawn("the respawned pane", respawn)
    yield* ensureGeneration(socket, request.generation)
    const { pane, server } = yield* spawnAndRead(
      socket,
      (m) => [
        respawn,
        // respawn-pane prints nothing; `list-panes -t` lists the pane's whole window.
        ["list-panes", "-t", paneId, "-F", spawnedPaneFormat(m)]
      ],
      { kind: "pane", id: paneId },
      request.command,
      paneId
    ).pipe(
      Effect.catchIf(tmuxSaid(PANE_STILL_ACTIVE), () =>
        Effect.fail(
          new InvalidInput({
            reason: `pane ${paneId} is still running its process; pass kill=true to kill it and respawn.`
          })
        ))
    )
    // The old process is gone: nothing to undo.
    yield* confirmStartDirectory(socket, request, spawn, paneId, {
      command: undefined,
      said: `pane ${paneId} was respawned there all the same; respawn it again with another start_directory`
    })
    return { pane, server }
  })
)
