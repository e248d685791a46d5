/**
 * effect-tmux-mcp as a library. Each export is a module namespace, as in Effect's own packages:
 * the services and their live layers, the operations the MCP tools use, the errors and the domain
 * models, and the tools themselves. An Effect program provides one layer and calls the operations:
 *
 *   import { Hierarchy, Services, SocketResolver } from "effect-tmux-mcp"
 *
 * The in-memory `FakeTmux` and the `RecordingTmux` decorator are in `effect-tmux-mcp/testing`.
 */

// ---- services and layers --------------------------------------------------------------------

/** Every service the operations run on, as one `layer` built from the settings (the environment by default). */
export * as Services from "./api/Services.js"
/** The settings (`loadConfig` from the environment and flags) and the `TmuxMcpConfig` service's `layer`. */
export * as TmuxMcpConfig from "./api/TmuxMcpConfig.js"
/** Which tmux server a call talks to: the `SocketResolver` service, its `layer` and `ResolvedSocket`. */
export * as SocketResolver from "./api/SocketResolver.js"
/** Where the program runs (the caller's pane, from `TMUX` / `TMUX_PANE`): the `InvocationContext` service and its `layer`. */
export * as InvocationContext from "./api/InvocationContext.js"
/** The `Tmux` service: one command list against one server per round trip. */
export * as Tmux from "./api/Tmux.js"
/** The default `Tmux` layer: tmux's client protocol over the server's socket, no process per call. */
export * as TmuxSocket from "./api/TmuxSocket.js"
/** The `Tmux` layer over a tmux process per invocation. */
export * as TmuxExec from "./api/TmuxExec.js"
/** The `Tmux` layer the configuration's transport names. */
export * as TmuxLive from "./api/TmuxLive.js"
/** Remote hosts over OpenSSH forwards: the `Connections` service, its `layer`, `onHost`. */
export * as Hosts from "./api/Hosts.js"
/** The sessions this process owns, killed when the layer is released: the `Ownership` service and its `layer`. */
export * as Ownership from "./api/Ownership.js"
/** The safety tier: the `Policy` service and its `layer`. */
export * as Policy from "./api/Policy.js"
/** One record per tool call: the `Audit` service, `layer` (stderr) and `layerSilent`. */
export * as Audit from "./api/Audit.js"
/** Progress reports of waiting operations: the `Progress` service a program may provide. */
export * as Progress from "./api/Progress.js"

// ---- errors and models ----------------------------------------------------------------------

/** The errors (`NoServer | NotFound | Failed` from tmux, plus `Denied`, `Conflict`, `InvalidInput`) and their hints. */
export * as Errors from "./api/Errors.js"
/** tmux's object ids as schemas. */
export * as Ids from "./api/Ids.js"
/** The domain models as schemas: sessions, windows, panes, servers, captures. */
export * as Model from "./api/Model.js"

// ---- operations -----------------------------------------------------------------------------

/** The session / window / pane tree: lists and single objects. */
export * as Hierarchy from "./api/Hierarchy.js"
/** tmux options and hooks: show any scope's, set an allowlist's. */
export * as Options from "./api/Options.js"
/** Servers: probe, describe, discover, start, kill. */
export * as Servers from "./api/Servers.js"
/** Where the program runs and which server its calls reach. */
export * as WhereAmI from "./api/WhereAmI.js"
/** Renaming, selecting, resizing, swapping and moving. */
export * as Shape from "./api/Shape.js"
/** Creating sessions, windows, splits and respawned panes. */
export * as Create from "./api/Create.js"
/** Killing sessions, windows and panes. */
export * as Teardown from "./api/Teardown.js"
/** tmux's global and session environments. */
export * as Environment from "./api/Environment.js"
/** Typing keys and text into a pane. */
export * as Input from "./api/Input.js"
/** Pasting text into a pane. */
export * as Paste from "./api/Paste.js"
/** This library's own paste buffers. */
export * as Buffers from "./api/Buffers.js"
/** Capturing what a pane shows. */
export * as Capture from "./api/Capture.js"
/** A pane's screen and state in one round trip. */
export * as Snapshot from "./api/Snapshot.js"
/** What a pane printed since an earlier cursor. */
export * as PaneCursor from "./api/PaneCursor.js"
/** Waiting for text in a pane. */
export * as TextWait from "./api/TextWait.js"
/** Searching many panes. */
export * as Search from "./api/Search.js"
/** tmux `wait-for` channels. */
export * as Channels from "./api/Channels.js"
/** Running shell commands in a pane and waiting for them. */
export * as RunCommand from "./api/RunCommand.js"
/** The clamped timeout waiting operations take. */
export * as Waiting from "./api/Waiting.js"

// ---- tools ----------------------------------------------------------------------------------

/** The MCP tools (`allTools`) and `callTool`, which runs one as the server does. */
export * as Tools from "./api/Tools.js"
