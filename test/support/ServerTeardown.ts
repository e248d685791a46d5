/**
 * Ends a test's tmux servers and everything they started, before the test's directory is removed.
 * The servers are found by the sockets they hold (at a socket's path, or inside a directory), so
 * any tmux version is ended, and one started by the product or through a wrapper too. They are
 * told to exit with SIGTERM (tmux exits as on kill-server: its panes are hung up), and their
 * processes are waited for: a process hung up may still write into the directory as it exits (a
 * shell's or a REPL's history), and rmSync lists a directory once, then fails on what appeared since.
 */
import { awaitEnded, descendantsOf, socketHoldersAt } from "./ProcessTree.js"

/** Ends the servers holding sockets at `places`, and their processes; answers the pids it could not end. */
export const endTmuxServers = (places: Iterable<string>): Array<number> => {
  // Never this process, whatever it holds: that would end the test run.
  const servers = [...new Set([...places].flatMap(socketHoldersAt))].filter((pid) => pid !== process.pid)
  const processes = [...new Set(servers.flatMap((pid) => [pid, ...descendantsOf(pid)]))]
  for (const pid of servers) {
    try {
      process.kill(pid, "SIGTERM")
    } catch {
      // Gone already.
    }
  }
  return awaitEnded(processes)
}
