/**
 * `Connections`: the links to the remote hosts of the hosts file, below `Tmux`. Each host gets one
 * OpenSSH master (`ssh -M -N`, a child of this process in its own process group, like tmux
 * children), started on first use (concurrent first calls share the start), and each remote tmux
 * socket one forward through it (`ssh -O forward -L <local>:<remote>`): the socket transport then
 * speaks tmux's protocol over the forward's local socket, with no process per call.
 *
 * - What runs remotely is fixed (internal/RemoteScripts.ts): discovery once per connection, the
 *   socket listing for list_servers, and a tmux command list that may start a server, only where
 *   the hosts file allows it. Never caller text, never the local tmux (a local tmux at a forward's
 *   path would start a server on this machine while the agent believes it is on the host).
 * - Local files: the masters' control sockets and the forwards' sockets live in this user's private
 *   directory (`<TMUX_TMPDIR>/effect-tmux-mcp-<uid>/ssh`, 0700; each socket 0600 by
 *   StreamLocalBindMask), named by this process's pid and a hash of (host, remote path, serial).
 *   OpenSSH never unlinks a forward's socket, so this layer does: when a master ends, at shutdown,
 *   and at start-up for the files of processes that are gone, ending first any master such a
 *   process (one killed with SIGKILL) left running.
 * - Forwards are bounded: a host keeps 16 at most (each is a descriptor of its master, whose limit
 *   would otherwise refuse every new forward), each held by the calls using it; an idle one is
 *   released (`ssh -O cancel`, its file removed) to make room, or after 5 minutes unused.
 * - A master that exits (the link died, ServerAlive gave up, it was killed) marks the host down:
 *   its forwards are removed, and calls fail at once with the host's error naming ssh's last words
 *   until a back-off (1 s, doubling to 30 s) has passed; the next call then connects again.
 * - Shutdown: the layer is released after the layers above (Ownership kills its remote sessions
 *   first, over the still-open link, or over one made again for it when it had just dropped:
 *   endBackoff); then each master is ended and every file removed.
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import type { ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import { join } from "node:path"
import type { HostsConfig, HostSettings } from "../context/HostsConfig.js"
import { ensurePrivateDirectory } from "../context/PrivateDirectory.js"
import { realPathOrSelf } from "../context/RealPath.js"
import { RemoteHosts, type RemoteHostsShape, type RemoteHostView } from "../context/RemoteHosts.js"
import { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { escapeControls } from "../domain/ControlText.js"
import { Failed } from "../domain/Errors.js"
import { randomHex } from "./internal/RandomHex.js"
import { DISCOVERY, parseDiscovery, parseSockets, SOCKETS, TMUX_START } from "./internal/RemoteScripts.js"
import { cancelForwardArgv, exitMasterArgv, forwardArgv, masterArgv, remoteExecArgv } from "./internal/SshArgv.js"
import { controlPathProblem, forwardPathProblem } from "./internal/SshPathRules.js"
import { controlSocketPath, fitsSocketAddress, forwardSocketPath, socketOwner } from "./internal/SshSocketNames.js"
import { type Finished, runToEnd, terminate, TmuxProcesses } from "./TmuxProcess.js"

/** Reads `ssh -V`'s OpenSSH version, for doctor's check of the client. */
export { openSshVersion } from "./internal/SshArgv.js"

/** A host's link as where_am_i and doctor report it. */
export interface LinkReport {
  readonly host: string
  readonly ssh: string
  readonly state: "idle" | "connecting" | "up" | "down"
  /** Why the link is down (ssh's own last words), else null. */
  readonly cause: string | null
  /** When down: milliseconds until the next call may connect again. */
  readonly retryInMs: number | null
  /** Remote sockets forwarded now. */
  readonly forwards: number
}

