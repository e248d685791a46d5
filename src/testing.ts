/**
 * effect-tmux-mcp/testing: test doubles of the `Tmux` service, for unit tests of programs built on
 * the library (and of the library itself).
 */

/** An in-memory `Tmux` over a world of fake servers: `layer`, `server` and the `FakeTmuxState` service. */
export * as FakeTmux from "./api/FakeTmux.js"
/** A `Tmux` decorator that records every invocation: `layer` and the `TmuxRecorder` service. */
export * as RecordingTmux from "./api/RecordingTmux.js"
