/**
 * `$TMUX` is `<socket_path>,<server_pid>,<session_index>`. Socket paths may contain commas, so it
 * is parsed from the right.
 */
import * as Option from "effect/Option"

export interface TmuxVariable {
  readonly socketPath: string
  readonly serverPid: number
  /** The session index written when the pane was spawned; it goes stale when panes move. */
  readonly sessionIndex: string
}

export const parseTmuxVariable = (value: string): Option.Option<TmuxVariable> => {
  const last = value.lastIndexOf(",")
  if (last <= 0) return Option.none()
  const middle = value.lastIndexOf(",", last - 1)
  if (middle <= 0) return Option.none()
  const socketPath = value.slice(0, middle)
  const serverPid = Number(value.slice(middle + 1, last))
  if (!socketPath.startsWith("/") || !Number.isInteger(serverPid) || serverPid <= 0) return Option.none()
  return Option.some({ socketPath, serverPid, sessionIndex: value.slice(last + 1) })
}
