/**
 * The default live layer of `Tmux`: tmux's own client protocol over the server's Unix socket, one
 * connection per command list (`internal/SocketClient.ts`), so a call costs no process. It is what
 * the `tmux` CLI does once it has started, the same code path in the server as every CLI call (an
 * ordinary command client, not a control-mode client: none of control mode's crash window before tmux 3.7).
 *
 * The same semantics as `TmuxExec`, whose pieces it shares: the same end mark and limits
 * (`internal/CommandList.ts`), the same classification (`Classify.ts`) of the same stderr and exit
 * status, the same environment (`tmuxEnvironment`, sent as the client's) and working directory
 * (this process's, which a spawned CLI inherits), the configured deadline, and interruption closing
 * the connection. A dead socket is `NoServer` at once and never starts a server: calls that may
 * start one (`startServer`) go to exec, which alone can.
 *
 * A server gets at most MAX_CONNECTIONS connections of this layer at once (`internal/Turns.ts`);
 * more calls wait their turn in order, within their deadline, where a burst of connects would
 * overflow the queue tmux keeps of unaccepted ones. A list that waits on a channel takes no turn.
 *
 * What answers on a socket is not trusted. Right before each connection the socket's owner is
 * checked (`internal/SocketTrust.ts`): another user's socket is refused unless the user configured
 * its path, and then only this client serves it. A server's output is bounded
 * (`internal/OutputLimit.ts`). Only a tmux that answers MSG_VERSION (another protocol version, which
 * ran nothing) on this user's own socket is served by exec from then on, remembered per server (its
 * socket file: a new server at the path is tried again) and reported by `transportFor`; that call
 * is run by exec. Silence, a close, garbage or an unknown message never is: they fail the call
 * (a close before MSG_EXIT as the CLI says it, "server exited unexpectedly"), since a tmux CLI obeys
 * every file open its server asks for and this client obeys none.
 *
 * A remote host's socket (`socket.host`, from the hosts file) is reached through its OpenSSH
 * forward (`Connections`), as the host's user: the client's working directory is that user's HOME
 * and its environment the terminal's basics only. Exec never serves one (a tmux process here would
 * start a server on this machine at the forward's path): a list that may start a server runs on
 * the host, where the hosts file allows it, and a close before any answer is `NoServer` there.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { statSync } from "node:fs"
import { isRemoteHost, type RemoteHostView } from "../context/RemoteHosts.js"
import { type ResolvedSocket, socketKey } from "../context/SocketResolver.js"
import { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { Failed, NoServer, type TmuxError } from "../domain/Errors.js"
import { classifyFailure, timedOut } from "./Classify.js"
import { Connections } from "./Connections.js"
import { hostSpeaksEveryVersion, type PreparedIdentity, prepareIdentity, PROTOCOL_VERSION } from "./internal/ClientProtocol.js"
import { listArgv, type MarkedList, markList, readAnswer } from "./internal/CommandList.js"
import { OutputAllowance, outputOverflowed } from "./internal/OutputLimit.js"
import { runOverSocket, type SocketOutcome } from "./internal/SocketClient.js"
import { foreignRefused, mayBeForeign, type SocketTrust, socketTrust } from "./internal/SocketTrust.js"
import { Turns } from "./internal/Turns.js"
import { describeCommands, type RunOptions, Tmux, type TmuxCommand, type TmuxShape, type TransportInUse } from "./Tmux.js"
import { TmuxExec } from "./TmuxExec.js"
import { TmuxProcesses } from "./TmuxProcess.js"

/** The outcome of an exchange its deadline ended. */
const TIMED_OUT: unique symbol = Symbol("TIMED_OUT")

/** What an exchange came to, and how long it took (a retry by exec gets the rest of the deadline). */
interface Exchanged {
  readonly outcome: SocketOutcome | typeof TIMED_OUT
  readonly elapsedMs: number
}

/**
 * Connections of this process to one server at once; more calls wait their turn. Well under the
 * 128 tmux queues before accepting, which leaves room for other clients (a user's CLI).
 */
export const MAX_CONNECTIONS = 32

