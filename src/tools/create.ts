/** Creating sessions, windows and panes: create_session, create_window, split_window, respawn_pane. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { PaneId, SessionId } from "../domain/Ids.js"
import { Generation, hostField, HostName, PaneDetail, Session, Window } from "../domain/Model.js"
import { PANE_FIELDS, PANE_KEY, type PaneField, project, projected } from "../operations/hierarchy/Fields.js"
import { createSession, createWindow, type PaneSplit, respawnPane, splitWindow } from "../operations/lifecycle/Create.js"
import type { SpawnRequest } from "../operations/lifecycle/Spawn.js"
import { MAX_PANE_SPLITS } from "../operations/lifecycle/WindowPanes.js"
import {
  commandArgument,
  CommandArgv,
  environmentArgument,
  generationArgument,
  startDirectoryArgument,
  suppressHistoryArgument
} from "./internal/Arguments.js"
import { fieldsLike, fieldsOf } from "./internal/Fields.js"
import { DEFAULT_PANE_FIELDS } from "./pane.js"
import { type AnyTool, defineTool, Int, NonNegativeInt, optional, socketArguments } from "./Tool.js"

/** tmux's own ceiling for a window dimension. */
const MAX_CELLS = 10_000

const Cells = Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: MAX_CELLS })))

const SplitSize = Schema.Union([
  Cells,
  Schema.String.pipe(
    Schema.check(Schema.isPattern(/^[1-9][0-9]?%$/u, { message: "must be a percentage from \"1%\" to \"99%\"" }))
  )
]).annotate({ description: "Cells or \"30%\"." })

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

const Direction = Schema.Literals(["above", "below", "left", "right"])

/** A pane more for a new window: the layout's entries, each splitting the pane made before it. */
const PaneSplitInput = Schema.Struct({
  direction: Direction,
  // Its form ("30%") is said once, in split_window's size.
  size: optional(
    SplitSize.annotate({ description: undefined, "x-etm-json-schema": { anyOf: [{ type: "integer" }, { type: "string" }] } })
  ),
  start_directory: optional(Schema.String),
  command: optional(CommandArgv)
})

const PaneSplits = Schema.Array(PaneSplitInput).pipe(Schema.check(Schema.isMaxLength(MAX_PANE_SPLITS)))

const panesArgument = optional(
  PaneSplits,
  "Each splits the pane made before it (the first: the first pane); size as split_window's. Returns panes, in order."
)

/** create_window's `panes` are create_session's: tools/list shows their shape once, there; decoding checks them the same. */
const panesLikeSession = optional(
  PaneSplits.annotate({ "x-etm-json-schema": { type: "array", items: { type: "object" } } }),
  "As create_session's."
)

const paneSplits = (panes: ReadonlyArray<typeof PaneSplitInput.Type> | undefined): ReadonlyArray<PaneSplit> | undefined =>
  panes?.map((pane) => ({
    direction: pane.direction,
    // The schema admits only "N%" strings.
    size: pane.size as PaneSplit["size"],
    startDirectory: pane.start_directory,
    command: pane.command
  }))

/** A pane a mutation made or changed, as list_panes shows it: its default fields unless `fields` asks. */
const paneFieldsArgument = fieldsLike(PANE_FIELDS, "list_panes")

const ListedPane = projected(PaneDetail, PANE_KEY)

const paneProjection = (requested: "all" | ReadonlyArray<PaneField> | undefined) => {
  const fields = fieldsOf(requested, PANE_FIELDS, PANE_KEY, DEFAULT_PANE_FIELDS)
  return (pane: PaneDetail) => project(pane, fields)
}

const ServerGeneration = Generation.annotate({ description: "The server's generation; pass it back to later calls." })

const PaneResult = Schema.Struct({ pane: ListedPane, generation: ServerGeneration })

const CreatedSession = Schema.Struct({
  ...Session.fields,
  server_started: Schema.Boolean.annotate({
    description: "True when this call started the tmux server (none was running); false when it joined a running one."
  }),
  owned: Schema.Boolean.annotate({ description: "The session is killed when this MCP server exits." }),
  generation: ServerGeneration,
  panes: Schema.optionalKey(Schema.Array(ListedPane)),
  host: Schema.optional(HostName),
  socket_name: Schema.NullOr(Schema.String),
  socket_path: Schema.String
})

export const createSessionTool = defineTool({
  name: "create_session",
  title: "Create tmux Session",
  description:
    "Creates a detached session running the shell or command (argv), and panes; allow_server_start starts a server, owned: killed when this server exits.",
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
    owned: optional(Schema.Boolean),
    panes: panesArgument,
    fields: paneFieldsArgument,
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
        owned: input.owned ?? false,
        panes: paneSplits(input.panes)
      })
      return {
        ...created.session,
        server_started: created.serverStarted,
        owned: created.owned,
        generation: created.server.generation,
        ...(created.panes === undefined ? {} : { panes: created.panes.map(paneProjection(input.fields)) }),
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
    detached: detachedArgument("the current window"),
    ...spawnInputs,
    panes: panesLikeSession,
    fields: paneFieldsArgument,
    generation: generationArgument,
    ...socketArguments
  }),
  output: Schema.Struct({
    window: Window,
    pane: Schema.optionalKey(ListedPane).annotate({ description: "Its first pane; in panes when asked for." }),
    panes: Schema.optionalKey(Schema.Array(ListedPane)),
    generation: ServerGeneration
  }),
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      const created = yield* createWindow(socket, input.session_id, {
        ...spawnRequest(input),
        windowName: input.window_name,
        windowIndex: input.window_index,
        detached: input.detached,
        generation: input.generation,
        panes: paneSplits(input.panes)
      })
      const shown = paneProjection(input.fields)
      return {
        window: created.window,
        ...(created.panes === undefined ? { pane: shown(created.pane) } : { panes: created.panes.map(shown) }),
        generation: created.server.generation
      }
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
    direction: optional(Direction),
    size: optional(SplitSize),
    detached: detachedArgument("the active pane"),
    ...spawnInputs,
    start_directory: startDirectoryArgument("the split pane's current directory"),
    fields: paneFieldsArgument,
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
      return { pane: paneProjection(input.fields)(split.pane), generation: split.server.generation }
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
    fields: paneFieldsArgument,
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
      return { pane: paneProjection(input.fields)(respawned.pane), generation: respawned.server.generation }
    })
})

export const createTools: ReadonlyArray<AnyTool> = [createSessionTool, createWindowTool, splitWindowTool, respawnPaneTool]
