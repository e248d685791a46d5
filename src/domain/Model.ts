/**
 * The domain models. They are also the wire shapes (snake_case, numbers as numbers, flags as
 * booleans), so the library and the MCP tools speak the same language. Text that programs or other
 * clients set (names, titles, directories, commands) is a `DisplayText`: exact in the library, its
 * control characters escaped when encoded for the wire.
 */
import * as Schema from "effect/Schema"
import { DisplayText } from "./ControlText.js"
import { PaneId, SessionId, WindowId } from "./Ids.js"

export const Int = Schema.Number.pipe(Schema.check(Schema.isInt()))
export const NonNegativeInt = Int.pipe(Schema.check(Schema.isGreaterThanOrEqualTo(0)))

/**
 * Which tmux server instance answered: its pid and start time. A restarted server reuses ids
 * (%0, @0, $0), so comparing generations tells "same object" from "same id, new server".
 */
export const Generation = Schema.String.pipe(
  Schema.annotate({ description: "Opaque identity of a tmux server instance (changes when it restarts)." })
)

/**
 * The machine a result's socket is on: `local` or a name of the hosts file. Present only with a
 * hosts file, so that results without one are what they were before hosts existed; tools/list shows
 * these fields only then (ToolList). A socket_path beside it is always the path on that host.
 */
export const HostName = Schema.String.annotate({ description: "The host the socket is on (`local`: this machine)." })

/** The result fields that say a host; tools/list leaves them out without a hosts file. */
export const HOST_FIELDS: ReadonlyArray<string> = ["host", "effective_host", "hosts", "host_errors"]

/** A result's `host` field: the socket's host, when it has one (with a hosts file). */
export const hostField = (socket: { readonly host?: string | undefined }): { readonly host?: string } =>
  socket.host === undefined ? {} : { host: socket.host }

/** The server that answered a call: pid, start time, version, socket path and generation. */
export const ServerIdentity = Schema.Struct({
  pid: NonNegativeInt,
  start_time: NonNegativeInt.annotate({ description: "Server start, Unix seconds." }),
  version: Schema.String,
  socket_path: Schema.String,
  generation: Generation
})
export type ServerIdentity = typeof ServerIdentity.Type

export const generationOf = (server: { readonly pid: number; readonly start_time: number }): string => `${server.pid}.${server.start_time}`

/** A session, as list_sessions reports it. */
export const Session = Schema.Struct({
  session_id: SessionId,
  session_name: DisplayText,
  window_count: NonNegativeInt,
  session_attached: NonNegativeInt.annotate({
    description:
      "Clients attached to the session, as tmux counts them, except control-mode clients that take no pane output (such as this server's own connection)."
  }),
  session_created: NonNegativeInt.annotate({ description: "Creation time, Unix seconds." }),
  active_window_id: WindowId,
  active_pane_id: PaneId
})
export type Session = typeof Session.Type

/** A window link (a window once per session holding it), as list_windows reports it. */
export const Window = Schema.Struct({
  window_id: WindowId,
  window_name: DisplayText,
  window_index: NonNegativeInt,
  session_id: SessionId,
  session_name: DisplayText,
  pane_count: NonNegativeInt,
  active: Schema.Boolean.annotate({ description: "The session's current window." }),
  zoomed: Schema.Boolean,
  width: NonNegativeInt,
  height: NonNegativeInt,
  layout: Schema.String,
  active_pane_id: PaneId
})
export type Window = typeof Window.Type

/**
 * A pane with its window and session, as list_panes reports it; `is_caller` and `is_attended` say
 * whose it is and who watches.
 */
export const Pane = Schema.Struct({
  pane_id: PaneId,
  pane_index: NonNegativeInt,
  window_id: WindowId,
  window_index: NonNegativeInt,
  window_name: DisplayText,
  session_id: SessionId,
  session_name: DisplayText,
  active: Schema.Boolean.annotate({ description: "The active pane of its window." }),
  width: NonNegativeInt,
  height: NonNegativeInt,
  left: NonNegativeInt,
  top: NonNegativeInt,
  command: DisplayText.annotate({ description: "The pane's current foreground command." }),
  cwd: DisplayText.annotate({ description: "The pane's current working directory." }),
  pid: Schema.NullOr(NonNegativeInt).annotate({ description: "The pid of the pane's first process." }),
  title: DisplayText,
  dead: Schema.Boolean,
  in_mode: Schema.Boolean.annotate({ description: "In copy mode or another tmux mode." }),
  is_caller: Schema.NullOr(Schema.Boolean).annotate({
    description: "True only for the pane this MCP server runs in (socket and server confirmed); null when the server runs outside tmux."
  }),
  is_attended: Schema.Boolean.annotate({
    description: "A person's tmux client shows this pane right now (control-mode clients do not count)."
  })
})
export type Pane = typeof Pane.Type

