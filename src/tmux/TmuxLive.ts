/**
 * The live `Tmux` layer the configuration asks for: `TmuxSocket` (default) or `TmuxExec`.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { TmuxMcpConfig, type Transport } from "../context/TmuxMcpConfig.js"
import type { Tmux } from "./Tmux.js"
import { TmuxExec } from "./TmuxExec.js"
import { TmuxSocket } from "./TmuxSocket.js"

const LAYERS: Record<Transport, Layer.Layer<Tmux, never, TmuxMcpConfig>> = {
  socket: TmuxSocket.layer,
  exec: TmuxExec.layer
}

export const TmuxLive = {
  layer: Layer.unwrapEffect(Effect.map(TmuxMcpConfig, (config) => LAYERS[config.transport])) satisfies Layer.Layer<
    Tmux,
    never,
    TmuxMcpConfig
  >
}
