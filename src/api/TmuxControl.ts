/**
 * The `Tmux` layer that keeps one control-mode client per server (falling back to a process per
 * call where a client cannot serve); the clients are detached when the layer is released. tmux
 * before 3.7 can crash when sessions change while such a client connects (docs/configuration.md).
 */
import type * as Layer from "effect/Layer"
import type { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import type { Tmux } from "../tmux/Tmux.js"
import { TmuxControl } from "../tmux/TmuxControl.js"

/** `Tmux` over persistent control-mode clients, released with the layer's scope. */
export const layer: Layer.Layer<Tmux, never, TmuxMcpConfig> = TmuxControl.layer
