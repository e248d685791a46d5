/**
 * The composition root: every service the server (and any program that embeds its tools) runs on,
 * built once from a configuration. `main` serves MCP and runs doctor on it, the tests build their
 * worlds with it; a test or an embedder may swap the tmux transport (a fake, a recorder), the
 * audit (silenced) and what the remote hosts are (fixed views in place of ssh), and nothing else.
 */
import * as Layer from "effect/Layer"
import { InvocationContext } from "../context/InvocationContext.js"
import type { RemoteHosts } from "../context/RemoteHosts.js"
import { SocketResolver } from "../context/SocketResolver.js"
import { TmuxMcpConfig, type TmuxMcpConfigShape } from "../context/TmuxMcpConfig.js"
import { ConnectionsLive } from "../tmux/Connections.js"
import type { Tmux } from "../tmux/Tmux.js"
import { TmuxLive } from "../tmux/TmuxLive.js"
import { Audit } from "./Audit.js"
import { Ownership } from "./Ownership.js"
import { Policy } from "./Policy.js"

/** What ServerLive provides: what tool handlers need, plus the safety tier and the audit. */
export type LiveServices = Tmux | TmuxMcpConfig | SocketResolver | InvocationContext | Ownership | Policy | Audit

export interface ServerLiveOptions<Extra> {
  /** The transport; default TmuxLive (socket or exec, as the configuration says). `Extra` is what it adds (a fake's state). */
  readonly tmux?: Layer.Layer<Tmux | Extra, never, TmuxMcpConfig>
  /** Default Audit.layer (one JSON line per call on stderr). */
  readonly audit?: Layer.Layer<Audit>
  /**
   * The remote hosts of the hosts file; default ConnectionsLive (one ssh master per host, and
   * nothing without a hosts file). A test over a fake transport gives fixed views.
   */
  readonly remoteHosts?: Layer.Layer<RemoteHosts, never, TmuxMcpConfig>
}

export const ServerLive = {
  layer: <Extra = never>(config: TmuxMcpConfigShape, options: ServerLiveOptions<Extra> = {}): Layer.Layer<LiveServices | Extra> =>
    Layer.mergeAll(Ownership.layer, SocketResolver.layer, InvocationContext.layer, Policy.layer, options.audit ?? Audit.layer).pipe(
      Layer.provideMerge(options.tmux ?? (TmuxLive.layer as Layer.Layer<Tmux | Extra, never, TmuxMcpConfig>)),
      // Below Tmux (its forwards) and released after everything above (their remote sessions go first).
      Layer.provideMerge(options.remoteHosts ?? ConnectionsLive),
      Layer.provideMerge(TmuxMcpConfig.layer(config))
    )
}
