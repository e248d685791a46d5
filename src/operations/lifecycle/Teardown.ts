/**
 * Killing sessions, windows and panes by explicit id. Each kill is one tmux round trip that reads
 * the whole tree, kills, and reads the tree again, so the answer says exactly what went with the
 * object (windows whose last link was the session, sessions whose last window was the window, the
 * window of a last pane) and whether the server exits because nothing is left.
 *
 * Guards run first: nothing that holds the caller's own pane is killed, and a `generation` from
 * before a server restart is refused, since ids repeat on a new server.
 */
import * as Effect from "effect/Effect"
import type { InvocationContext } from "../../context/InvocationContext.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import type { Denied, TmuxError } from "../../domain/Errors.js"
import { byNumericId, idNumber } from "../../domain/Ids.js"
import type { ClosedSession, ClosedWindow, Teardown } from "../../domain/Model.js"
import * as Format from "../../tmux/Format.js"
import { decode, decodeServerIdentity, queryTree, serverIdentityCommand } from "../../tmux/Query.js"
import type { Tmux } from "../../tmux/Tmux.js"
import { refuseCallerPane, refuseCallerWithin } from "../hierarchy/Guards.js"
import { dedupeBy, eachPaneCommand } from "../hierarchy/Hierarchy.js"
import { ensureGeneration, type GenerationCheck } from "../servers/Servers.js"

/** What a kill operation kills. */
export type TeardownKind = "session" | "window" | "pane"

/** A generation seen earlier: the kill is refused (NotFound) if the server restarted since. */
export type TeardownOptions = GenerationCheck

/** At most this many sessions, windows or panes are listed per answer (the counts stay complete). */
const MAX_LISTED = 100

/** One pane of the tree before the kill, with the names to report. */
const beforeRecord = Format.record("pre", {
  session_id: Format.string("session_id"),
  session_name: Format.string("session_name"),
  window_id: Format.string("window_id"),
  window_name: Format.string("window_name"),
  pane_id: Format.string("pane_id")
})

/** One pane of the tree after the kill, with what tmux's exit rule needs. */
const afterRecord = Format.record("post", {
  session_id: Format.string("session_id"),
  session_attached: Format.int("session_attached"),
  window_id: Format.string("window_id"),
  pane_id: Format.string("pane_id")
})

/** The options that decide whether the server exits once the kill is done. */
const exitRecord = Format.record("exit", {
  exit_empty: Format.bool("exit-empty"),
  exit_unattached: Format.bool("exit-unattached")
})

const killCommand: Record<TeardownKind, string> = {
  session: "kill-session",
  window: "kill-window",
  pane: "kill-pane"
}

