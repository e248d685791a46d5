/** The live `Tmux` layer the configuration's `transport` names: `TmuxExec` or `TmuxControl`. */
import type * as Layer from "effect/Layer"
import type { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import type { Tmux } from "../tmux/Tmux.js"
import { TmuxLive } from "../tmux/TmuxLive.js"

/** `TmuxExec.layer` or `TmuxControl.layer`, as `TmuxMcpConfig`'s `transport` says. */
export const layer: Layer.Layer<Tmux, never, TmuxMcpConfig> = TmuxLive.layer
