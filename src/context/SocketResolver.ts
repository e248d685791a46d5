/**
 * Which tmux server a call talks to. Precedence (visible in where_am_i):
 * per-call socket_path / socket_name > LIBTMUX_SOCKET_PATH > LIBTMUX_SOCKET (either replaced by its
 * command-line flag) > the caller's socket
 * (from `$TMUX`, else an ancestor's: services/CallerSearch.ts) > tmux's default socket. The effective path is always known, the default included.
 *
 * On a remote host (the call's CurrentHost, see RemoteHosts.ts) names and paths are that host's:
 * a name is looked up in the host's socket directory (found by discovery), a path must lie in it,
 * and the default is the hosts file's first socket, else the configured socket name, else
 * `default`. A configured socket path and the caller's $TMUX are this machine's and never apply there.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { basename, dirname, join } from "node:path"
import { InvalidInput } from "../domain/Errors.js"
import type { Failed } from "../domain/Errors.js"
import { socketNameProblem } from "./HostsConfig.js"
import { parseTmuxVariable } from "./internal/TmuxVariable.js"
import { realPathOrSelf } from "./RealPath.js"
import { CurrentHost, isRemoteHost, RemoteHosts, type RemoteHostsShape } from "./RemoteHosts.js"
import { TmuxMcpConfig, type TmuxMcpConfigShape } from "./TmuxMcpConfig.js"

/** The precedence rule that chose a socket, as where_am_i and doctor name it. */
export type SocketRule =
  | "socket_path argument"
  | "socket_name argument"
  | "--socket-path"
  | "--socket-name"
  | "LIBTMUX_SOCKET_PATH"
  | "LIBTMUX_SOCKET"
  | "caller ($TMUX)"
  | "caller (process tree)"
  | "hosts file"
  | "tmux default"

/**
 * A socket to talk to, with how it was chosen and the tmux flags that address it: every operation
 * takes one.
 */
export interface ResolvedSocket {
  /**
   * The machine the server runs on: `local` or a name of the hosts file. Absent without a hosts
   * file (then always this machine), so results are what they were before hosts existed.
   */
  readonly host?: string
  /** The `-L` name when the socket lives in tmux's socket directory, else null. */
  readonly name: string | null
  /**
   * The socket file's path on its host (what tmux itself would compute for a name): what tmux
   * commands typed there and results name. A remote socket is reached through a forward of its own.
   */
  readonly path: string
  /** Which precedence rule chose this socket. */
  readonly rule: SocketRule
  /** The tmux flags that address it. */
  readonly flags: ReadonlyArray<string>
  /** How messages name it. */
  readonly label: string
}

/** Per-call socket selectors, as every server-targeting tool accepts them. */
export interface SocketSelector {
  readonly socket_name?: string | undefined
  readonly socket_path?: string | undefined
}

/** The resolver's operations. */
export interface SocketResolverShape {
  /** tmux's socket directory for this user: `<TMUX_TMPDIR>/tmux-<uid>`. */
  readonly socketDirectory: string
  /** On the call's host (CurrentHost); a remote host may fail to answer. */
  readonly resolve: (selector?: SocketSelector) => Effect.Effect<ResolvedSocket, InvalidInput | Failed>
  /** A socket given by path, e.g. one found by list_servers. */
  readonly fromPath: (path: string, rule?: SocketRule) => ResolvedSocket
}

/** Resolves per-call socket selectors against the configuration; `layer` needs `TmuxMcpConfig`. */
export class SocketResolver extends Context.Service<SocketResolver, SocketResolverShape>()("effect-tmux-mcp/SocketResolver") {
  static readonly layer: Layer.Layer<SocketResolver, never, TmuxMcpConfig> = Layer.effect(
    SocketResolver,
    Effect.gen(function*() {
      const config = yield* TmuxMcpConfig
      const remote = yield* Effect.serviceOption(RemoteHosts)
      return makeSocketResolver(config, Option.getOrUndefined(remote))
    })
  )
}

/** The socket a call's selectors choose (the configured default without them), as every tool resolves it. */
export const resolveSocket = (selector?: SocketSelector): Effect.Effect<ResolvedSocket, InvalidInput | Failed, SocketResolver> =>
  Effect.flatMap(SocketResolver, (resolver) => resolver.resolve(selector))

/** The rule that names the caller's socket, by how the caller was found. */
export const callerRule = (config: Pick<TmuxMcpConfigShape, "callerSource">): SocketRule =>
  config.callerSource === "process_tree" ? "caller (process tree)" : "caller ($TMUX)"

/** A Unix socket address holds a path of at most 107 bytes (sun_path is 108, its NUL included). */
export const MAX_SOCKET_PATH_BYTES = 107

/** No NUL (no path holds one) and a socket address that can hold the path; the value is never echoed. */
const checkPathFits = (argument: string, value: string, path: string): Effect.Effect<void, InvalidInput> => {
  if (value.includes("\0")) return Effect.fail(new InvalidInput({ reason: `${argument} must not contain NUL characters.` }))
  const bytes = Buffer.byteLength(path, "utf8")
  return bytes <= MAX_SOCKET_PATH_BYTES
    ? Effect.void
    : Effect.fail(
      new InvalidInput({
        reason: `${argument} makes a socket path of ${bytes} bytes; a Unix socket address holds at most ${MAX_SOCKET_PATH_BYTES}.`
      })
    )
}

/** What identifies a server among all hosts: its path, with its host's name when that is another machine. */
export const socketKey = (socket: ResolvedSocket): string => isRemoteHost(socket.host) ? `${socket.host}\u0000${socket.path}` : socket.path

