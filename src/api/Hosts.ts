/**
 * Remote hosts reached over OpenSSH (the hosts file, LIBTMUX_MCP_HOSTS / --hosts): the
 * `Connections` service (one ssh master per host, one forward per remote socket) and its `layer`
 * (nothing without a hosts file in the configuration), `onHost` to run operations on a host, and
 * the hosts file's parser. Provide `layer` below the `Tmux` layer (ServerLive does).
 *
 *   Hierarchy.listPanes(...).pipe(Hosts.onHost("build"))
 */
import type * as Layer from "effect/Layer"
import type { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { ConnectionsLive } from "../tmux/Connections.js"

export { type HostsConfig, type HostSettings, LOCAL_HOST, parseHostsFile } from "../context/HostsConfig.js"
export { CurrentHost, isRemoteHost, onHost, RemoteHosts, type RemoteHostView } from "../context/RemoteHosts.js"
export { Connections, type ConnectionsShape, type LinkReport } from "../tmux/Connections.js"

/** `Connections` and `RemoteHosts` for the configuration's hosts file; empty without one (no ssh ever runs). */
export const layer: Layer.Layer<never, never, TmuxMcpConfig> = ConnectionsLive