/** The links' operations: RemoteHosts' (`names`, `view`) and what the socket transport, list_servers and doctor need. */
export interface ConnectionsShape extends RemoteHostsShape {
  readonly settings: (host: string) => HostSettings | undefined
  /**
   * The local socket that reaches `remotePath` on `host`, forwarding it first if needed, held for
   * the caller's scope: a forward in use is never released. A host keeps at most 16 forwards; past
   * that, the least recently used idle one is released first (or the call waits for one to be).
   */
  readonly forward: (host: string, remotePath: string) => Effect.Effect<string, Failed, Scope.Scope>
  /**
   * The host's error when its link is down now (a call over it just failed), else undefined. A
   * master that ended before this layer saw it end (a call through its forward can fail first) is
   * found by its control socket, which no longer accepts: its end is then waited for, briefly.
   */
  readonly linkError: (host: string, description: string) => Effect.Effect<Failed | undefined>
  /** The socket names in the host's socket directory now. */
  readonly sockets: (host: string) => Effect.Effect<ReadonlyArray<string>, Failed>
  /**
   * Runs `tmux -u -S <remotePath> <argv>` on the host (a list that may start a server): only where
   * the hosts file allows it.
   */
  readonly runStarting: (
    host: string,
    remotePath: string,
    argv: ReadonlyArray<string>,
    options: { readonly stdin?: string | undefined; readonly timeout: Duration.Duration; readonly description: string }
  ) => Effect.Effect<Finished, Failed>
  readonly link: (host: string) => LinkReport
  /**
   * For shutdown's last calls (Ownership releasing the sessions it owns): a host down within its
   * back-off is connected again at its next call, once (a failure sets a new back-off), bounded by
   * its connect timeout, rather than refused until the back-off has passed.
   */
  readonly endBackoff: Effect.Effect<void>
}

/** The links to the hosts file's hosts; provided (with RemoteHosts) only when a hosts file is configured. */
export class Connections extends Context.Service<Connections, ConnectionsShape>()("effect-tmux-mcp/Connections") {}

const FIRST_BACKOFF_MS = 1000
const MAX_BACKOFF_MS = 30_000
/** Output of one ssh for discovery or a listing: a few lines. */
const MAX_SCRIPT_OUTPUT_BYTES = 256 * 1024
/** What the master's stderr is kept of, for the cause of its end. */
const MAX_STDERR_TAIL = 2048
const READY_POLL_MS = 20
/** How long after a master's exit its stderr may still be read, at most. */
const STDERR_DRAIN_MS = 250
const FORWARD_TIMEOUT_MS = 10_000
/**
 * Forwards a host keeps at most: each is a listening descriptor in its master (whose descriptor
 * limit would otherwise refuse every new forward, a live server's too) and a file here.
 */
const MAX_FORWARDS = 16
/** A forward no call used for this long is released (looked for every minute at most). */
const FORWARD_IDLE_MS = 5 * 60_000
const IDLE_CHECK_MS = 60_000
/** How long a call whose master's control socket refuses waits for that master's end to be seen. */
const MASTER_END_WAIT_MS = 1000
/** `ssh -O exit` on a leftover control socket: a local exchange with the master, or a refusal. */
const SWEEP_EXIT_TIMEOUT_MS = 5000
/** The ssh client's "something went wrong on my side" exit status. */
const SSH_FAILED = 255

interface Forward {
  readonly remotePath: string
  readonly localPath: string
  readonly ready: Deferred.Deferred<string, Failed>
  /** Calls holding it now: it is released only when none does. */
  leases: number
  lastUsed: number
}

interface HostState {
  readonly settings: HostSettings
  readonly controlPath: string
  master: ChildProcess | undefined
  /** Completed when the current master's end has been seen (the host then marked down). */
  masterEnded: Deferred.Deferred<void> | undefined
  /** The start in progress or done, for this master's lifetime. */
  starting: Deferred.Deferred<RemoteHostView, Failed> | undefined
  view: RemoteHostView | undefined
  /** By remote path, least recently used first (a use moves a forward to the end). */
  forwards: Map<string, Forward>
  /** Forwards made so far: each gets a file of its own. */
  forwardSerial: number
  /** Forwards out of the map whose master may still listen (being cancelled): they count toward the bound. */
  releasing: number
  /** Completed when a forward stops being used or is gone: a call waiting for room looks again. */
  roomMade: Deferred.Deferred<void>
  down: { readonly cause: string; readonly retryAt: number } | undefined
  failures: number
  stderrTail: string
}

