/** The live `Tmux` layer the configuration's `transport` names: `TmuxSocket` (the default) or `TmuxExec`. */
import type * as Layer from "effect/Layer"
import type { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import type { Tmux } from "../tmux/Tmux.js"
import { TmuxLive } from "../tmux/TmuxLive.js"

/** `TmuxSocket.layer` or `TmuxExec.layer`, as `TmuxMcpConfig`'s `transport` says. */
export const layer: Layer.Layer<Tmux, never, TmuxMcpConfig> = TmuxLive.layer
