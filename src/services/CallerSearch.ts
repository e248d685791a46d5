/**
 * The caller found in this process's ancestors, once at start-up, when the client passed no `TMUX`
 * (many start stdio servers with a reduced environment): an ancestor's environment names the
 * server (context/CallerProcessTree.ts), and the live server there confirms the pane, which is the
 * one whose `pane_pid` is our nearest ancestor. The ancestor's `TMUX_PANE` is only a claim: when it
 * names another pane, the pane matched by pid wins; when no pane of the server runs one of our
 * ancestors, nothing is adopted. Nothing is started; a failure leaves the configuration as it was.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { join } from "node:path"
import { liveProcReader, type ProcReader, searchProcessTree, type TreeCaller } from "../context/CallerProcessTree.js"
import { realPathOrSelf } from "../context/RealPath.js"
import { makeSocketResolver } from "../context/SocketResolver.js"
import type { TmuxMcpConfigShape } from "../context/TmuxMcpConfig.js"
import * as Format from "../tmux/Format.js"
import { decode, query } from "../tmux/Query.js"
import type { Tmux } from "../tmux/Tmux.js"

/** The server's panes and the processes they run, with the server's own pid. */
const panePidRecord = Format.record("ppd", {
  server_pid: Format.int("pid"),
  pane_id: Format.string("pane_id"),
  pane_pid: Format.nullableInt("pane_pid")
})

/** One glance at a server that should answer at once: start-up does not wait longer for it. */
const CONFIRM_TIMEOUT = Duration.seconds(2)

/** Where the search starts: this process. */
export interface SearchOrigin {
  readonly pid: number
  readonly ppid: number
}

/**
 * The configuration with the caller an ancestor names, confirmed by its server, when the
 * environment had no `TMUX` and the search is on (LIBTMUX_MCP_PROCESS_TREE); else as given.
 * `tmux` is built only when an ancestor names a server (building and releasing a live layer costs
 * more than the walk: about 10 ms against under 1 ms).
 */
export const withCallerFromProcessTree = (
  config: TmuxMcpConfigShape,
  tmux: Layer.Layer<Tmux>,
  reader: ProcReader = liveProcReader,
  origin: SearchOrigin = { pid: process.pid, ppid: process.ppid }
): Effect.Effect<TmuxMcpConfigShape> =>
  Effect.gen(function*() {
    if (config.callerTmux !== undefined || config.processTree === false) return config
    const search = searchProcessTree(origin, config.uid, reader)
    if (search.found === undefined) return config
    const found = search.found
    const socket = makeSocketResolver(config).fromPath(found.tmux.socketPath, "caller (process tree)")
    const rows = yield* query(socket, (marks) => [["list-panes", "-a", "-F", panePidRecord.format(marks)]], {
      oneOff: true,
      timeout: CONFIRM_TIMEOUT
    }).pipe(Effect.flatMap((output) => decode(panePidRecord, output)), Effect.option, Effect.provide(tmux))
    if (rows._tag === "None") return config
    // Our nearest ancestor that a pane runs: a server restarted since the ancestor's TMUX is not its server.
    const pane = search.ancestors
      .map((pid) => rows.value.find((row) => row.pane_pid === pid && row.server_pid === found.tmux.serverPid))
      .find((row) => row !== undefined)
    if (pane === undefined) return config
    return adopt(config, found, pane.pane_id)
  })

const adopt = (config: TmuxMcpConfigShape, found: TreeCaller, paneId: string): TmuxMcpConfigShape => {
  const { serverPid, sessionIndex, socketPath } = found.tmux
  // The ancestor's TMUX_TMPDIR only when ours is unset and its socket lies in it: socket names then
  // resolve (and a tmux we spawn looks) where the caller's tmux does.
  const tmpdir = found.tmuxTmpdir
  const adoptTmpdir = config.tmuxEnvironment.TMUX_TMPDIR === undefined && tmpdir !== undefined &&
    realPathOrSelf(join(socketPath, "..")) === join(realPathOrSelf(tmpdir), `tmux-${config.uid}`)
  return {
    ...config,
    callerTmux: `${socketPath},${serverPid},${sessionIndex}`,
    callerPane: paneId,
    callerSource: "process_tree",
    ...(adoptTmpdir ? { tmuxTmpdir: tmpdir, tmuxEnvironment: { ...config.tmuxEnvironment, TMUX_TMPDIR: tmpdir } } : {})
  }
}