const unlinkQuietly = (path: string) => {
  try {
    fs.unlinkSync(path)
  } catch {
    // Already gone.
  }
}

const isSocketFile = (path: string): boolean => {
  try {
    return fs.lstatSync(path).isSocket()
  } catch {
    return false
  }
}

const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** ssh's last words, one line, for a cause (a channel a forward could not open is a call's story, not the link's). */
const lastWords = (stderr: string): string => {
  const lines = stderr.split("\n").map((line) => line.trim()).filter((line) => line !== "" && !/^channel \d+: open failed/.test(line))
  return lines[lines.length - 1]?.slice(0, 300) ?? ""
}

/** What a test may shorten: how long a forward stays unused before it is released. */
export interface ConnectionsTiming {
  readonly forwardIdleMs: number
}

export const makeConnections = (
  hosts: HostsConfig,
  timing: ConnectionsTiming = { forwardIdleMs: FORWARD_IDLE_MS }
): Effect.Effect<ConnectionsShape, never, TmuxMcpConfig | TmuxProcesses | Scope.Scope> =>
  Effect.gen(function*() {
    const config = yield* TmuxMcpConfig
    const processes = yield* TmuxProcesses
    const scope = yield* Effect.scope
    const baseDirectory = join(realPathOrSelf(config.tmuxTmpdir), `effect-tmux-mcp-${config.uid}`)
    const directory = join(baseDirectory, "ssh")
    // Two layers in one process (an embedder's, a test's calls at once) share pid and directory:
    // each names its files apart, or one would unlink and replace the other's forwards.
    const instance = randomHex(12)
    // Every control socket and forward is a file of this directory: a path ssh would read as another
    // (a TMUX_TMPDIR holding '%' or '${') would put them where this layer does not look.
    const directoryProblem = controlPathProblem(directory) ?? forwardPathProblem(directory)
    let prepared = false
    const environment: Record<string, string> = { ...config.tmuxEnvironment, ...hosts.environment }

    const states = new Map<string, HostState>()
    for (const settings of hosts.hosts) {
      states.set(settings.name, {
        settings,
        controlPath: controlSocketPath(directory, process.pid, instance, settings.name),
        master: undefined,
        masterEnded: undefined,
        starting: undefined,
        view: undefined,
        forwards: new Map(),
        forwardSerial: 0,
        releasing: 0,
        roomMade: Deferred.makeUnsafe<void>(),
        down: undefined,
        failures: 0,
        stderrTail: ""
      })
    }

    const hostFailed = (host: HostSettings, command: string, detail: string) =>
      new Failed({ command, reason: "host", exitCode: null, stderr: `host ${host.name} (ssh ${host.destination}): ${detail}` })

    const downError = (state: HostState, command: string): Failed => {
      const wait = Math.max(0, (state.down?.retryAt ?? 0) - Date.now())
      return hostFailed(
        state.settings,
        command,
        `the ssh link is down (${state.down?.cause ?? "unknown"}); ${
          wait > 0 ? `a call after ${Math.ceil(wait / 1000)} s connects again` : "the next call connects again"
        }`
      )
    }

    /**
     * The files of processes that are gone (ssh never unlinks them), at start-up: a master still
     * running behind a control socket is ended first (`ssh -O exit`), as its server, killed with
     * SIGKILL, could not end it, and nothing could once its socket is removed. Only in a directory
     * that is already this user's private one; each file is this layer's only by its name.
     */
    const sweep = Effect.suspend(() => {
      let names: Array<string>
      try {
        if (directoryProblem !== undefined || !fs.existsSync(directory)) return Effect.void
        ensurePrivateDirectory(baseDirectory, config.uid)
        ensurePrivateDirectory(directory, config.uid)
        names = fs.readdirSync(directory)
      } catch {
        return Effect.void
      }
      const leftovers = names.flatMap((name) => {
        const owner = socketOwner(name)
        return owner === undefined || processAlive(owner.pid) ? [] : [{ kind: owner.kind, path: join(directory, name) }]
      })
      return Effect.forEach(leftovers, ({ kind, path }) =>
        Effect.andThen(
          kind === "control" ? Effect.ignore(runSsh(exitMasterArgv(path), SWEEP_EXIT_TIMEOUT_MS)) : Effect.void,
          Effect.sync(() => unlinkQuietly(path))
        ), { concurrency: 4, discard: true })
    })

    /** Private directory, once; file names that fit a socket address. */
    const prepare = (state: HostState): string | undefined => {
      if (directoryProblem !== undefined) {
        return `the private directory ${directory} for ssh sockets cannot be given to ssh: ${directoryProblem} (set TMUX_TMPDIR to a plain directory)`
      }
      try {
        if (!prepared) {
          ensurePrivateDirectory(baseDirectory, config.uid)
          ensurePrivateDirectory(directory, config.uid)
          prepared = true
        }
      } catch (error) {
        return `cannot prepare the private directory for ssh sockets: ${error instanceof Error ? error.message : String(error)}`
      }
      // A forward's name is as long as the control socket's, which also needs room for ssh's suffix.
      if (!fitsSocketAddress(state.controlPath, "control")) {
        return `the private directory ${directory} is too long for ssh's control socket (set TMUX_TMPDIR to a shorter directory)`
      }
      return undefined
    }

    const runSsh = (argv: ReadonlyArray<string>, timeoutMs: number, stdin?: string): Effect.Effect<Finished, string> =>
      runToEnd("ssh", argv, { env: environment, stdin, maxOutputBytes: MAX_SCRIPT_OUTPUT_BYTES }).pipe(
        Effect.provideService(TmuxProcesses, processes),
        Effect.mapError((error) => error._tag === "OutputOverflowed" ? "ssh printed more than a script answers" : error.message),
        Effect.timeoutOrElse({ duration: Duration.millis(timeoutMs), orElse: () => Effect.fail(`ssh did not answer in ${timeoutMs} ms`) })
      )

    const markDown = (state: HostState, cause: string) => {
      state.failures++
      const backoff = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (state.failures - 1))
      state.down = { cause, retryAt: Date.now() + backoff }
      state.view = undefined
      state.starting = undefined
      for (const forward of state.forwards.values()) unlinkQuietly(forward.localPath)
      state.forwards.clear()
      announceRoom(state)
      unlinkQuietly(state.controlPath)
      // ssh's words may be the host's (a forced command's output): never raw on a terminal.
      process.stderr.write(`effect-tmux-mcp: host ${state.settings.name}: ssh link down: ${escapeControls(cause)}\n`)
    }

    /** Starts the master, waits until its control socket answers, then discovers the host. */
    const start = (state: HostState): Effect.Effect<RemoteHostView, Failed> =>
      Effect.gen(function*() {
        const { settings } = state
        const command = `connect to host ${settings.name}`
        const problem = prepare(state)
        if (problem !== undefined) return yield* Effect.fail(hostFailed(settings, command, problem))
        unlinkQuietly(state.controlPath)
        state.stderrTail = ""
        let child: ChildProcess
        try {
          child = processes.spawn("ssh", masterArgv(hosts, settings, state.controlPath), { env: environment, stdin: false })
        } catch (error) {
          return yield* Effect.fail(
            hostFailed(settings, command, `ssh could not be started: ${(error as NodeJS.ErrnoException).code ?? String(error)}`)
          )
        }
        state.master = child
        const ended = Deferred.makeUnsafe<void>()
        state.masterEnded = ended
        child.stdout?.resume()
        child.stderr?.on("data", (chunk: Buffer) => {
          state.stderrTail = (state.stderrTail + chunk.toString("utf8")).slice(-MAX_STDERR_TAIL)
        })
        let exited: string | undefined
        const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
          if (exited !== undefined) return
          // A signal is the whole story (ssh had no last words); an exit's reason is its last line.
          exited = signal !== null ? `ssh ended by ${signal}` : lastWords(state.stderrTail) || `ssh exited with status ${code}`
          if (state.master === child) {
            state.master = undefined
            markDown(state, exited)
          }
          Deferred.doneUnsafe(ended, Exit.void)
        }
        // "exit" can come before the last of stderr is read: its words are the cause, so the end
        // is taken at "close" (stderr drained), or a moment after "exit" if a process ssh started
        // (a ProxyCommand) still holds the pipe.
        child.once("exit", (code, signal) => {
          const late = setTimeout(() => onExit(code, signal), STDERR_DRAIN_MS)
          child.once("close", () => {
            clearTimeout(late)
            onExit(code, signal)
          })
        })
        // A spawn that failed emits "error" and never "exit".
        child.once("error", () => onExit(null, null))
        const deadline = Date.now() + settings.connectTimeoutS * 1000 + 5000
        while (!isSocketFile(state.controlPath)) {
          if (exited !== undefined) return yield* Effect.fail(hostFailed(settings, command, `ssh could not connect: ${exited}`))
          if (Date.now() > deadline) {
            yield* Effect.promise(() => terminate(child))
            return yield* Effect.fail(hostFailed(settings, command, "ssh did not connect in time"))
          }
          yield* Effect.sleep(Duration.millis(READY_POLL_MS))
        }
        const found = yield* discover(state, DISCOVERY, parseDiscovery)
        state.failures = 0
        state.down = undefined
        const view: RemoteHostView = {
          host: settings.name,
          uid: found.uid,
          home: found.home,
          socketDirectory: found.socketDirectory,
          runDirectory: found.runDirectory,
          allowedSockets: settings.sockets,
          allowServerStart: settings.allowServerStart
        }
        state.view = view
        return view
      }).pipe(
        // Whatever failed, a master left running would hold a link no one uses.
        Effect.tapError((error) =>
          Effect.promise(async () => {
            const child = state.master
            state.master = undefined
            if (child !== undefined) await terminate(child)
            // The cause where_am_i and the next calls show: what failed (discovery, the private directory…).
            if (state.down === undefined) markDown(state, error.stderr.replace(/^host \S+ \(ssh \S+\): /, ""))
          })
        )
      )

    const discover = <A>(state: HostState, script: string, parse: (stdout: string) => A | string): Effect.Effect<A, Failed> => {
      const { settings } = state
      const timeoutMs = settings.connectTimeoutS * 1000 + 5000
      return runSsh(remoteExecArgv(hosts, settings, state.controlPath, script, []), timeoutMs).pipe(
        Effect.flatMap((result) => {
          if (result.exitCode !== 0) {
            return Effect.fail(lastWords(result.stderr) || `the remote script exited with status ${result.exitCode}`)
          }
          const parsed = parse(result.stdout)
          return typeof parsed === "string" ? Effect.fail(parsed) : Effect.succeed(parsed)
        }),
        Effect.mapError((detail) => hostFailed(settings, `discover host ${settings.name}`, detail))
      )
    }

    const stateOf = (host: string): HostState | undefined => states.get(host)

    const unknownHost = (host: string) =>
      new Failed({ command: "connect", reason: "refused", exitCode: null, stderr: `host ${host} is not in the hosts file` })

    const view = (host: string): Effect.Effect<RemoteHostView, Failed> =>
      Effect.suspend(() => {
        const state = stateOf(host)
        if (state === undefined) return Effect.fail(unknownHost(host))
        if (state.view !== undefined && state.master !== undefined) return Effect.succeed(state.view)
        if (state.down !== undefined && Date.now() < state.down.retryAt) return Effect.fail(downError(state, `connect to host ${host}`))
        if (state.starting === undefined) {
          const starting = Deferred.makeUnsafe<RemoteHostView, Failed>()
          state.starting = starting
          // The start belongs to the layer, not to the first caller: a caller that gives up (its
          // deadline, a cancel) does not end the start the others wait for.
          return Effect.andThen(
            Effect.forkIn(Effect.flatMap(Effect.exit(start(state)), (exit) => Deferred.done(starting, exit)), scope),
            Deferred.await(starting)
          )
        }
        return Deferred.await(state.starting)
      })

    /**
     * The host's view, for a call about `remotePath` there: a path ssh would forward as another path
     * (internal/SshPathRules.ts) is refused first, never handed to ssh.
     */
    const viewFor = (host: string, remotePath: string, command: string): Effect.Effect<RemoteHostView, Failed> =>
      Effect.suspend(() => {
        const state = stateOf(host)
        const problem = forwardPathProblem(remotePath)
        return state === undefined || problem === undefined
          ? view(host)
          : Effect.fail(hostFailed(state.settings, command, `the socket path ${remotePath} there is not forwarded: ${problem}`))
      })

    /** Wakes the calls waiting for room on the host: a forward went idle or away. */
    const announceRoom = (state: HostState) => {
      Deferred.doneUnsafe(state.roomMade, Exit.void)
      state.roomMade = Deferred.makeUnsafe<void>()
    }

    /** Forwards `forward.remotePath` to `forward.localPath`: ready with the local path, or removed again. */
    const make = (state: HostState, forward: Forward): Effect.Effect<void> => {
      const { localPath, ready, remotePath } = forward
      unlinkQuietly(localPath)
      const made = runSsh(forwardArgv(hosts, state.settings, state.controlPath, localPath, remotePath), FORWARD_TIMEOUT_MS).pipe(
        Effect.flatMap((result) =>
          result.exitCode === 0 && isSocketFile(localPath)
            ? Effect.succeed(localPath)
            : Effect.fail(lastWords(result.stderr) || `ssh -O forward exited with status ${result.exitCode}`)
        ),
        Effect.mapError((detail) => hostFailed(state.settings, "forward", `the master refused to forward ${remotePath}: ${detail}`)),
        Effect.tapError(() =>
          Effect.sync(() => {
            if (state.forwards.get(remotePath) === forward) state.forwards.delete(remotePath)
            announceRoom(state)
          })
        )
      )
      return Effect.flatMap(Effect.exit(made), (exit) => Deferred.done(ready, exit))
    }

    /**
     * Ends a forward, taken out of its host's map now: the master closes its listener (connections
     * made through it stay), and its file is removed, as ssh never does.
     */
    const release = (state: HostState, forward: Forward): Effect.Effect<void> => {
      state.forwards.delete(forward.remotePath)
      state.releasing++
      return Deferred.await(forward.ready).pipe(
        Effect.flatMap(() =>
          state.master === undefined
            ? Effect.void
            : runSsh(
              cancelForwardArgv(hosts, state.settings, state.controlPath, forward.localPath, forward.remotePath),
              FORWARD_TIMEOUT_MS
            )
        ),
        Effect.ignore,
        Effect.ensuring(Effect.sync(() => {
          state.releasing--
          unlinkQuietly(forward.localPath)
          announceRoom(state)
        }))
      )
    }

    /**
     * A lease on the forward of `remotePath` for the caller's scope: the one there is, or a new one
     * (made in the layer's scope: a caller that gives up does not end it for the others) when the
     * host has room; undefined when it has none.
     */
    const lease = (state: HostState, remotePath: string): Effect.Effect<Forward | undefined, never, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.suspend(() => {
          const known = state.forwards.get(remotePath)
          if (known !== undefined) {
            known.leases++
            known.lastUsed = Date.now()
            state.forwards.delete(remotePath)
            state.forwards.set(remotePath, known)
            return Effect.succeed(known)
          }
          if (state.forwards.size + state.releasing >= MAX_FORWARDS) return Effect.succeed(undefined)
          const forward: Forward = {
            remotePath,
            localPath: forwardSocketPath(directory, process.pid, instance, state.settings.name, remotePath, ++state.forwardSerial),
            ready: Deferred.makeUnsafe<string, Failed>(),
            leases: 1,
            lastUsed: Date.now()
          }
          state.forwards.set(remotePath, forward)
          return Effect.as(Effect.forkIn(make(state, forward), scope), forward)
        }),
        (forward) =>
          Effect.sync(() => {
            if (forward === undefined) return
            forward.leases--
            forward.lastUsed = Date.now()
            if (forward.leases === 0) announceRoom(state)
          })
      )

    /**
     * Room for one more forward: the least recently used idle one released, or a wait until one is
     * idle or gone, until `deadline` (calls holding every forward, such as waits on channels, may
     * hold them for minutes).
     */
    const room = (state: HostState, deadline: number): Effect.Effect<void, Failed> =>
      Effect.suspend(() => {
        const idle = [...state.forwards.values()].find((forward) => forward.leases === 0)
        if (idle !== undefined) return release(state, idle)
        return Deferred.await(state.roomMade).pipe(
          Effect.timeoutOrElse({
            duration: Duration.millis(Math.max(0, deadline - Date.now())),
            orElse: () =>
              Effect.fail(
                hostFailed(
                  state.settings,
                  "forward",
                  `all ${MAX_FORWARDS} forwards this server keeps to the host are in use by other calls`
                )
              )
          })
        )
      })

    /** Idle forwards of every host released, at most every minute. */
    const releaseIdle = Effect.suspend(() => {
      const now = Date.now()
      const idle = [...states.values()].flatMap((state) =>
        [...state.forwards.values()]
          .filter((forward) => forward.leases === 0 && now - forward.lastUsed >= timing.forwardIdleMs)
          .map((forward) => ({ state, forward }))
      )
      // Each taken out of its map now, before a call can lease it again.
      return Effect.all(idle.map(({ forward, state }) => release(state, forward)), { discard: true })
    })

    const forwardBy = (host: string, remotePath: string, deadline: number): Effect.Effect<string, Failed, Scope.Scope> =>
      Effect.flatMap(viewFor(host, remotePath, "forward"), () => {
        const state = stateOf(host)!
        return Effect.flatMap(
          lease(state, remotePath),
          (held) =>
            held !== undefined
              ? Deferred.await(held.ready)
              : Effect.andThen(room(state, deadline), forwardBy(host, remotePath, deadline))
        )
      })

    const forward = (host: string, remotePath: string) => Effect.suspend(() => forwardBy(host, remotePath, Date.now() + FORWARD_TIMEOUT_MS))

    /** Whether something accepts a connection at `path` now (a master's control socket: the master is alive). */
    const accepts = (path: string): Effect.Effect<boolean> =>
      Effect.callback<boolean>((resume) => {
        const socket = net.connect(path)
        socket.once("connect", () => {
          socket.destroy()
          resume(Effect.succeed(true))
        })
        socket.once("error", () => resume(Effect.succeed(false)))
        return Effect.sync(() => socket.destroy())
      }).pipe(Effect.timeout(Duration.millis(MASTER_END_WAIT_MS)), Effect.orElseSucceed(() => true))

    const linkError = (host: string, description: string): Effect.Effect<Failed | undefined> =>
      Effect.suspend(() => {
        const state = stateOf(host)
        if (state === undefined) return Effect.succeed(unknownHost(host))
        const downNow = () => state.master === undefined && state.down !== undefined ? downError(state, description) : undefined
        const ended = state.masterEnded
        if (state.master === undefined || ended === undefined) return Effect.succeed(downNow())
        return Effect.flatMap(accepts(state.controlPath), (alive) =>
          alive
            ? Effect.succeed(undefined)
            : Deferred.await(ended).pipe(Effect.timeout(Duration.millis(MASTER_END_WAIT_MS)), Effect.ignore, Effect.map(downNow)))
      })

    const sockets = (host: string) => Effect.flatMap(view(host), () => discover(stateOf(host)!, SOCKETS, parseSockets))

    // A server this layer could not forward to is not started either.
    const runStarting: ConnectionsShape["runStarting"] = (host, remotePath, argv, options) =>
      Effect.flatMap(viewFor(host, remotePath, options.description), () => {
        const state = stateOf(host)!
        if (!state.settings.allowServerStart) {
          return Effect.fail(
            new Failed({
              command: options.description,
              reason: "refused",
              exitCode: null,
              stderr: `host ${host} does not allow starting a tmux server (its "allow_server_start" in the hosts file is off)`
            })
          )
        }
        const timeoutMs = Duration.toMillis(options.timeout)
        return runSsh(remoteExecArgv(hosts, state.settings, state.controlPath, TMUX_START, [remotePath, ...argv]), timeoutMs, options.stdin)
          .pipe(
            Effect.mapError((detail) => hostFailed(state.settings, options.description, detail)),
            Effect.flatMap((result) =>
              result.exitCode === SSH_FAILED
                ? Effect.fail(hostFailed(state.settings, options.description, lastWords(result.stderr) || "ssh failed"))
                : Effect.succeed(result)
            )
          )
      })

    const link = (host: string): LinkReport => {
      const state = stateOf(host)
      if (state === undefined) return { host, ssh: "", state: "down", cause: "not in the hosts file", retryInMs: null, forwards: 0 }
      const base = { host, ssh: state.settings.destination, forwards: state.forwards.size }
      if (state.master !== undefined && state.view !== undefined) return { ...base, state: "up", cause: null, retryInMs: null }
      if (state.master !== undefined || state.starting !== undefined) return { ...base, state: "connecting", cause: null, retryInMs: null }
      if (state.down !== undefined) {
        return { ...base, state: "down", cause: state.down.cause, retryInMs: Math.max(0, state.down.retryAt - Date.now()) }
      }
      return { ...base, state: "idle", cause: null, retryInMs: null }
    }

    // In the background: start-up does not wait for masters a killed server left behind.
    yield* Effect.forkIn(sweep, scope)
    const idleCheck = Duration.millis(Math.min(IDLE_CHECK_MS, timing.forwardIdleMs / 4))
    yield* Effect.forkIn(Effect.forever(Effect.andThen(Effect.sleep(idleCheck), releaseIdle)), scope)

    // Released after every layer above (their remote sessions are gone by then): end each master,
    // then remove what ssh leaves behind.
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        await Promise.all([...states.values()].map(async (state) => {
          const child = state.master
          state.master = undefined
          if (child !== undefined) await terminate(child)
          for (const forward of state.forwards.values()) unlinkQuietly(forward.localPath)
          state.forwards.clear()
          unlinkQuietly(state.controlPath)
        }))
      })
    )

    const endBackoff = Effect.sync(() => {
      const now = Date.now()
      for (const state of states.values()) {
        if (state.down !== undefined && state.down.retryAt > now) state.down = { ...state.down, retryAt: now }
      }
    })

    return {
      names: hosts.hosts.map((host) => host.name),
      view,
      settings: (host) => stateOf(host)?.settings,
      forward,
      linkError,
      sockets,
      runStarting,
      link,
      endBackoff
    }
  })

/**
 * The links of the configured hosts file, as `Connections` and `RemoteHosts`; nothing at all
 * without a hosts file (then no ssh ever runs).
 */
export const ConnectionsLive: Layer.Layer<never, never, TmuxMcpConfig> = Layer.unwrap(
  Effect.map(TmuxMcpConfig, (config) =>
    config.hosts === undefined
      ? Layer.empty
      : Layer.effectContext(
        Effect.map(makeConnections(config.hosts), (connections) =>
          Context.make(Connections, connections).pipe(Context.add(RemoteHosts, connections)))
      ).pipe(Layer.provide(TmuxProcesses.layer)) as unknown as Layer.Layer<never>)
)