/** One way to reach a pane's window: a window linked into several sessions has several. */
export const PanePlacement = Schema.Struct({
  session_id: SessionId,
  session_name: DisplayText,
  window_index: NonNegativeInt
})
export type PanePlacement = typeof PanePlacement.Type

/** A pane with every session and window index through which its window is reachable. */
export const PaneDetail = Schema.Struct({
  ...Pane.fields,
  // tools/list shows placements as an array (docs/tools.md names its items' fields): their schema
  // would cost 148 B in each of the eight pane results that may hold placements.
  placements: Schema.Array(PanePlacement).annotate({ "x-etm-json-schema": { type: "array" } }),
  placements_complete: Schema.Boolean.annotate({ description: "False when placements were cut at the limit." })
})
export type PaneDetail = typeof PaneDetail.Type

/** One socket's server: alive or not, its identity, and its session, window and pane counts. */
export const ServerInfo = Schema.Struct({
  is_alive: Schema.Boolean,
  host: Schema.optional(HostName),
  socket_name: Schema.NullOr(Schema.String),
  socket_path: Schema.String,
  socket_rule: Schema.String.annotate({ description: "Which configuration rule chose this socket." }),
  pid: Schema.NullOr(NonNegativeInt),
  version: Schema.NullOr(Schema.String),
  start_time: Schema.NullOr(NonNegativeInt),
  generation: Schema.NullOr(Generation),
  session_count: NonNegativeInt,
  window_count: NonNegativeInt,
  pane_count: NonNegativeInt,
  is_caller_server: Schema.NullOr(Schema.Boolean).annotate({
    description: "Whether this MCP server itself runs inside this tmux server; null outside tmux."
  })
})
export type ServerInfo = typeof ServerInfo.Type

/** A live server found in a socket directory (of this machine or a host's), as list_servers reports it. */
export const LiveServer = Schema.Struct({
  host: Schema.optional(HostName),
  // Found by listing the socket directory: any program of the user may have named a file there.
  socket_name: Schema.NullOr(DisplayText),
  socket_path: DisplayText,
  pid: NonNegativeInt,
  version: Schema.String,
  generation: Generation,
  session_count: NonNegativeInt
})
export type LiveServer = typeof LiveServer.Type

/** A socket that accepted the connection but whose server did not answer in time. */
export const UnresponsiveSocket = Schema.Struct({
  host: Schema.optional(HostName),
  // Named by a file in the socket directory, as LiveServer's: escaped alike.
  socket_name: Schema.NullOr(DisplayText),
  socket_path: DisplayText
})
export type UnresponsiveSocket = typeof UnresponsiveSocket.Type

/** A host whose servers could not be listed, or not all of them, and why (ssh's or tmux's words). */
export const HostError = Schema.Struct({ host: Schema.String, error: DisplayText })
export type HostError = typeof HostError.Type

/** A remote host's ssh link as where_am_i shows it; cause and retry_in_ms only when it is down. */
export const HostLink = Schema.Struct({
  host: Schema.String,
  state: Schema.Literals(["idle", "connecting", "up", "down"]),
  cause: Schema.optionalKey(DisplayText),
  retry_in_ms: Schema.optionalKey(NonNegativeInt)
})
export type HostLink = typeof HostLink.Type

/** A pane's captured text, bounded: the newest lines are kept and the rest counted. */
export const Capture = Schema.Struct({
  pane_id: PaneId,
  content: Schema.String.annotate({ description: "The captured lines joined by newlines, oldest first." }),
  lines_total: NonNegativeInt.annotate({ description: "Lines in the requested range (trailing blank lines dropped)." }),
  lines_returned: NonNegativeInt,
  truncated: Schema.Boolean,
  truncated_lines: NonNegativeInt.annotate({ description: "Oldest lines left out to stay within max_lines." })
})
export type Capture = typeof Capture.Type

/** Whether the caller's pane (from `$TMUX` / `$TMUX_PANE`) still exists. */
export const CallerStatus = Schema.Literals(["outside_tmux", "live", "pane_gone", "server_gone", "uncertain"]).annotate({
  description:
    "outside_tmux: no self; live: the caller pane exists now; pane_gone / server_gone: $TMUX names a pane or server that no longer exists; uncertain: $TMUX_PANE without a readable $TMUX, or the caller's server did not answer in time."
})

