/**
 * The shapes of FakeTmux's world: servers, their sessions, windows (linked into sessions by
 * winlinks), panes, clients, paste buffers and environments, plain mutable objects held by
 * reference; and the specs a test builds a server from. The model's behaviour is in internal/.
 */

export interface FakePane {
  readonly id: string
  /** `pane_current_command`: the foreground program's name. */
  command: string
  /** `pane_current_path`. */
  cwd: string
  /** `pane_start_path`: where the pane's process started. */
  startPath: string
  /** The argv the pane was started with (empty: the default shell). */
  startCommand: ReadonlyArray<string>
  /** The environment the pane's process started with. */
  environment: Record<string, string>
  pid: number | null
  title: string
  dead: boolean
  inMode: boolean
  /** A full-screen program uses the alternate screen (`alternate_on`). */
  alternate: boolean
  /** The program asked for bracketed paste: `paste-buffer -p` wraps the text in ESC [200~ … ESC [201~. */
  bracketedPaste: boolean
  width: number
  height: number
  left: number
  top: number
  /** `history-limit` when the pane was made: older rows are dropped in chunks of a tenth of it. */
  historyLimit: number
  /**
   * What the program printed, oldest first; the last entry is the line the cursor is on (so a
   * prompt `"$ "` leaves the cursor after it). Wrapped at `width` into history and screen rows as
   * tmux does.
   */
  lines: Array<string>
  /** What the program read from its terminal: typed keys (as the bytes tmux sends) and pastes, in order. */
  input: string
  /** The shell command of the pane's `pipe-pane`, as tmux expanded it, or null. */
  pipe: string | null
  /** Pane options (`set-option -p`), e.g. user options such as `@name`. */
  options: Map<string, string>
}

/** A window of the fake world, with its panes. */
export interface FakeWindow {
  readonly id: string
  name: string
  zoomed: boolean
  width: number
  height: number
  /** In pane-index order. */
  panes: Array<FakePane>
  activePane: string
  /** The pane that was active before, for `last-pane`. */
  lastPane?: string | undefined
  /** Window options (`set-option -w`), e.g. `window-size` after `resize-window` (see `windowOptions`). */
  options?: Map<string, string>
}

/** A window's place in a session: a linked window has one winlink per session. */
export interface FakeWinlink {
  index: number
  window: string
}

/** An environment: a value, or null for a removed entry (`set-environment -r`, shown as `-NAME`). */
export type FakeEnvironment = Map<string, string | null>

/** A session of the fake world: its window links, current window and environment. */
export interface FakeSession {
  readonly id: string
  name: string
  created: number
  winlinks: Array<FakeWinlink>
  /** The winlink index of the session's current window. */
  current: number
  /** The winlink index of the window that was current before, for `last-window`. */
  last?: number | undefined
  /** The session's directory (`session_path`); the server's when absent. */
  cwd?: string
  /** The session's environment (see `sessionEnvironment`; a session made by hand may lack one). */
  environment?: FakeEnvironment
  /** Session options (`set-option` without -g, -p, -w, -s), e.g. user options (see `sessionOptions`). */
  options?: Map<string, string>
}

/** A client shows its session's current window and that window's active pane. */
export interface FakeClient {
  /** As tmux prints `#{client_flags}`, e.g. "attached,focused,UTF-8" or "...,control-mode,...". */
  flags: string
  session: string
  /** `#{client_name}` (its tty), which tmux also tries as a `-t` target when no session has the name. */
  name: string
}

export interface FakeBuffer {
  name: string
  data: string
  /** `buffer_created`, Unix seconds. */
  created: number
  /** tmux lists buffers newest first by this. */
  order: number
}

/** A fake tmux server: identity, sessions, windows, clients, buffers, environment, options and id counters. */
export interface FakeServer {
  pid: number
  startTime: number
  version: string
  /** The `exit-empty` server option: the server exits when its last session closes. */
  exitEmpty: boolean
  sessions: Array<FakeSession>
  windows: Map<string, FakeWindow>
  clients: Array<FakeClient>
  /** Newest last; see `FakeBuffer.order`. */
  buffers: Array<FakeBuffer>
  /** The global environment (`set-environment -g`). */
  environment: FakeEnvironment
  /** Server options other than exit-empty, and the global session and window options (`-g`). */
  options: Map<string, string>
  /** The directory a tmux client runs in: where a pane starts without `-c` (tmux 3.3a's default). */
  cwd: string
  /**
   * The directories that exist on the server's machine, when a test says so: a process asked to
   * start anywhere else starts in the server's HOME, as tmux 3.3a's child does when its chdir fails
   * (spawn.c), its pane_start_path still the one asked for. Unset: every directory exists.
   */
  directories?: ReadonlySet<string>
  /** Id counters: like tmux, ids are never reused within one server instance. */
  next: { session: number; window: number; pane: number; buffer: number; pid: number }
}

/** socketKey (the socket path; for a remote host's socket, its host and path) -> the server answering there. */
export type FakeWorld = Map<string, FakeServer>

/** What a test says of a pane it builds; everything not said takes tmux's default. */
export type FakePaneSpec = Partial<Omit<FakePane, "id">>
/** A window to build (its panes, name, index, size), or a link to a window built earlier. */
export type FakeWindowSpec =
  | {
    readonly name?: string
    readonly index?: number
    readonly zoomed?: boolean
    readonly width?: number
    readonly height?: number
    readonly panes?: ReadonlyArray<FakePaneSpec>
    readonly activePane?: number
  }
  /** Links an already created window (by id) into this session too. */
  | { readonly link: string; readonly index?: number }

/** A session to build: its name, windows, current window and environment. */
export interface FakeSessionSpec {
  readonly name: string
  readonly created?: number
  readonly windows?: ReadonlyArray<FakeWindowSpec>
  /** Position in `windows` of the current window (default 0). */
  readonly current?: number
  readonly environment?: Readonly<Record<string, string | null>>
}

/** A server to build: identity, sessions, clients, global environment and buffers. */
export interface FakeServerSpec {
  readonly pid?: number
  readonly startTime?: number
  readonly version?: string
  readonly exitEmpty?: boolean
  readonly sessions?: ReadonlyArray<FakeSessionSpec>
  readonly clients?: ReadonlyArray<{ readonly session: string; readonly flags?: string; readonly name?: string }>
  /** The global environment; default a small one (PATH, HOME, TERM). */
  readonly environment?: Readonly<Record<string, string | null>>
  readonly buffers?: ReadonlyArray<{ readonly name: string; readonly data: string; readonly created?: number }>
  /** See `FakeServer.directories`; default: every directory exists. */
  readonly directories?: ReadonlyArray<string>
}
