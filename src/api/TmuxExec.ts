/** The `Tmux` layer that runs one tmux process per invocation, each command list closed by an end mark. */
import type * as Layer from "effect/Layer"
import type { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import type { Tmux } from "../tmux/Tmux.js"
import { TmuxExec } from "../tmux/TmuxExec.js"

/** `Tmux` over a process per invocation. */
export const layer: Layer.Layer<Tmux, never, TmuxMcpConfig> = TmuxExec.layer
