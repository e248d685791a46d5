/**
 * The invocation context in one answer: inside tmux or not, the caller's live pane / window /
 * session, the socket the tools will query and whether a server runs there, how many servers
 * exist, and the policy in force. Every state is data, not an error.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Failed, InvalidInput, NotFound } from "../domain/Errors.js"
import type { WhereAmI } from "../domain/Model.js"
import { Config } from "../services/Config.js"
import { InvocationContext } from "../services/InvocationContext.js"
import { type SocketSelector, SocketResolver } from "../services/SocketResolver.js"
import { paneIdsRecord } from "../tmux/Records.js"
import type { Tmux } from "../tmux/Tmux.js"
import { decode, decodeServerIdentity, queryTree, serverIdentityCommand } from "./Query.js"
import { listServers, probeServer } from "./Servers.js"

interface CallerLookup {
  readonly status: WhereAmI["caller_status"]
  readonly window_id: string | null
  readonly session_id: string | null
}

export const whereAmI = (
  selector: SocketSelector = {}
): Effect.Effect<WhereAmI, Failed | NotFound | InvalidInput, Tmux | Config | InvocationContext | SocketResolver> =>
  Effect.gen(function* () {
    const config = yield* Config
    const context = yield* InvocationContext
    const resolver = yield* SocketResolver
    const effective = yield* resolver.resolve(selector)

    const lookupCaller: Effect.Effect<CallerLookup, Failed | NotFound, Tmux> = Option.match(context.caller, {
      onNone: () =>
        Effect.succeed({ status: context.uncertain ? "uncertain" : "outside_tmux", window_id: null, session_id: null }),
      onSome: (caller) => {
        const paneId = caller.paneId
        if (paneId === null) return Effect.succeed({ status: "uncertain", window_id: null, session_id: null })
        const socket = resolver.fromPath(caller.socketPath, "caller ($TMUX)")
        const gone = (status: "pane_gone" | "server_gone"): CallerLookup => ({ status, window_id: null, session_id: null })
        return queryTree(
          socket,
          (m) => [serverIdentityCommand(m), ["list-panes", "-t", paneId, "-F", paneIdsRecord.format(m)]],
          { kind: "pane", id: paneId }
        ).pipe(
          Effect.flatMap((output) => Effect.all([decodeServerIdentity(output), decode(paneIdsRecord, output)])),
          Effect.map(([server, rows]): CallerLookup => {
            // A restarted server reuses pane ids: the pid tells whether this is still the caller's server.
            if (server.pid !== caller.serverPid) return gone("server_gone")
            const row = rows.find((r) => r.pane_id === paneId)
            return row === undefined ? gone("pane_gone") : { status: "live", window_id: row.window_id, session_id: row.session_id }
          }),
          Effect.catchTags({
            NoServer: () => Effect.succeed(gone("server_gone")),
            NotFound: () =>
              Effect.map(probeServer(socket), (server) =>
                Option.isSome(server) && server.value.pid === caller.serverPid ? gone("pane_gone") : gone("server_gone")
              )
          })
        )
      }
    })

    const [caller, server, live] = yield* Effect.all([lookupCaller, probeServer(effective), listServers([effective.path])], {
      concurrency: "unbounded"
    })
    const callerInfo = Option.getOrNull(context.caller)
    return {
      inside_tmux: callerInfo !== null,
      caller_status: caller.status,
      pane_id: caller.status === "live" ? (callerInfo?.paneId ?? null) : null,
      window_id: caller.window_id,
      session_id: caller.session_id,
      caller_socket_path: callerInfo?.socketPath ?? null,
      effective_socket_name: effective.name,
      effective_socket_path: effective.path,
      socket_rule: effective.rule,
      targets_caller_server:
        callerInfo === null ? null : Option.isSome(server) && context.isCallerServer(effective, server.value.pid) === true,
      server_running: Option.isSome(server),
      server_pid: Option.isSome(server) ? server.value.pid : null,
      server_version: Option.isSome(server) ? server.value.version : null,
      generation: Option.isSome(server) ? server.value.generation : null,
      live_server_count: live.length,
      safety_level: config.safety,
      suppress_history: config.suppressHistory,
      allow_server_start: config.allowServerStart
    }
  })
