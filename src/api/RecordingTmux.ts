/**
 * A `Tmux` decorator that records every invocation (socket, command names, whether it may start a
 * server), to count the round trips a program makes whatever the transport underneath.
 */
import type * as Layer from "effect/Layer"
import { RecordingTmux, type TmuxRecorder } from "../testing/RecordingTmux.js"
import type { Tmux } from "../tmux/Tmux.js"

export { type RecordedInvocation, TmuxRecorder, type TmuxRecorderShape } from "../testing/RecordingTmux.js"

/** Wraps a `Tmux` layer: its `Tmux` records each `run` before delegating, and `TmuxRecorder` reads the record. */
export const layer: <E, R>(inner: Layer.Layer<Tmux, E, R>) => Layer.Layer<Tmux | TmuxRecorder, E, R> = RecordingTmux.layer
