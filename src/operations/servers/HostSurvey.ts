/**
 * The servers of the hosts file's hosts, as list_servers and where_am_i see them: each remote host
 * lists its socket names by its fixed listing script (Connections.sockets), and each socket is asked
 * over its forward as a local one is (`askSocket`: one invocation, PROBE_TIMEOUT_MS), all at once.
 *
 * What could not be listed is said, never left out silently: a host whose link fails is an error
 * with ssh's words, and so is a host where every socket closed the connection before any answer.
 * Through a forward that is what sshd refusing Unix-socket forwarding looks like (with
 * `AllowTcpForwarding no` it refuses them too), and also what a socket file with no server behind
 * it looks like; when another socket of the host answered, forwarding works there and such a file
 * is only a leftover, as locally.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { LOCAL_HOST } from "../../context/HostsConfig.js"
import { isRemoteHost, onHost } from "../../context/RemoteHosts.js"
import { type ResolvedSocket, socketKey, SocketResolver } from "../../context/SocketResolver.js"
import { TmuxMcpConfig } from "../../context/TmuxMcpConfig.js"
import { Failed, InvalidInput, type NotFound, type TmuxError } from "../../domain/Errors.js"
import type { HostError, LiveServer, UnresponsiveSocket } from "../../domain/Model.js"
import { Connections } from "../../tmux/Connections.js"
import type { Tmux } from "../../tmux/Tmux.js"
import { askSocket, discoverServers, type SurveyFocus, type SurveyProbe } from "./Servers.js"

/** One remote host as a survey found it. */
export interface HostSurvey {
  readonly live: Array<LiveServer>
  readonly unresponsive: Array<UnresponsiveSocket>
  /** Per focus socket, in order: how it answered. */
  readonly focus: Array<SurveyProbe>
  /** Why some of its servers may be missing from `live`: each a sentence. */
  readonly errors: Array<string>
}

/** What the sshd of a host must allow for its sockets to be reached; doctor says it too. */
export const SSHD_FORWARDING =
  "the host's sshd must allow AllowTcpForwarding local or yes (with no, it refuses Unix-socket forwards too) and AllowStreamLocalForwarding local or yes, with no restrict or no-port-forwarding on the key"

const allClosed = (count: number) =>
  `none of its ${count} ${
    count === 1 ? "socket" : "sockets"
  } answered: each closed the connection before any answer, so either no server is behind ${
    count === 1 ? "it" : "them"
  } (a killed tmux leaves its socket file) or ${SSHD_FORWARDING}; effect-tmux-mcp doctor tells more`

/** A failure in a sentence of its own: a host's error is ssh's words with the host, others tmux's message. */
export const failureText = (error: TmuxError | InvalidInput): string =>
  error._tag === "Failed" && error.reason === "host" ? error.stderr : error.message

const connectionsFor = (host: string) =>
  Effect.flatMap(
    Effect.serviceOption(Connections),
    Option.match({
      onSome: Effect.succeed,
      onNone: () =>
        Effect.fail(
          new Failed({
            command: `list host ${host}`,
            reason: "refused",
            exitCode: null,
            stderr: `no Connections layer serves host ${host}`
          })
        )
    })
  )

const byPath = (a: { readonly socket_path: string }, b: { readonly socket_path: string }) => a.socket_path.localeCompare(b.socket_path)

/**
 * The host's servers: every socket its socket directory holds now (those the hosts file allows),
 * each asked once over its forward, all at once, plus the `focus` sockets (asked even when not
 * listed, counted only when listed). Fails when the host cannot be reached (its link's error) or a
 * focus socket fails; any other socket's failure is one of `errors`.
 */
