/**
 * The default `Tmux` layer: tmux's own client protocol over the server's Unix socket, one
 * connection per command list and no process per call. Calls that may start a server, and servers
 * that do not speak the protocol as this client does, go through a process per call (`TmuxExec`);
 * `transportFor` says which serves a server.
 */
import type * as Layer from "effect/Layer"
import type { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import type { Tmux } from "../tmux/Tmux.js"
import { TmuxSocket } from "../tmux/TmuxSocket.js"

/** `Tmux` over tmux's client protocol, a process per call where a server or a call needs one. */
export const layer: Layer.Layer<Tmux, never, TmuxMcpConfig> = TmuxSocket.layer
