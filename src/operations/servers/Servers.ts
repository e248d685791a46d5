/**
 * Server-level operations: is a server alive, which servers exist, start and stop one.
 * None of them starts a server except `startServer`.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { readdir, stat } from "node:fs/promises"
import { join } from "node:path"
import { InvocationContext } from "../../context/InvocationContext.js"
import { samePath } from "../../context/RealPath.js"
import { isRemoteHost } from "../../context/RemoteHosts.js"
import { type ResolvedSocket, SocketResolver } from "../../context/SocketResolver.js"
import { Denied, type Failed, type InvalidInput, NoServer, NotFound, type TmuxError } from "../../domain/Errors.js"
import { hostField, type LiveServer, type ServerIdentity, type ServerInfo, type UnresponsiveSocket } from "../../domain/Model.js"
import type * as Format from "../../tmux/Format.js"
import { type CommandsWith, decode, decodeServerIdentity, query, serverIdentityCommand } from "../../tmux/Query.js"
import { paneIdsRecord, sessionRecord } from "../../tmux/Records.js"
import type { Tmux } from "../../tmux/Tmux.js"
import { allPanesCommand } from "../hierarchy/Hierarchy.js"
import { refuseOccupiedSocketPath } from "../internal/SocketPath.js"
import { startPastExitingServer } from "./ExitingServer.js"

/**
 * Asks the socket who answers. A dead server is `None`, never an error; the probe runs with `-N`
 * so it can never start a server.
 */
export const probeServer = Effect.fn("Servers.probeServer")((
  socket: ResolvedSocket
): Effect.Effect<Option.Option<ServerIdentity>, Failed | NotFound, Tmux> =>
  query(socket, (m) => [serverIdentityCommand(m)]).pipe(
    Effect.flatMap(decodeServerIdentity),
    Effect.map(Option.some),
    Effect.catchTag("NoServer", () => Effect.succeedNone)
  )
)

/**
 * What every mutating operation takes for optimistic concurrency across server restarts: ids repeat
 * on a new server (%0, @0, $0), so a caller passes back the `generation` it saw (create_session,
 * get_server_info, where_am_i) and the call is refused if the server changed.
 */
export interface GenerationCheck {
  /** Refuse the call (NotFound, kind server) if the server is no longer this generation; nothing is sent then. */
  readonly generation?: string | undefined
}

/** The server answering `socket` has this generation, if one is expected; it costs one probe, before the operation's own commands. */
export const ensureGeneration = Effect.fn("Servers.ensureGeneration")((
  socket: ResolvedSocket,
  expected: string | undefined
): Effect.Effect<void, NoServer | NotFound | Failed, Tmux> =>
  expected === undefined
    ? Effect.void
    : Effect.asVoid(Effect.flatMap(probeServer(socket), (server) => expectServer(socket, server, expected)))
)

/** The server a probe found, of the expected generation when one is given: no server is NoServer, another one NotFound. */
export const expectServer = (
  socket: ResolvedSocket,
  probed: Option.Option<ServerIdentity>,
  expected: string | undefined
): Effect.Effect<ServerIdentity, NoServer | NotFound> =>
  Option.isNone(probed)
    ? Effect.fail(new NoServer({ socket: socket.label }))
    : expected === undefined || probed.value.generation === expected
    ? Effect.succeed(probed.value)
    : Effect.fail(new NotFound({ kind: "server", target: expected, socket: socket.label }))

/** Liveness, identity and object counts in one round trip; a dead server is `is_alive: false`. */
export const serverInfo = Effect.fn("Servers.serverInfo")((
  socket: ResolvedSocket
): Effect.Effect<ServerInfo, Failed | NotFound, Tmux | InvocationContext> =>
  Effect.gen(function*() {
    const context = yield* InvocationContext
    const base = { ...hostField(socket), socket_name: socket.name, socket_path: socket.path, socket_rule: socket.rule }
    const output = yield* query(socket, (m) => [serverIdentityCommand(m), allPanesCommand(paneIdsRecord, m)]).pipe(
      Effect.map(Option.some),
      Effect.catchTag("NoServer", () => Effect.succeedNone)
    )
    if (Option.isNone(output)) {
      return {
        ...base,
        is_alive: false,
        pid: null,
        version: null,
        start_time: null,
        generation: null,
        session_count: 0,
        window_count: 0,
        pane_count: 0,
        is_caller_server: Option.isSome(context.caller) ? false : null
      }
    }
    const server = yield* decodeServerIdentity(output.value)
    const ids = yield* decode(paneIdsRecord, output.value)
    return {
      ...base,
      is_alive: true,
      // What the server itself reports wins over our computation (e.g. a differently resolved TMUX_TMPDIR).
      socket_path: server.socket_path,
      pid: server.pid,
      version: server.version,
      start_time: server.start_time,
      generation: server.generation,
      // A window linked into two sessions lists its panes twice: count distinct ids.
      session_count: new Set(ids.map((row) => row.session_id)).size,
      window_count: new Set(ids.map((row) => row.window_id)).size,
      pane_count: new Set(ids.map((row) => row.pane_id)).size,
      is_caller_server: context.isCallerServer(socket, server.pid)
    }
  })
)