/** `wait-for <channel>` (or `-L`, a lock) waits until some client signals; `-S` and `-U` return at once. */
const waitsOnChannel = (commands: ReadonlyArray<TmuxCommand>): boolean =>
  commands.some((command) => {
    if (command[0] !== "wait-for") return false
    const end = command.indexOf("--")
    const flags = command.slice(1, end === -1 ? undefined : end)
    return !flags.includes("-S") && !flags.includes("-U")
  })

/**
 * A list the server took but did not end before it exited (kill-server sends MSG_SHUTDOWN, which
 * the CLI takes as exit 0 without a word) is a lost server, as one that closes the connection:
 * not an answer that is not tmux's. A list that killed the server itself carries no end mark.
 */
const lostToShutdown = (outcome: SocketOutcome, list: MarkedList): SocketOutcome =>
  outcome._tag === "Exited" && outcome.shutdown === true && list.mark !== undefined && list.mark.strip(outcome) === undefined
    ? { _tag: "Lost", answered: true }
    : outcome

/** The longest delay one Node timer holds (2^31 - 1 ms); a longer one would fire at once. */
const MAX_TIMER_MS = 2_147_483_647

const BIG_ENDIAN_HOST =
  "this host is big-endian, where tmux's frame header (changed in tmux 3.6) differs between versions; a tmux process per call serves every server"

/** A socket about to be connected to: whose it is, the path to connect to (a symlink's target, a forward) and as whom. */
interface Target {
  readonly socket: ResolvedSocket
  readonly trust: SocketTrust
  readonly connectPath: string
  readonly identity: PreparedIdentity
  /** The remote host's name when the socket is reached through a forward. */
  readonly host: string | undefined
}

/** A server that exec serves, and the socket file it was found behind. */
interface Fallback {
  readonly reason: string
  readonly socketFile: string | undefined
}

/** The socket file's identity: a server started anew at the same path makes a new file. */
const socketFileOf = (path: string): string | undefined => {
  try {
    const stats = statSync(path)
    return `${stats.dev}:${stats.ino}`
  } catch {
    return undefined
  }
}

/** This process's working directory, as a spawned CLI inherits it (tmux itself falls back to HOME). */
const workingDirectory = (home: string | undefined): string => {
  try {
    return process.cwd()
  } catch {
    return home ?? "/"
  }
}