export const makeSocketResolver = (config: TmuxMcpConfigShape, remote?: RemoteHostsShape): SocketResolverShape => {
  // tmux resolves TMUX_TMPDIR through realpath before appending `tmux-<uid>`; so do we.
  const socketDirectory = join(realPathOrSelf(config.tmuxTmpdir), `tmux-${config.uid}`)

  // With a hosts file every socket says its host, this machine's too.
  const localHost = config.hosts === undefined ? {} : { host: "local" }
  const byName = (name: string, rule: SocketRule): ResolvedSocket => {
    const path = join(socketDirectory, name)
    return { ...localHost, name, path, rule, flags: ["-L", name], label: `${name} (${path})` }
  }
  const fromPath = (path: string, rule: SocketRule = "socket_path argument"): ResolvedSocket => {
    const name = dirname(path) === socketDirectory ? basename(path) : null
    return { ...localHost, name, path, rule, flags: ["-S", path], label: name === null ? path : `${name} (${path})` }
  }

  const caller = Option.fromNullishOr(config.callerTmux).pipe(Option.flatMap(parseTmuxVariable))
  const fallback: ResolvedSocket = config.socketPath !== undefined
    ? fromPath(config.socketPath, config.socketFromFlag ? "--socket-path" : "LIBTMUX_SOCKET_PATH")
    : config.socketName !== undefined
    ? byName(config.socketName, config.socketFromFlag ? "--socket-name" : "LIBTMUX_SOCKET")
    : Option.match(caller, {
      onSome: (c) => fromPath(c.socketPath, callerRule(config)),
      onNone: () => byName("default", "tmux default")
    })

  const resolveLocal = (selector: SocketSelector): Effect.Effect<ResolvedSocket, InvalidInput> => {
    const { socket_name, socket_path } = selector
    if (socket_path !== undefined) {
      if (!socket_path.startsWith("/")) {
        return Effect.fail(new InvalidInput({ reason: "socket_path must be an absolute path (list_servers shows them)." }))
      }
      return Effect.as(checkPathFits("socket_path", socket_path, socket_path), fromPath(socket_path))
    }
    if (socket_name !== undefined) {
      if (socket_name === "" || socket_name.includes("/")) {
        return Effect.fail(
          new InvalidInput({ reason: "socket_name must be a non-empty name without '/'; use socket_path for a path." })
        )
      }
      const socket = byName(socket_name, "socket_name argument")
      return Effect.as(checkPathFits("socket_name", socket_name, socket.path), socket)
    }
    return Effect.succeed(fallback)
  }

  /** A socket on a remote host, always in its socket directory (its paths are the host's, never this machine's). */
  const resolveRemote = (host: string, selector: SocketSelector): Effect.Effect<ResolvedSocket, InvalidInput | Failed> => {
    if (remote === undefined || !remote.names.includes(host)) {
      return Effect.fail(new InvalidInput({ reason: `host must be "local" or a host of the hosts file (where_am_i lists them).` }))
    }
    const { socket_name, socket_path } = selector
    if (socket_path !== undefined && !socket_path.startsWith("/")) {
      return Effect.fail(
        new InvalidInput({ reason: `socket_path must be an absolute path on host ${host} (list_servers with host shows them).` })
      )
    }
    if (socket_name !== undefined && socketNameProblem(socket_name) !== undefined) {
      return Effect.fail(new InvalidInput({ reason: `socket_name on host ${host} ${socketNameProblem(socket_name)}.` }))
    }
    return Effect.flatMap(remote.view(host), (view) => {
      let name: string
      let rule: SocketRule
      if (socket_path !== undefined) {
        if (dirname(socket_path) !== view.socketDirectory || socketNameProblem(basename(socket_path)) !== undefined) {
          return Effect.fail(
            new InvalidInput({
              reason:
                `on host ${host}, socket_path must be a socket in ${view.socketDirectory} (list_servers with host shows them); or pass socket_name.`
            })
          )
        }
        name = basename(socket_path)
        rule = "socket_path argument"
      } else if (socket_name !== undefined) {
        name = socket_name
        rule = "socket_name argument"
      } else if (view.allowedSockets !== undefined) {
        name = view.allowedSockets[0]!
        rule = "hosts file"
      } else if (config.socketName !== undefined && socketNameProblem(config.socketName) === undefined) {
        name = config.socketName
        rule = config.socketFromFlag ? "--socket-name" : "LIBTMUX_SOCKET"
      } else {
        name = "default"
        rule = "tmux default"
      }
      if (view.allowedSockets !== undefined && !view.allowedSockets.includes(name)) {
        return Effect.fail(
          new InvalidInput({
            reason: `host ${host} is used with the sockets ${view.allowedSockets.join(", ")} only (the hosts file's "sockets").`
          })
        )
      }
      const path = join(view.socketDirectory, name)
      if (Buffer.byteLength(path, "utf8") > MAX_SOCKET_PATH_BYTES) {
        return Effect.fail(new InvalidInput({ reason: `the socket path on host ${host} would be over ${MAX_SOCKET_PATH_BYTES} bytes.` }))
      }
      return Effect.succeed<ResolvedSocket>({ host, name, path, rule, flags: ["-S", path], label: `${host}:${name} (${path})` })
    })
  }

  const resolve = (selector: SocketSelector = {}): Effect.Effect<ResolvedSocket, InvalidInput | Failed> => {
    if (selector.socket_name !== undefined && selector.socket_path !== undefined) {
      return Effect.fail(new InvalidInput({ reason: "socket_name and socket_path are exclusive; pass one of them." }))
    }
    return Effect.flatMap(CurrentHost, (host) => isRemoteHost(host) ? resolveRemote(host, selector) : resolveLocal(selector))
  }

  return { socketDirectory, resolve, fromPath }
}