const isSocketFile = (path: string): Effect.Effect<boolean> =>
  Effect.tryPromise(() => stat(path)).pipe(
    Effect.map((info) => info.isSocket()),
    Effect.orElseSucceed(() => false)
  )

/** What a server answered when asked in a survey. */
export interface SurveyAnswer {
  readonly server: ServerIdentity
  readonly sessionCount: number
  /** Everything the invocation printed, including the records of a focus socket's own commands. */
  readonly output: Format.ParsedOutput
}

/** How one socket fared in a survey. */
export type SurveyProbe =
  | { readonly _tag: "Answered"; readonly answer: SurveyAnswer }
  | { readonly _tag: "NoServer" }
  /** Something accepted the connection but did not answer within the probe deadline (a stopped or wedged tmux). */
  | { readonly _tag: "Unresponsive" }

/**
 * How long a survey waits for each socket. Short: a stopped or wedged server accepts connections
 * and never answers, and it must not hold up the answer about the others.
 */
export const PROBE_TIMEOUT_MS = 2000

/** A socket a survey asks about on purpose, whether or not the scan finds it. */
export interface SurveyFocus {
  readonly socket: ResolvedSocket
  /** Commands of its own, sent in the same invocation after the identity and session list. */
  readonly commands?: CommandsWith | undefined
}

export interface Survey {
  /** The live servers, as `listServers` reports them. */
  readonly live: Array<LiveServer>
  /** Scanned sockets that did not answer within PROBE_TIMEOUT_MS, by socket path. */
  readonly unresponsive: Array<UnresponsiveSocket>
  /** Per focus socket, in order: how it answered. */
  readonly focus: Array<SurveyProbe>
}

const isTimeout = (error: TmuxError): boolean => error._tag === "Failed" && error.reason === "timeout"

/**
 * One socket's answer in a survey: its identity and sessions (and `commands`' records) in one
 * invocation within PROBE_TIMEOUT_MS. No server is `NoServer`, no answer in time `Unresponsive`;
 * any other failure is the caller's to report. `glance`: set up no persistent connection.
 */
export const askSocket = (
  socket: ResolvedSocket,
  commands: ReadonlyArray<CommandsWith>,
  glance: boolean
): Effect.Effect<SurveyProbe, Failed | NotFound, Tmux> =>
  query(
    socket,
    (m) => [serverIdentityCommand(m), ["list-sessions", "-F", sessionRecord.format(m)], ...commands.flatMap((more) => more(m))],
    { oneOff: glance, timeout: Duration.millis(PROBE_TIMEOUT_MS) }
  ).pipe(
    Effect.flatMap((output) =>
      Effect.all([decodeServerIdentity(output), decode(sessionRecord, output)]).pipe(
        Effect.map(([server, sessions]): SurveyProbe => ({ _tag: "Answered", answer: { server, sessionCount: sessions.length, output } }))
      )
    ),
    Effect.catch((error) => {
      if (error._tag === "NoServer") return Effect.succeed<SurveyProbe>({ _tag: "NoServer" })
      return isTimeout(error) ? Effect.succeed<SurveyProbe>({ _tag: "Unresponsive" }) : Effect.fail(error)
    })
  )

/**
 * Live servers in this user's tmux socket directory (plus `extraPaths`), and what the `focus`
 * sockets answer, with one invocation per socket, all at once, each with a short deadline: a socket
 * that does not answer in time is reported as unresponsive, not waited for. Every socket file is
 * asked; stale files left behind by exited servers are not servers. A focus socket is asked even
 * when it is not a socket file (so a dead one reads as dead), but counted only if the scan finds
 * it; one that the scan finds too is asked once, its commands added to the scan's.
 */
