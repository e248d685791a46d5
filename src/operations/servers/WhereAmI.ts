/**
 * The invocation context in one answer: inside tmux or not, the caller's live pane / window /
 * session, the socket the tools will query and whether a server runs there, how many servers
 * exist, and the policy in force. Every state is data, not an error.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { InvocationContext } from "../../context/InvocationContext.js"
import { samePath } from "../../context/RealPath.js"
import { isRemoteHost } from "../../context/RemoteHosts.js"
import { callerRule, type ResolvedSocket, SocketResolver, type SocketSelector } from "../../context/SocketResolver.js"
import { TmuxMcpConfig } from "../../context/TmuxMcpConfig.js"
import type { Failed, InvalidInput, NotFound } from "../../domain/Errors.js"
import type { HostLink, WhereAmI } from "../../domain/Model.js"
import { Connections } from "../../tmux/Connections.js"
import { decode } from "../../tmux/Query.js"
import { paneIdsRecord } from "../../tmux/Records.js"
import { Tmux } from "../../tmux/Tmux.js"
import { surveyHost } from "./HostSurvey.js"
import { askSocket, type SurveyFocus, type SurveyProbe, surveyServers } from "./Servers.js"

interface CallerLookup {
  readonly status: WhereAmI["caller_status"]
  readonly window_id: string | null
  readonly session_id: string | null
}

/**
 * One invocation per socket, all at once, each with the survey's short deadline: every live server
 * is counted (identity and sessions), the effective socket's answer is that same invocation's, and
 * the caller's pane is looked up in the invocation that asks the caller's socket. A socket that does
 * not answer in time is counted apart, and said to be unresponsive when it is the effective one.
 */
