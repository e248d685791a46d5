/**
 * tmux servers as a whole: probe one socket, describe it, find the live servers of this user,
 * start one (the only operation that may) and kill one (never the caller's own).
 */
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
