/**
 * The live `Tmux` layer the configuration asks for: `TmuxSocket` (default) or `TmuxExec`. A remote
 * host's sockets are always served by the socket transport over their forwards (a tmux process per
 * call would run this machine's tmux), whatever the configured transport.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { isRemoteHost } from "../context/RemoteHosts.js"
import { TmuxMcpConfig, type Transport } from "../context/TmuxMcpConfig.js"
import { Tmux } from "./Tmux.js"
import { TmuxExec } from "./TmuxExec.js"
import { TmuxProcesses } from "./TmuxProcess.js"
import { TmuxSocket } from "./TmuxSocket.js"

/** exec for this machine's servers, the socket client for remote hosts'. */
const execWithRemoteHosts = Layer.effect(
  Tmux,
  Effect.gen(function*() {
    const exec = yield* TmuxExec.make
    const socket = yield* TmuxSocket.make
    return Tmux.of({
      run: (target, commands, options) => (isRemoteHost(target.host) ? socket : exec).run(target, commands, options),
      transportFor: (target) => (isRemoteHost(target.host) ? socket.transportFor! : exec.transportFor!)(target),
      binary: exec.binary!
    })
  })
).pipe(Layer.provide(TmuxProcesses.layer))

const LAYERS: Record<Transport, Layer.Layer<Tmux, never, TmuxMcpConfig>> = {
  socket: TmuxSocket.layer,
  exec: TmuxExec.layer
}

export const TmuxLive = {
  layer: Layer.unwrap(
    Effect.map(
      TmuxMcpConfig,
      (config) => config.transport === "exec" && config.hosts !== undefined ? execWithRemoteHosts : LAYERS[config.transport]
    )
  ) satisfies Layer.Layer<Tmux, never, TmuxMcpConfig>
}
