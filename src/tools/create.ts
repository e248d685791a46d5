/** Creating sessions, windows and panes: create_session, create_window, split_window, respawn_pane. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { PaneId, SessionId } from "../domain/Ids.js"
import { Generation, PaneDetail, Session, Window } from "../domain/Model.js"
import { MAX_NAME_LENGTH } from "../operations/layout/Names.js"
import { createSession, createWindow, respawnPane, type SpawnedPane, splitWindow } from "../operations/lifecycle/Create.js"
import type { SpawnRequest } from "../operations/lifecycle/Spawn.js"
import {
  commandArgument,
  environmentArgument,
  generationArgument,
  startDirectoryArgument,
  suppressHistoryArgument
} from "./internal/Arguments.js"
import { type AnyTool, defineTool, Int, NonNegativeInt, optional, socketArguments } from "./Tool.js"

/** tmux's own ceiling for a window dimension. */
const MAX_CELLS = 10_000

const Cells = Int.pipe(Schema.between(1, MAX_CELLS))

const SplitSize = Schema.Union(
  Cells,
  Schema.String.pipe(
    Schema.pattern(/^[1-9][0-9]?%$/, { message: () => "must be a percentage from \"1%\" to \"99%\"" })
  )
).annotations({ description: "Size of the new pane: cells (e.g. 10) or a percentage of the split pane (e.g. \"30%\"). Default: half." })

/** The arguments every tool that starts a process shares, and their mapping onto a SpawnRequest. */
const spawnInputs = {
  start_directory: startDirectoryArgument("this MCP server's working directory (tmux's own default)"),
  environment: environmentArgument,
  suppress_persistent_history: suppressHistoryArgument,
  command: commandArgument
}

const spawnRequest = (input: {
  readonly start_directory?: string
  readonly environment?: Readonly<Record<string, string>>
  readonly suppress_persistent_history?: boolean
  readonly command?: ReadonlyArray<string>
}): SpawnRequest => ({
  startDirectory: input.start_directory,
  environment: input.environment,
  // Per call, default off: LIBTMUX_SUPPRESS_HISTORY is about commands this server types, not shells it starts.
  suppressHistory: input.suppress_persistent_history ?? false,
  command: input.command
})

const detachedArgument = (what: string) =>
  optional(Schema.Boolean, `Default true: ${what} stays as it is, so a person's view does not jump. false makes the new one current.`)

const paneResult = ({ pane, server }: SpawnedPane) => ({ pane, generation: server.generation })

const ServerGeneration = Generation.annotations({ description: "The server's generation; pass it back to later calls." })

const PaneResult = Schema.Struct({ pane: PaneDetail, generation: ServerGeneration })

const CreatedSession = Schema.Struct({
  ...Session.fields,
  server_started: Schema.Boolean.annotations({
    description: "True when this call started the tmux server (none was running); false when it joined a running one."
  }),
  owned: Schema.Boolean.annotations({ description: "The session is killed when this MCP server exits." }),
  generation: ServerGeneration,
  socket_name: Schema.NullOr(Schema.String),
  socket_path: Schema.String
})

export const createSessionTool = defineTool({
  name: "create_session",
  title: "Create tmux Session",
  description:
    "Creates a detached session with one window and one pane: the default shell, or `command` (an argv run with no shell). Check list_sessions first: a taken session_name is refused. Values in `environment` are stored in the session environment, so later panes of the session inherit them too. On a socket with no server it fails with no_server unless allow_server_start is true; then it starts the server and says so in server_started. owned=true makes the session this MCP server's: it is killed when this server exits.",
  tier: "mutating",
  group: "lifecycle",
  hints: { idempotent: false, destructive: false, openWorld: true },
  input: Schema.Struct({
    session_name: optional(
      Schema.String,
      `Name for the new session (default: tmux picks a number). 1-${MAX_NAME_LENGTH} characters, stored literally; refused if taken, or if tmux would store it differently (':' '.', '\\', control characters, '$' before a letter).`
    ),
    window_name: optional(Schema.String, `Name for the initial window, stored literally (1-${MAX_NAME_LENGTH} characters).`),
    x: optional(Cells, `Width of the initial window in cells (1-${MAX_CELLS}); default 80.`),
    y: optional(Cells, `Height of the initial window in cells (1-${MAX_CELLS}); default 24.`),
    ...spawnInputs,
    allow_server_start: optional(
      Schema.Boolean,
      "Start a tmux server if none runs on the socket (it reads the user's tmux config). Default: LIBTMUX_ALLOW_SERVER_START, else false."
    ),
    owned: optional(
      Schema.Boolean,
      "Kill this session when this MCP server exits (stdin closed or a signal), and only then. Default false."
    ),
    ...socketArguments
  }),
  output: CreatedSession,
  handler: (input) =>
    Effect.gen(function*() {
      const config = yield* TmuxMcpConfig
      const socket = yield* resolveSocket(input)
      const created = yield* createSession(socket, {
        ...spawnRequest(input),
        sessionName: input.session_name,
        windowName: input.window_name,
        width: input.x,
        height: input.y,
        allowServerStart: input.allow_server_start ?? config.allowServerStart,
        owned: input.owned ?? false
      })
      return {
        ...created.session,
        server_started: created.serverStarted,
        owned: created.owned,
        generation: created.server.generation,
        socket_name: socket.name,
        socket_path: created.server.socket_path
      }
    })
})

