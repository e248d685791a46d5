/** Creating sessions, windows and panes: create_session, create_window, split_window, respawn_pane. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { PaneId, SessionId } from "../domain/Ids.js"
import { Generation, hostField, HostName, PaneDetail, Session, Window } from "../domain/Model.js"
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
).annotations({ description: "Cells or \"30%\"." })

/** The arguments every tool that starts a process shares, and their mapping onto a SpawnRequest. */
const spawnInputs = {
  start_directory: startDirectoryArgument("this server's directory"),
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

const detachedArgument = (what: string) => optional(Schema.Boolean, `Default true: ${what} stays.`)

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
  host: Schema.optional(HostName),
  socket_name: Schema.NullOr(Schema.String),
  socket_path: Schema.String
})

export const createSessionTool = defineTool({
  name: "create_session",
  title: "Create tmux Session",
  description:
    "Creates a detached session running the shell or command (argv); allow_server_start starts a server, owned kills it at exit. Returns it and its pane.",
  tier: "mutating",
  group: "lifecycle",
  hints: { idempotent: false, destructive: false, openWorld: true },
  input: Schema.Struct({
    session_name: optional(
      Schema.String
    ),
    window_name: optional(Schema.String),
    x: optional(Cells, "Default 80."),
    y: optional(Cells, "Default 24."),
    ...spawnInputs,
    allow_server_start: optional(
      Schema.Boolean
    ),
    owned: optional(
      Schema.Boolean,
      "Killed when this server exits."
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
        ...hostField(socket),
        socket_name: socket.name,
        socket_path: created.server.socket_path
      }
    })
})

export const createWindowTool = defineTool({
  name: "create_window",
  title: "Create tmux Window",
  description: "Creates a window in a session running the shell or command (argv). Returns it and its pane.",
  tier: "mutating",
  group: "lifecycle",
  hints: { idempotent: false, destructive: false, openWorld: true },
  input: Schema.Struct({
    session_id: SessionId,
    window_name: optional(
      Schema.String
    ),
    window_index: optional(NonNegativeInt),
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
  description: "Splits a pane; the new one runs the shell or command (argv). Returns it.",
  tier: "mutating",
  group: "lifecycle",
  hints: { idempotent: false, destructive: false, openWorld: true },
  input: Schema.Struct({
    pane_id: PaneId,
    direction: optional(Schema.Literal("above", "below", "left", "right")),
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
  description: "Restarts a pane's process (command, or its own). Refuses the caller's pane. Returns the pane.",
  tier: "mutating",
  group: "lifecycle",
  hints: { idempotent: false, destructive: true, openWorld: true },
  input: Schema.Struct({
    pane_id: PaneId,
    kill: optional(Schema.Boolean, "Default true."),
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