/** Where this MCP server runs, which tmux server its tools will query, and what it may do there. */
export const WhereAmI = Schema.Struct({
  tmux_problem: Schema.optionalKey(Schema.String).annotate({
    description: "Only when the tmux binary is missing or not tmux: what is wrong, and the fix."
  }),
  inside_tmux: Schema.Boolean,
  caller_status: CallerStatus,
  caller_source: Schema.Literals(["environment", "process_tree", "none"]).annotate({
    description: "How the caller was found: its $TMUX, an ancestor process's (a client that passed no TMUX), or not."
  }),
  pane_id: Schema.NullOr(PaneId),
  window_id: Schema.NullOr(WindowId).annotate({ description: "Read live from tmux, not from $TMUX." }),
  session_id: Schema.NullOr(SessionId).annotate({ description: "Read live from tmux ($TMUX's session goes stale)." }),
  caller_socket_path: Schema.optionalKey(Schema.NullOr(Schema.String)).annotate({
    description: "null outside tmux; left out when it is effective_socket_path."
  }),
  effective_host: Schema.optional(HostName),
  effective_socket_name: Schema.NullOr(Schema.String),
  effective_socket_path: Schema.String,
  socket_rule: Schema.String.annotate({ description: "Which configuration rule chose the effective socket." }),
  targets_caller_server: Schema.NullOr(Schema.Boolean).annotate({
    description: "Whether the tools' socket is the server the caller runs in; null outside tmux, or when a server did not answer."
  }),
  server_running: Schema.Boolean.annotate({ description: "A tmux server answered on the effective socket." }),
  server_unresponsive: Schema.optionalKey(Schema.Literal(true)).annotate({
    description:
      "Only when true: something holds the effective socket but did not answer within 2 s (a stopped or wedged tmux); server_running is false, calls there time out."
  }),
  server_pid: Schema.NullOr(NonNegativeInt),
  server_version: Schema.NullOr(Schema.String),
  generation: Schema.NullOr(Generation),
  live_server_count: NonNegativeInt,
  unresponsive_server_count: Schema.optionalKey(NonNegativeInt).annotate({
    description:
      "Only when some: sockets of the socket directory whose server did not answer within 2 s (list_servers names them); not in live_server_count."
  }),
  safety_level: Schema.Literals(["readonly", "mutating", "destructive"]),
  suppress_history: Schema.Boolean,
  allow_server_start: Schema.Boolean,
  transport: Schema.Literals(["socket", "exec"]).annotate({
    description: "How calls reach the effective socket's server: exec where a server does not speak the socket protocol."
  }),
  hosts: Schema.optionalKey(Schema.Array(HostLink)).annotate({
    description:
      "The hosts file's hosts (the host argument) and their ssh links: idle until first used; down says why and when a call connects again."
  })
})
export type WhereAmI = typeof WhereAmI.Type

/** A session a kill closed. */
export const ClosedSession = Schema.Struct({ session_id: SessionId, session_name: DisplayText })
export type ClosedSession = typeof ClosedSession.Type

/** A window a kill closed (or, in `windows_kept`, one that lives on). */
export const ClosedWindow = Schema.Struct({ window_id: WindowId, window_name: DisplayText })
export type ClosedWindow = typeof ClosedWindow.Type

/** What a kill destroyed, read from the server before and after the kill in the same round trip. */
export const Teardown = Schema.Struct({
  killed: Schema.Literals(["session", "window", "pane"]),
  id: Schema.String.annotate({ description: "The id that was killed ($N, @N or %N)." }),
  name: Schema.NullOr(DisplayText).annotate({ description: "The session or window name; null for a pane." }),
  sessions_closed: Schema.Array(ClosedSession).annotate({
    description: "Sessions that no longer exist: the killed one, or those whose last window went."
  }),
  windows_closed: Schema.Array(ClosedWindow).annotate({
    description: "Windows that no longer exist (a window linked into several sessions counts once)."
  }),
  pane_ids_closed: Schema.Array(PaneId).annotate({ description: "Panes that no longer exist; their processes got SIGHUP." }),
  session_count: NonNegativeInt.annotate({ description: "How many sessions closed (sessions_closed may be cut)." }),
  window_count: NonNegativeInt.annotate({ description: "How many windows closed." }),
  pane_count: NonNegativeInt.annotate({ description: "How many panes closed." }),
  windows_kept: Schema.Array(ClosedWindow).annotate({
    description: "kill_session only: windows of the session that live on because they are linked into other sessions."
  }),
  truncated: Schema.Boolean.annotate({ description: "Some list above was cut; the counts are complete." }),
  sessions_remaining: NonNegativeInt.annotate({ description: "Sessions left on the server after the kill." }),
  server_exited: Schema.Boolean.annotate({
    description:
      "The tmux server is exiting because of this kill (no session left and exit-empty on, or no attached client left and exit-unattached on); its socket no longer answers."
  }),
  generation: Generation.annotate({ description: "The generation of the server that did the kill." })
})
export type Teardown = typeof Teardown.Type
