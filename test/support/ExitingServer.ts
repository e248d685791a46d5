/**
 * A tmux server held exiting, for the kill-server races (issue 30 item 11). After kill-server a
 * tmux server closes every new connection at once ("server exited unexpectedly") until its last
 * client has gone. A client connection it accepted before the kill, held open here, keeps it in
 * that state for as long as the test likes: the race window is the same every run.
 */
import { connect } from "node:net"

/** What a tmux CLI run in the test's world answers. */
export type TmuxRun = (args: ReadonlyArray<string>) => { readonly status: number | null; readonly stderr: string }

export interface ExitingServer {
  /** Closes the held connection: the server then ends. */
  readonly release: () => void
}

/**
 * Kills the server at `socketPath` while holding a connection it accepted; resolves once a new
 * connection is refused the way an exiting server refuses it.
 */
export const killHoldingExiting = async (socketPath: string, tmux: TmuxRun): Promise<ExitingServer> => {
  const held = connect(socketPath)
  await new Promise<void>((resolve, reject) => {
    held.once("connect", resolve)
    held.once("error", reject)
  })
  held.on("error", () => undefined)
  // The server accepts connections in order: once a later client's command has run, it holds ours.
  const accepted = tmux(["display-message", "-p", "accepted"])
  if (accepted.status !== 0) throw new Error(`the server did not answer before the kill: ${accepted.stderr}`)
  tmux(["kill-server"])
  const refused = tmux(["display-message", "-p", "refused"])
  if (!refused.stderr.includes("server exited unexpectedly")) {
    held.destroy()
    throw new Error(`the killed server is not held exiting (tmux said: ${refused.stderr.trim() || `exit ${refused.status}`})`)
  }
  return { release: () => held.destroy() }
}