export const surveyHost = (
  host: string,
  focus: ReadonlyArray<SurveyFocus> = []
): Effect.Effect<HostSurvey, Failed | NotFound, Tmux | SocketResolver> =>
  Effect.gen(function*() {
    const connections = yield* Effect.serviceOption(Connections)
    const resolver = yield* SocketResolver
    // Without the links' layer (an embedder's own RemoteHosts) no listing can be made: the focus
    // sockets alone are asked, and counted.
    const focusOnly = Option.isNone(connections) && focus.length > 0
    const names: ReadonlyArray<string> = focusOnly
      ? focus.flatMap(({ socket }) => (socket.name === null ? [] : [socket.name]))
      : yield* Effect.gen(function*() {
        const links = yield* connectionsFor(host)
        const listed = yield* links.sockets(host)
        const allowed = links.settings(host)?.sockets
        return allowed === undefined ? listed : listed.filter((name) => allowed.includes(name))
      })
    const errors: Array<string> = []
    const resolved = yield* Effect.forEach(names, (name) => Effect.result(onHost(host)(resolver.resolve({ socket_name: name }))))

    // One entry per socket to ask: the listed ones in order, then focus sockets the listing missed.
    const asks: Array<{ socket: ResolvedSocket; counted: boolean; focus: Array<number> }> = []
    resolved.forEach((result, index) => {
      if (Result.isSuccess(result)) asks.push({ socket: result.success, counted: true, focus: [] })
      else errors.push(`socket ${names[index]}: ${failureText(result.failure)}`)
    })
    focus.forEach(({ socket }, index) => {
      const ask = asks.find((entry) => socketKey(entry.socket) === socketKey(socket))
      if (ask !== undefined) ask.focus.push(index)
      else asks.push({ socket, counted: false, focus: [index] })
    })

    const answers = yield* Effect.forEach(
      asks,
      (ask) => {
        const focused = ask.focus.map((index) => focus[index]!)
        const probe = askSocket(
          focused[0]?.socket ?? ask.socket,
          focused.flatMap((entry) => entry.commands === undefined ? [] : [entry.commands]),
          focused.length === 0
        )
        // A focus socket's failure is its caller's; a listed socket's is one of the host's errors.
        return focused.length > 0 ? Effect.map(probe, Result.succeed) : Effect.result(probe)
      },
      { concurrency: "unbounded" }
    )

    const live: Array<LiveServer> = []
    const unresponsive: Array<UnresponsiveSocket> = []
    let closed = 0
    asks.forEach((ask, index) => {
      if (!ask.counted) return
      const answer = answers[index]!
      const socket_name = ask.socket.name
      if (Result.isFailure(answer)) {
        const text = failureText(answer.failure)
        // A link that went down fails every socket with the same words: said once.
        const sentence = answer.failure._tag === "Failed" && answer.failure.reason === "host" ? text : `socket ${socket_name}: ${text}`
        if (!errors.includes(sentence)) errors.push(sentence)
        return
      }
      const probe = answer.success
      if (probe._tag === "NoServer") closed++
      if (probe._tag === "Unresponsive") unresponsive.push({ host, socket_name, socket_path: ask.socket.path })
      if (probe._tag !== "Answered") return
      const { server, sessionCount } = probe.answer
      live.push({
        host,
        socket_name,
        socket_path: ask.socket.path,
        pid: server.pid,
        version: server.version,
        generation: server.generation,
        session_count: sessionCount
      })
    })
    const counted = asks.filter((ask) => ask.counted).length
    if (counted > 0 && closed === counted) errors.push(allClosed(counted))
    return {
      live: live.sort(byPath),
      unresponsive: unresponsive.sort(byPath),
      focus: focus.map((_, index) => {
        const answer = answers[asks.findIndex((ask) => ask.focus.includes(index))]!
        // Focus answers are never failures (see above).
        return Result.getOrThrow(answer)
      }),
      errors
    }
  })

/** Live servers of every host asked, as list_servers reports them with a hosts file. */
export interface HostsDiscovery {
  readonly live: Array<LiveServer>
  readonly unresponsive: Array<UnresponsiveSocket>
  /** The hosts whose servers could not all be listed, in the hosts file's order. */
  readonly hostErrors: Array<HostError>
}

/**
 * The servers of this machine and of every host of the hosts file, or of `host` alone, all asked
 * at once; each item says its host. A remote host that cannot be reached is one of `hostErrors`,
 * with its link's error, and does not hold up the others longer than its connect timeout.
 * `extraPaths` are this machine's: refused when only a remote host is asked.
 */
export const discoverHosts = Effect.fn("HostSurvey.discoverHosts")((
  options: { readonly host?: string | undefined; readonly extraPaths: ReadonlyArray<string> }
): Effect.Effect<HostsDiscovery, Failed | NotFound | InvalidInput, Tmux | SocketResolver | TmuxMcpConfig> =>
  Effect.gen(function*() {
    const config = yield* TmuxMcpConfig
    const hosts = options.host === undefined ? [LOCAL_HOST, ...(config.hosts?.hosts.map((entry) => entry.name) ?? [])] : [options.host]
    if (options.extraPaths.length > 0 && !hosts.includes(LOCAL_HOST)) {
      return yield* Effect.fail(
        new InvalidInput({ reason: "extra_socket_paths: are paths on this machine; pass them without host, or with host local." })
      )
    }
    const surveys = yield* Effect.forEach(
      hosts,
      (host): Effect.Effect<HostsDiscovery, Failed | NotFound, Tmux | SocketResolver> =>
        isRemoteHost(host)
          ? surveyHost(host).pipe(
            Effect.map((survey) => ({
              live: survey.live,
              unresponsive: survey.unresponsive,
              hostErrors: survey.errors.map((error) => ({ host, error }))
            })),
            Effect.catchTag(
              "Failed",
              (error) => Effect.succeed({ live: [], unresponsive: [], hostErrors: [{ host, error: failureText(error) }] })
            )
          )
          : Effect.map(discoverServers(options.extraPaths), ({ live, unresponsive }) => ({
            live: live.map((server) => ({ ...server, host })),
            unresponsive: unresponsive.map((socket) => ({ ...socket, host })),
            hostErrors: []
          })),
      // Every host at once: the answer takes as long as the slowest host.
      { concurrency: "unbounded" }
    )
    return {
      live: surveys.flatMap((survey) => survey.live),
      unresponsive: surveys.flatMap((survey) => survey.unresponsive),
      hostErrors: surveys.flatMap((survey) => survey.hostErrors)
    }
  })
)