export const surveyServers = (
  extraPaths: ReadonlyArray<string>,
  focus: ReadonlyArray<SurveyFocus>
): Effect.Effect<Survey, Failed | NotFound, Tmux | SocketResolver> =>
  Effect.gen(function*() {
    const resolver = yield* SocketResolver
    const names = yield* Effect.tryPromise(() => readdir(resolver.socketDirectory)).pipe(
      Effect.orElseSucceed((): Array<string> => [])
    )
    const candidates = [...new Set([...names.map((name) => join(resolver.socketDirectory, name)), ...extraPaths])]
    const scanned = yield* Effect.filter(candidates, isSocketFile, { concurrency: 8 })

    // One entry per socket to ask: the scanned ones in order, then focus sockets the scan missed.
    const asks: Array<{ path: string; counted: boolean; focus: Array<number> }> = scanned.map((path) => ({
      path,
      counted: true,
      focus: []
    }))
    focus.forEach(({ socket }, index) => {
      // The scan is of this machine: a remote host's socket is asked on its own, whatever its path.
      const same = (path: string) => !isRemoteHost(socket.host) && samePath(path, socket.path)
      const ask = asks.find((entry) => same(entry.path))
      if (ask !== undefined) ask.focus.push(index)
      else asks.push({ path: socket.path, counted: false, focus: [index] })
    })

    const answers = yield* Effect.forEach(
      asks,
      (ask) => {
        const focused = ask.focus.map((index) => focus[index]!)
        // A focus socket is asked as its caller resolved it; sockets that are only counted, as a
        // glance that sets up no persistent connection.
        const socket = focused[0]?.socket ?? resolver.fromPath(ask.path)
        return askSocket(socket, focused.flatMap((entry) => entry.commands === undefined ? [] : [entry.commands]), focused.length === 0)
      },
      // All at once: the survey takes as long as its slowest socket, at most PROBE_TIMEOUT_MS.
      { concurrency: "unbounded" }
    )

    const live: Array<LiveServer> = []
    const unresponsive: Array<UnresponsiveSocket> = []
    asks.forEach((ask, index) => {
      const probe = answers[index]!
      if (!ask.counted) return
      const counted = resolver.fromPath(ask.path)
      const socket_name = counted.name
      if (probe._tag === "Unresponsive") unresponsive.push({ ...hostField(counted), socket_name, socket_path: ask.path })
      if (probe._tag !== "Answered") return
      const { server, sessionCount } = probe.answer
      live.push({
        ...hostField(counted),
        socket_name,
        socket_path: ask.path,
        pid: server.pid,
        version: server.version,
        generation: server.generation,
        session_count: sessionCount
      })
    })
    const byPath = (a: { readonly socket_path: string }, b: { readonly socket_path: string }) => a.socket_path.localeCompare(b.socket_path)
    return {
      live: live.sort(byPath),
      unresponsive: unresponsive.sort(byPath),
      focus: focus.map((_, index) => answers[asks.findIndex((ask) => ask.focus.includes(index))]!)
    }
  })

/** Live servers, and sockets whose server did not answer in time, as `list_servers` reports them. */
export interface ServerDiscovery {
  readonly live: Array<LiveServer>
  readonly unresponsive: Array<UnresponsiveSocket>
}

/**
 * Live servers in this user's tmux socket directory, one invocation each, all at once. Every
 * socket file is probed; stale files left behind by exited servers are not servers, and a server
 * that does not answer within PROBE_TIMEOUT_MS is reported apart. `extraPaths` adds sockets outside
 * the directory.
 */
export const discoverServers = Effect.fn("Servers.discoverServers")((
  extraPaths: ReadonlyArray<string> = []
): Effect.Effect<ServerDiscovery, Failed | NotFound, Tmux | SocketResolver> =>
  Effect.map(surveyServers(extraPaths, []), ({ live, unresponsive }) => ({ live, unresponsive }))
)

/** The live servers of `discoverServers`. */
export const listServers = Effect.fn("Servers.listServers")((
  extraPaths: ReadonlyArray<string> = []
): Effect.Effect<Array<LiveServer>, Failed | NotFound, Tmux | SocketResolver> =>
  Effect.map(discoverServers(extraPaths), (discovery) => discovery.live)
)

/** Whether `startServer` started the server or found one running, and who answers now. */
export interface StartServerResult {
  readonly started: boolean
  readonly server: ServerIdentity
}

/**
 * Starts a server on the socket and keeps it running without sessions (`exit-empty off`; a bare
 * `start-server` would exit at once). Says whether it started one or one was already running.
 * A socket path that holds something else than a socket is refused (tmux would delete it).
 */
export const startServer = Effect.fn("Servers.startServer")((
  socket: ResolvedSocket
): Effect.Effect<StartServerResult, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    const running = yield* probeServer(socket)
    if (Option.isSome(running)) return { started: false, server: running.value }
    yield* refuseOccupiedSocketPath(socket)
    // The probe may have met a server that is exiting (kill-server): it is waited out.
    const output = yield* startPastExitingServer(query(
      socket,
      (m) => [["start-server"], ["set-option", "-g", "exit-empty", "off"], serverIdentityCommand(m)],
      { startServer: true }
    ))
    return { started: true, server: yield* decodeServerIdentity(output) }
  })
)

/** Kills the server, unless the MCP server itself may be running inside it (or it is not the generation given). */
export const killServer = Effect.fn("Servers.killServer")((
  socket: ResolvedSocket,
  options: GenerationCheck = {}
): Effect.Effect<ServerIdentity, TmuxError | Denied, Tmux | InvocationContext> =>
  Effect.gen(function*() {
    const context = yield* InvocationContext
    // The probe it needs anyway answers the generation check too.
    const server = yield* expectServer(socket, yield* probeServer(socket), options.generation)
    if (context.mightBeCallerServer(socket, server.pid)) {
      return yield* Effect.fail(
        new Denied({
          kind: "self",
          reason:
            `Refusing to kill the tmux server at ${socket.label}: this MCP server runs inside it, and killing it would end the caller's own session.`
        })
      )
    }
    yield* query(socket, () => [["kill-server"]])
    return server
  })
)
