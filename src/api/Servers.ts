/**
 * tmux servers as a whole: probe one socket, describe it, find the live servers of this user,
 * start one (the only operation that may) and kill one (never the caller's own); with a hosts
 * file, the servers of every host.
 */
export { discoverHosts, type HostsDiscovery } from "../operations/servers/HostSurvey.js"
export {
  discoverServers,
  killServer,
  listServers,
  probeServer,
  type ServerDiscovery,
  serverInfo,
  startServer,
  type StartServerResult
} from "../operations/servers/Servers.js"