export const whereAmI = Effect.fn("WhereAmI.whereAmI")((
  selector: SocketSelector = {}
): Effect.Effect<WhereAmI, Failed | NotFound | InvalidInput, Tmux | TmuxMcpConfig | InvocationContext | SocketResolver> =>
  Effect.gen(function*() {
    const config = yield* TmuxMcpConfig
    const context = yield* InvocationContext
    const resolver = yield* SocketResolver
    const effective = yield* resolver.resolve(selector)
    const callerInfo = Option.getOrNull(context.caller)
    const paneId = callerInfo?.paneId ?? null

    const focus: Array<SurveyFocus> = [{ socket: effective }]
    if (callerInfo !== null && paneId !== null) {
      focus.push({
        socket: resolver.fromPath(callerInfo.socketPath, callerRule(config)),
        // `display-message -t %N` resolves the pane like `list-panes -t %N` (its window's best
        // session) but never fails: for a missing pane it prints another pane or empty fields, so
        // the answer is checked against the id, and the rest of the invocation is not lost.
        commands: (m) => [["display-message", "-p", "-t", paneId, paneIdsRecord.format(m)]]
      })
    }
    // On a remote host the servers counted are that host's; the caller's pane is this machine's.
    const survey: Counted = isRemoteHost(effective.host)
      ? yield* surveyRemote(effective.host, effective, focus[1])
      : yield* Effect.map(surveyServers([effective.path], focus), (local) => ({
        live: local.live.length,
        unresponsive: local.unresponsive.length,
        focus: local.focus
      }))
    // After the survey asked the server: a fallback it caused is known now. A layer without a
    // report (a fake) stands in for the configured transport.
    const tmux = yield* Tmux
    const transportFor = tmux.transportFor
    const transport = transportFor === undefined ? config.transport : (yield* transportFor(effective)).transport
    const effectiveProbe = survey.focus[0]!
    const server = effectiveProbe._tag === "Answered" ? Option.some(effectiveProbe.answer.server) : Option.none()

    const gone = (status: "pane_gone" | "server_gone"): CallerLookup => ({ status, window_id: null, session_id: null })
    let caller: CallerLookup
    if (callerInfo === null) {
      caller = { status: context.uncertain ? "uncertain" : "outside_tmux", window_id: null, session_id: null }
    } else if (paneId === null) {
      caller = { status: "uncertain", window_id: null, session_id: null }
    } else {
      const probe = survey.focus[1]!
      if (probe._tag === "Unresponsive") {
        // Alive or not, nobody can tell: the caller's server did not answer in time.
        caller = { status: "uncertain", window_id: null, session_id: null }
      } else if (probe._tag === "NoServer" || probe.answer.server.pid !== callerInfo.serverPid) {
        // A restarted server reuses pane ids: the pid tells whether this is still the caller's server.
        caller = gone("server_gone")
      } else {
        const row = (yield* decode(paneIdsRecord, probe.answer.output)).find((r) => r.pane_id === paneId)
        caller = row === undefined ? gone("pane_gone") : { status: "live", window_id: row.window_id, session_id: row.session_id }
      }
    }

    // As the server's start-up check found it: a tool call spawns nothing for it (a layer without
    // a binary, a fake, has nothing to say).
    const binary = tmux.binary === undefined ? Option.none() : yield* tmux.binary.known
    return {
      ...(Option.isSome(binary) && binary.value._tag !== "Found" ? { tmux_problem: binary.value.problem } : {}),
      inside_tmux: callerInfo !== null,
      caller_status: caller.status,
      caller_source: callerInfo?.source ?? "none",
      pane_id: caller.status === "live" ? paneId : null,
      window_id: caller.window_id,
      session_id: caller.session_id,
      // A long path said once: the caller's socket is named apart only when the tools query another.
      ...(callerInfo !== null && samePath(callerInfo.socketPath, effective.path) && !isRemoteHost(effective.host)
        ? {}
        : { caller_socket_path: callerInfo?.socketPath ?? null }),
      // Only with a hosts file does a socket say its host.
      ...(effective.host === undefined ? {} : { effective_host: effective.host }),
      effective_socket_name: effective.name,
      effective_socket_path: effective.path,
      socket_rule: effective.rule,
      targets_caller_server: callerInfo === null || effectiveProbe._tag === "Unresponsive"
        ? null
        : Option.isSome(server) && context.isCallerServer(effective, server.value.pid) === true,
      server_running: Option.isSome(server),
      // Said only when so: an agent's first call stays short in the usual case.
      ...(effectiveProbe._tag === "Unresponsive" ? { server_unresponsive: true as const } : {}),
      server_pid: Option.isSome(server) ? server.value.pid : null,
      server_version: Option.isSome(server) ? server.value.version : null,
      generation: Option.isSome(server) ? server.value.generation : null,
      live_server_count: survey.live,
      ...(survey.unresponsive > 0 ? { unresponsive_server_count: survey.unresponsive } : {}),
      safety_level: config.safety,
      suppress_history: config.suppressHistory,
      allow_server_start: config.allowServerStart,
      transport,
      ...(config.hosts === undefined ? {} : { hosts: yield* hostLinks })
    }
  })
)

/** What where_am_i counts of a survey, and how its focus sockets answered (the effective one first). */
interface Counted {
  readonly live: number
  readonly unresponsive: number
  readonly focus: ReadonlyArray<SurveyProbe>
}

/** The remote host's servers counted and its effective socket asked, with the caller's pane looked up here at the same time. */
const surveyRemote = (host: string, effective: ResolvedSocket, caller: SurveyFocus | undefined) =>
  Effect.map(
    Effect.all([
      surveyHost(host, [{ socket: effective }]),
      caller === undefined
        ? Effect.succeed(undefined)
        : askSocket(caller.socket, caller.commands === undefined ? [] : [caller.commands], false)
    ], { concurrency: "unbounded" }),
    ([remote, callerProbe]): Counted => ({
      live: remote.live.length,
      unresponsive: remote.unresponsive.length,
      focus: callerProbe === undefined ? remote.focus : [...remote.focus, callerProbe]
    })
  )

/** Each remote host's link as it is now: nothing connects for this. */
const hostLinks: Effect.Effect<Array<HostLink>> = Effect.map(Effect.serviceOption(Connections), (connections) =>
  Option.match(connections, {
    onNone: () => [],
    onSome: (links) =>
      links.names.map((name) => {
        const { cause, retryInMs, state } = links.link(name)
        return {
          host: name,
          state,
          ...(state === "down" && cause !== null ? { cause } : {}),
          ...(state === "down" && retryInMs !== null ? { retry_in_ms: retryInMs } : {})
        }
      })
  }))
