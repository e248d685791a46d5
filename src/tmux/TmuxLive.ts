/**
 * The live `Tmux` layer the configuration asks for: `TmuxControl` (default) or `TmuxExec`.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import type { Tmux } from "./Tmux.js"
import { TmuxControl } from "./TmuxControl.js"
import { TmuxExec } from "./TmuxExec.js"

export const TmuxLive = {
  layer: Layer.unwrapEffect(
    Effect.map(TmuxMcpConfig, (config) => (config.transport === "control" ? TmuxControl.layer : TmuxExec.layer))
  ) satisfies Layer.Layer<Tmux, never, TmuxMcpConfig>
}