/** Kills one object by id and reports what went with it. The id is used verbatim as tmux's target. */
const teardown = (
  socket: ResolvedSocket,
  kind: TeardownKind,
  id: string,
  options: TeardownOptions
): Effect.Effect<Teardown, TmuxError | Denied, Tmux | InvocationContext> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    yield* kind === "pane" ? refuseCallerPane(socket, id, "kill pane") : refuseCallerWithin(socket, { kind, id }, "kill")

    const output = yield* queryTree(
      socket,
      (m) => [
        serverIdentityCommand(m),
        // Format loops, not `list-panes -a`: they answer on a server with no sessions left, so the
        // read after a kill of the last session cannot fail (a failure would hide that the kill happened).
        eachPaneCommand(beforeRecord, m),
        [killCommand[kind], "-t", id],
        eachPaneCommand(afterRecord, m, exitRecord.format(m))
      ],
      // tmux says "no current target" instead of "can't find" on a server without sessions.
      { kind, id }
    )
    const server = yield* decodeServerIdentity(output)
    const before = yield* decode(beforeRecord, output)
    const after = yield* decode(afterRecord, output)
    const exit = yield* Effect.fromResult(exitRecord.decodeFirst(output))

    const remainingSessions = dedupeBy(after, (row) => row.session_id)
    const remainingWindows = new Set(after.map((row) => row.window_id))
    const remainingPanes = new Set(after.map((row) => row.pane_id))

    const sessionsClosed: Array<ClosedSession> = dedupeBy(before, (row) => row.session_id)
      .filter((row) => !remainingSessions.some((s) => s.session_id === row.session_id))
      .map(({ session_id, session_name }) => ({ session_id, session_name }))
      .sort(byNumericId("session_id"))
    const windowsClosed: Array<ClosedWindow> = dedupeBy(before, (row) => row.window_id)
      .filter((row) => !remainingWindows.has(row.window_id))
      .map(({ window_id, window_name }) => ({ window_id, window_name }))
      .sort(byNumericId("window_id"))
    const panesClosed = [...new Set(before.map((row) => row.pane_id))]
      .filter((paneId) => !remainingPanes.has(paneId))
      .sort((a, b) => idNumber(a) - idNumber(b))
    const windowsKept: Array<ClosedWindow> = kind === "session"
      ? dedupeBy(
        before.filter((row) => row.session_id === id && remainingWindows.has(row.window_id)),
        (row) => row.window_id
      )
        .map(({ window_id, window_name }) => ({ window_id, window_name }))
        .sort(byNumericId("window_id"))
      : []

    const target = before.find((row) =>
      kind === "session" ? row.session_id === id : kind === "window" ? row.window_id === id : row.pane_id === id
    )
    const name = kind === "session" ? (target?.session_name ?? null) : kind === "window" ? (target?.window_name ?? null) : null
    const attachedClients = remainingSessions.reduce((sum, row) => sum + row.session_attached, 0)
    // tmux's own rule (server_loop): exit-empty off keeps the server; otherwise it exits when no
    // session is left, or with exit-unattached when no client is attached to any session.
    const serverExited = exit.exit_empty && (exit.exit_unattached ? attachedClients === 0 : remainingSessions.length === 0)

    return {
      killed: kind,
      id,
      name,
      sessions_closed: sessionsClosed.slice(0, MAX_LISTED),
      windows_closed: windowsClosed.slice(0, MAX_LISTED),
      pane_ids_closed: panesClosed.slice(0, MAX_LISTED),
      session_count: sessionsClosed.length,
      window_count: windowsClosed.length,
      pane_count: panesClosed.length,
      windows_kept: windowsKept.slice(0, MAX_LISTED),
      truncated: [sessionsClosed, windowsClosed, panesClosed, windowsKept].some((list) => list.length > MAX_LISTED),
      sessions_remaining: remainingSessions.length,
      server_exited: serverExited,
      generation: server.generation
    }
  })

/**
 * Kills a session by id: its windows close unless they are linked into another session too.
 * Refused when the session holds the caller's own pane (through any of its windows, linked ones
 * included, even though a window linked elsewhere would survive: the caller's session is never
 * killed from inside).
 */
export const killSession = Effect.fn("Teardown.killSession")((
  socket: ResolvedSocket,
  sessionId: string,
  options: TeardownOptions = {}
): Effect.Effect<Teardown, TmuxError | Denied, Tmux | InvocationContext> => teardown(socket, "session", sessionId, options))

/**
 * Kills a window by id, in every session it is linked into; a session whose only window it was
 * closes too. Refused when the window holds the caller's own pane.
 */
export const killWindow = Effect.fn("Teardown.killWindow")((
  socket: ResolvedSocket,
  windowId: string,
  options: TeardownOptions = {}
): Effect.Effect<Teardown, TmuxError | Denied, Tmux | InvocationContext> => teardown(socket, "window", windowId, options))

/**
 * Kills a pane by id; its window closes when it was the last pane (and so on up). Refused for the
 * caller's own pane.
 */
export const killPane = Effect.fn("Teardown.killPane")((
  socket: ResolvedSocket,
  paneId: string,
  options: TeardownOptions = {}
): Effect.Effect<Teardown, TmuxError | Denied, Tmux | InvocationContext> => teardown(socket, "pane", paneId, options))