export const createWindowTool = defineTool({
  name: "create_window",
  title: "Create tmux Window",
  description:
    "Creates a window in the session given by session_id, running the default shell or `command` (an argv run with no shell), and returns the window and its pane (with placements, is_caller, is_attended). By default the session's current window does not change (detached=true). `environment` reaches the new pane only.",
  tier: "mutating",
  group: "lifecycle",
  hints: { idempotent: false, destructive: false, openWorld: true },
  input: Schema.Struct({
    session_id: SessionId,
    window_name: optional(
      Schema.String,
      `Name for the new window, stored literally (1-${MAX_NAME_LENGTH} characters). Default: tmux names it after its command.`
    ),
    window_index: optional(NonNegativeInt, "Index for the window in the session; refused if taken. Default: the next free index."),
    detached: detachedArgument("the session's current window"),
    ...spawnInputs,
    generation: generationArgument,
    ...socketArguments
  }),
  output: Schema.Struct({ window: Window, pane: PaneDetail, generation: ServerGeneration }),
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      const { window, pane, server } = yield* createWindow(socket, input.session_id, {
        ...spawnRequest(input),
        windowName: input.window_name,
        windowIndex: input.window_index,
        detached: input.detached,
        generation: input.generation
      })
      return { window, pane, generation: server.generation }
    })
})

export const splitWindowTool = defineTool({
  name: "split_window",
  title: "Split tmux Pane",
  description:
    "Splits the pane given by pane_id and returns the new pane (with placements, is_caller, is_attended). direction is where the new pane goes relative to the split one: above, below (default), left or right. It starts in the split pane's current directory unless start_directory says otherwise, running the default shell or `command` (an argv run with no shell). By default the window's active pane does not change (detached=true).",
  tier: "mutating",
  group: "lifecycle",
  hints: { idempotent: false, destructive: false, openWorld: true },
  input: Schema.Struct({
    pane_id: PaneId,
    direction: optional(Schema.Literal("above", "below", "left", "right"), "Where the new pane goes. Default below."),
    size: optional(SplitSize),
    detached: detachedArgument("the window's active pane"),
    ...spawnInputs,
    start_directory: startDirectoryArgument("the split pane's current directory"),
    generation: generationArgument,
    ...socketArguments
  }),
  output: PaneResult,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      const split = yield* splitWindow(socket, input.pane_id, {
        ...spawnRequest(input),
        direction: input.direction,
        // The schema admits only "N%" strings.
        size: input.size as number | `${number}%` | undefined,
        detached: input.detached,
        generation: input.generation
      })
      return paneResult(split)
    })
})

export const respawnPaneTool = defineTool({
  name: "respawn_pane",
  title: "Respawn tmux Pane",
  description:
    "Restarts the process of the pane given by pane_id: `command` (an argv run with no shell), or else the command the pane was started with. kill (default true) kills the running process first; with kill=false only a dead pane (remain-on-exit) is respawned. It keeps its directory unless start_directory is given. Refuses the pane this MCP server runs in. Returns the pane afterwards.",
  tier: "mutating",
  group: "lifecycle",
  hints: { idempotent: false, destructive: true, openWorld: true },
  input: Schema.Struct({
    pane_id: PaneId,
    kill: optional(Schema.Boolean, "Kill the pane's running process first. Default true."),
    ...spawnInputs,
    start_directory: startDirectoryArgument("the pane's start directory"),
    generation: generationArgument,
    ...socketArguments
  }),
  output: PaneResult,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      const respawned = yield* respawnPane(socket, input.pane_id, {
        ...spawnRequest(input),
        kill: input.kill,
        generation: input.generation
      })
      return paneResult(respawned)
    })
})

export const createTools: ReadonlyArray<AnyTool> = [createSessionTool, createWindowTool, splitWindowTool, respawnPaneTool]
