/**
 * Where the program runs: the caller's tmux pane and server, read once from `TMUX` / `TMUX_PANE`
 * (as the configuration froze them), so reads can mark the caller's own pane and guards can refuse it.
 */
import type * as Layer from "effect/Layer"
import { InvocationContext } from "../context/InvocationContext.js"
import type { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"

export { type Caller, InvocationContext, type InvocationContextShape } from "../context/InvocationContext.js"

/** The context of the configuration's `TMUX` / `TMUX_PANE`. */
export const layer: Layer.Layer<InvocationContext, never, TmuxMcpConfig> = InvocationContext.layer