export const makeTmuxSocket = Effect.gen(function*() {
  const config = yield* TmuxMcpConfig
  const exec = yield* TmuxExec.make
  const connections = Option.getOrUndefined(yield* Effect.serviceOption(Connections))
  const fallbacks = new Map<string, Fallback>()
  // What this layer's exchanges hold of their output, together.
  const allowance = new OutputAllowance()
  // The same for every connection: encoded once, not per call.
  const identity = prepareIdentity({
    environment: config.tmuxEnvironment,
    cwd: workingDirectory(config.tmuxEnvironment.HOME),
    pid: process.pid
  })
  // A remote server gets the terminal's basics only, and the host user's HOME as the working
  // directory: this machine's directories mean nothing there (or something else).
  const remoteEnvironment = Object.fromEntries(
    Object.entries(config.tmuxEnvironment).filter(([name]) => name === "TERM" || name === "LANG" || name.startsWith("LC_"))
  )
  const remoteIdentities = new Map<string, PreparedIdentity>()
  const remoteIdentity = (view: RemoteHostView): PreparedIdentity => {
    const key = `${view.host}\0${view.home}`
    let identity = remoteIdentities.get(key)
    if (identity === undefined) {
      remoteIdentities.set(key, identity = prepareIdentity({ environment: remoteEnvironment, cwd: view.home, pid: process.pid }))
    }
    return identity
  }

  /** Why exec serves this socket now, or undefined for the socket protocol. */
  const fallbackFor = (socket: ResolvedSocket): string | undefined => {
    // A remote host's socket is this client's alone (exec would run this machine's tmux).
    if (isRemoteHost(socket.host)) return undefined
    if (!hostSpeaksEveryVersion) return BIG_ENDIAN_HOST
    const fallback = fallbacks.get(socket.path)
    if (fallback === undefined) return undefined
    if (fallback.socketFile === socketFileOf(socket.path)) return fallback.reason
    fallbacks.delete(socket.path)
    return undefined
  }

  /** Each server's turns (a few counters per socket path this layer has talked to). */
  const turnsByPath = new Map<string, Turns>()
  const turnsFor = (path: string): Turns => {
    let turns = turnsByPath.get(path)
    if (turns === undefined) turnsByPath.set(path, turns = new Turns(MAX_CONNECTIONS))
    return turns
  }

  const remember = (socket: ResolvedSocket, reason: string) =>
    Effect.sync(() => fallbacks.set(socket.path, { reason, socketFile: socketFileOf(socket.path) }))

  /**
   * One command list over a connection, its deadline kept by a timer of its own: Effect's
   * `timeoutOrElse` forks a fiber and races it, ~0.2 ms of a one-pane read (measured).
   */
  const exchange = (
    { connectPath, identity, socket }: Target,
    argv: ReadonlyArray<string>,
    stdin: string | undefined,
    timeoutMs: number,
    waits: boolean
  ) =>
    Effect.callback<Exchanged>((resume) => {
      const started = performance.now()
      let finished = false
      let timer: ReturnType<typeof setTimeout> | undefined
      let close: (() => void) | undefined
      // Set below, and read by `finish`, which must never meet it uninitialized.
      let leave: (() => void) | undefined
      const finish = (outcome: SocketOutcome | typeof TIMED_OUT) => {
        if (finished) return
        finished = true
        clearTimeout(timer)
        leave?.()
        resume(Effect.succeed({ outcome, elapsedMs: performance.now() - started }))
      }
      const connect = () => {
        close = runOverSocket({ path: connectPath, identity, argv, stdin, allowance }, finish)
      }
      // The deadline counts the wait for a turn too. A list that waits on a channel takes none: it
      // may hold its connection for minutes, and a few of them would hold up every other call.
      if (waits) connect()
      else leave = turnsFor(socketKey(socket)).take(connect)
      // No timer for a deadline one cannot hold: the caller keeps that one with Effect's clock.
      if (timeoutMs <= MAX_TIMER_MS) {
        timer = setTimeout(() => {
          close?.()
          finish(TIMED_OUT)
        }, timeoutMs)
      }
      return Effect.sync(() => {
        finished = true
        clearTimeout(timer)
        close?.()
        leave?.()
      })
    })

  const run: TmuxShape["run"] = (socket, commands, options = {}) => {
    if (isRemoteHost(socket.host)) return runRemote(socket.host, socket, commands, options)
    if (options.startServer === true || fallbackFor(socket) !== undefined) return exec.run(socket, commands, options)
    const description = describeCommands(commands)
    const marked = markList(commands, description)
    if (Result.isFailure(marked)) return Effect.fail(marked.failure)
    const list = marked.success
    // Right before connecting: whose socket this is decides whether it may be used, and by whom.
    const trust = socketTrust(socket.path, config.uid)
    if (trust._tag === "foreign" && !mayBeForeign(socket)) return Effect.fail(foreignRefused(socket, trust.why, description))
    const target: Target = { socket, trust, connectPath: trust._tag === "absent" ? socket.path : trust.path, identity, host: undefined }
    return deadlined(target, commands, options, list, description)
  }

  /**
   * A socket on a remote host: through its forward (made on first use), never by exec, which would
   * run this machine's tmux at the forward's path; a list that may start a server runs on the host.
   */
  const runRemote = (
    host: string,
    socket: ResolvedSocket,
    commands: ReadonlyArray<TmuxCommand>,
    options: RunOptions
  ): Effect.Effect<string, TmuxError> => {
    const description = describeCommands(commands)
    if (connections === undefined) {
      return Effect.fail(
        new Failed({ command: description, reason: "refused", exitCode: null, stderr: `no hosts file configures host ${host}` })
      )
    }
    const marked = markList(commands, description)
    if (Result.isFailure(marked)) return Effect.fail(marked.failure)
    const list = marked.success
    const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.millis(config.commandTimeoutMs))
    if (options.startServer === true) {
      return connections.runStarting(host, socket.path, listArgv(list.sent), { stdin: options.stdin, timeout, description }).pipe(
        Effect.flatMap((result) => Effect.fromResult(readAnswer(result, list, socket.label, description)))
      )
    }
    // Scoped: the forward is held until the exchange is over, so it is never released under a call.
    return Effect.scoped(Effect.gen(function*() {
      const view = yield* connections.view(host)
      const connectPath = yield* connections.forward(host, socket.path)
      // The forward's socket is this server's own (0600 in its private directory): anything else there is not.
      const trust = socketTrust(connectPath, config.uid)
      if (trust._tag !== "own") {
        return yield* Effect.fail(
          new Failed({
            command: description,
            reason: "refused",
            exitCode: null,
            stderr: `the forward's socket for ${socket.label} is not this server's own`
          })
        )
      }
      return yield* deadlined({ socket, trust, connectPath, identity: remoteIdentity(view), host }, commands, options, list, description)
    }))
  }

  const deadlined = (
    target: Target,
    commands: ReadonlyArray<TmuxCommand>,
    options: RunOptions,
    list: MarkedList,
    description: string
  ): Effect.Effect<string, TmuxError> => {
    const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.millis(config.commandTimeoutMs))
    const timeoutMs = Duration.toMillis(timeout)
    // A deadline past what one timer holds (about 24.8 days) or none at all: Effect's clock keeps it.
    if (!(timeoutMs <= MAX_TIMER_MS)) {
      const unbounded = exchangeFor(target, commands, options, list, description, timeout, Number.POSITIVE_INFINITY)
      return Duration.isFinite(timeout)
        ? Effect.timeoutOrElse(unbounded, { duration: timeout, orElse: () => Effect.fail(timedOut(description, timeout)) })
        : unbounded
    }
    return exchangeFor(target, commands, options, list, description, timeout, timeoutMs)
  }

  // No span of its own, unlike exec's: one costs ~0.1 ms here, a twentieth of a one-pane read, and
  // the operation's span (Effect.fn) already covers the round trip.
  const exchangeFor = (
    target: Target,
    commands: ReadonlyArray<TmuxCommand>,
    options: RunOptions,
    list: MarkedList,
    description: string,
    timeout: Duration.Duration,
    timeoutMs: number
  ): Effect.Effect<string, TmuxError> => {
    const { host, socket, trust } = target
    const failedAs = (stderr: string) => classifyFailure({ stderr, exitCode: 1, socketLabel: socket.label, command: description })
    return exchange(target, listArgv(list.sent), options.stdin, timeoutMs, waitsOnChannel(list.sent)).pipe(
      Effect.map((exchanged): Exchanged => ({
        ...exchanged,
        outcome: exchanged.outcome === TIMED_OUT ? exchanged.outcome : lostToShutdown(exchanged.outcome, list)
      })),
      // Over a forward, a link that went down explains any failure: the host's error says so.
      Effect.flatMap((exchanged) =>
        host === undefined || connections === undefined || exchanged.outcome !== TIMED_OUT && exchanged.outcome._tag === "Exited"
          ? Effect.succeed({ ...exchanged, linkDown: undefined })
          : Effect.map(connections.linkError(host, description), (linkDown) => ({ ...exchanged, linkDown }))
      ),
      Effect.flatMap(({ elapsedMs, linkDown, outcome }) => {
        if (linkDown !== undefined) return Effect.fail(linkDown)
        if (outcome === TIMED_OUT) {
          // Over ssh, silence may be the link's: ServerAlive ends a master whose link stopped carrying data within ~10 s.
          return Effect.fail(
            timedOut(
              description,
              timeout,
              host === undefined ? undefined : `no answer over the ssh link to host ${host} (the link may be stalled)`
            )
          )
        }
        if (host !== undefined) {
          const remote = remoteOutcome(host, socket, outcome, description)
          if (remote !== undefined) return Effect.fail(remote)
        }
        switch (outcome._tag) {
          case "Exited":
            return Effect.fromResult(readAnswer(outcome, list, socket.label, description))
          case "Unreachable":
            return Effect.fail(failedAs(outcome.stderr))
          case "Lost":
            // The CLI's words when its server closes the connection before MSG_EXIT (a server
            // exiting closes a new connection at once): no server, never a reason to try exec.
            return Effect.fail(failedAs("server exited unexpectedly\n"))
          case "Overflowed":
            return Effect.fail(outputOverflowed(description, outcome.overflow))
          case "Garbled":
            return Effect.fail(
              new Failed({
                command: description,
                reason: "unparseable",
                exitCode: null,
                stderr: `what answers on socket ${socket.label} does not speak tmux's client protocol (${outcome.reason})${
                  outcome.answered ? "; the commands may have run in part" : ""
                }: not a tmux server, or a broken one`
              })
            )
          case "OtherVersion":
            // A tmux of another protocol version ran nothing: a tmux process of that version may
            // serve it, but only this user's own socket (a process opens what its server asks).
            if (trust._tag === "foreign") {
              return Effect.fail(
                new Failed({
                  command: description,
                  reason: "refused",
                  exitCode: null,
                  stderr:
                    `socket ${socket.label} speaks tmux protocol version ${outcome.version}, this client ${PROTOCOL_VERSION}, and is not this user's (${trust.why}): another user's server is never served by a tmux process`
                })
              )
            }
            return remember(socket, `the server speaks tmux protocol version ${outcome.version}, this client ${PROTOCOL_VERSION}`).pipe(
              Effect.andThen(retryByExec(socket, commands, options, description, timeout, timeoutMs - elapsedMs))
            )
        }
      })
    )
  }

  /**
   * What a forward's failures mean. ssh accepts every connection to a forward and opens the channel
   * only then, so a close before any answer is the remote side saying no: no server at that path
   * (tmux leaves a killed server's socket behind), or sshd refusing to forward, which looks the same
   * from here; list_servers and doctor tell it apart (then no socket of the host answers). Never a
   * reason to try exec.
   */
  const remoteOutcome = (host: string, socket: ResolvedSocket, outcome: SocketOutcome, description: string): TmuxError | undefined => {
    switch (outcome._tag) {
      case "Unreachable":
        return new Failed({
          command: description,
          reason: "host",
          exitCode: null,
          stderr:
            `host ${host}: the forward to ${socket.path} does not accept connections (${outcome.stderr.trim()}); the ssh link may be going down`
        })
      case "Lost":
        return new NoServer({ socket: socket.label, host, startable: connections?.settings(host)?.allowServerStart === true })
      case "OtherVersion":
        return new Failed({
          command: description,
          reason: "unparseable",
          exitCode: null,
          stderr:
            `the tmux server at ${socket.label} speaks tmux protocol version ${outcome.version}, this client ${PROTOCOL_VERSION}: a remote server is served by this client only`
        })
      default:
        return undefined
    }
  }

  /** One deadline for the call: a retry by exec gets what the socket left of it. */
  const retryByExec = (
    socket: ResolvedSocket,
    commands: ReadonlyArray<TmuxCommand>,
    options: RunOptions,
    description: string,
    timeout: Duration.Duration,
    leftMs: number
  ): Effect.Effect<string, TmuxError> =>
    leftMs <= 0
      ? Effect.fail(timedOut(description, timeout))
      : Number.isFinite(leftMs)
      ? Effect.timeoutOrElse(exec.run(socket, commands, options), {
        duration: Duration.millis(leftMs),
        orElse: () => Effect.fail(timedOut(description, timeout))
      })
      : exec.run(socket, commands, options)

  const transportFor = (socket: ResolvedSocket): Effect.Effect<TransportInUse> =>
    Effect.sync(() => {
      const fallback = fallbackFor(socket)
      return fallback === undefined ? { transport: "socket", fallback: null } : { transport: "exec", fallback }
    })

  // The exec it falls back on (and calls that may start a server) runs the binary.
  return Tmux.of({ run, transportFor, binary: exec.binary! })
})

/** `Tmux` over tmux's client protocol, exec where a server needs it. The layer needs only `TmuxMcpConfig`. */
export const TmuxSocket = {
  make: makeTmuxSocket,
  layer: Layer.effect(Tmux, makeTmuxSocket).pipe(Layer.provide(TmuxProcesses.layer)) satisfies Layer.Layer<
    Tmux,
    never,
    TmuxMcpConfig
  >
}
