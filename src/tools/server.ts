/** Server tools: discover, inspect, start and kill tmux servers. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { Generation, HostError, hostField, HostName, LiveServer, ServerInfo, UnresponsiveSocket } from "../domain/Model.js"
import { paginate } from "../operations/bounds/Paging.js"
import { discoverHosts } from "../operations/servers/HostSurvey.js"
import { discoverServers, killServer, serverInfo, startServer } from "../operations/servers/Servers.js"
import { Page, pageArguments } from "./internal/Paging.js"
import { defineTool, type HostChoice, NonNegativeInt, optional, socketArguments } from "./Tool.js"

const ListServersInput = Schema.Struct({
  extra_socket_paths: optional(
    Schema.Array(Schema.String).pipe(Schema.check(Schema.isMaxLength(32)))
  ),
  ...pageArguments
})

export const listServersTool = defineTool({
  name: "list_servers",
  title: "List tmux Servers",
  description: "Live tmux servers of this user: socket name and path, pid, version, sessions; pass socket_path to other tools.",
  tier: "readonly",
  group: "context",
  hints: { idempotent: true },
  surveysHosts: true,
  input: ListServersInput,
  output: Schema.Struct({
    ...Page(LiveServer).fields,
    unresponsive: Schema.Array(UnresponsiveSocket).annotate({
      description:
        "Sockets whose server accepted the connection but did not answer within 2 s (a stopped or wedged tmux), not paged and not in total; calls there will time out."
    }),
    host_errors: optional(
      Schema.Array(HostError),
      "With a hosts file: hosts whose servers could not all be listed, and why; their servers may be missing from items."
    )
  }),
  handler: (input: typeof ListServersInput.Type & HostChoice) =>
    Effect.gen(function*() {
      const extraPaths = input.extra_socket_paths ?? []
      // Without a hosts file, exactly what it always was.
      if ((yield* TmuxMcpConfig).hosts === undefined) {
        const { live, unresponsive } = yield* discoverServers(extraPaths)
        return { ...paginate(live, input), unresponsive }
      }
      const { hostErrors, live, unresponsive } = yield* discoverHosts({ host: input.host, extraPaths })
      return { ...paginate(live, input), unresponsive, host_errors: hostErrors }
    })
})

export const getServerInfoTool = defineTool({
  name: "get_server_info",
  title: "Get tmux Server Info",
  description: "Whether a server runs on the socket (is_alive false: none), its pid, version, generation and counts.",
  tier: "readonly",
  group: "context",
  hints: { idempotent: true },
  input: Schema.Struct(socketArguments),
  output: ServerInfo,
  handler: (input) => Effect.flatMap(resolveSocket(input), serverInfo)
})

const ServerStarted = Schema.Struct({
  started: Schema.Boolean.annotate({ description: "True if this call started the server; false if one was running." }),
  host: Schema.optional(HostName),
  socket_name: Schema.NullOr(Schema.String),
  socket_path: Schema.String,
  pid: NonNegativeInt,
  version: Schema.String,
  generation: Generation
})

export const startServerTool = defineTool({
  name: "start_server",
  title: "Start tmux Server",
  description: "Starts a tmux server with no sessions on the socket (started=false if one ran). The only tool that starts one on its own.",
  tier: "mutating",
  group: "lifecycle",
  hints: { idempotent: true },
  input: Schema.Struct(socketArguments),
  output: ServerStarted,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      const { started, server } = yield* startServer(socket)
      return {
        started,
        ...hostField(socket),
        socket_name: socket.name,
        socket_path: server.socket_path,
        pid: server.pid,
        version: server.version,
        generation: server.generation
      }
    })
})

const ServerKilled = Schema.Struct({
  killed: Schema.Literal(true),
  host: Schema.optional(HostName),
  socket_name: Schema.NullOr(Schema.String),
  socket_path: Schema.String,
  pid: NonNegativeInt,
  generation: Generation
})

export const killServerTool = defineTool({
  name: "kill_server",
  title: "Kill tmux Server",
  description: "Kills the tmux server on the socket and everything in it. Refuses the caller's server.",
  tier: "destructive",
  group: "lifecycle",
  hints: { idempotent: false },
  input: Schema.Struct(socketArguments),
  output: ServerKilled,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      const server = yield* killServer(socket)
      return {
        killed: true as const,
        ...hostField(socket),
        socket_name: socket.name,
        socket_path: server.socket_path,
        pid: server.pid,
        generation: server.generation
      }
    })
})
