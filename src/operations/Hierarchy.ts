/**
 * Reading the session / window / pane tree. Each operation is one tmux round trip whatever the
 * number of objects: a `;`-joined command list returns the server identity, the rows, and (for
 * panes) the clients, which tell who is watching.
 */
import * as Effect from "effect/Effect"
import { byNumericId } from "../domain/Ids.js"
import { type Failed, NotFound, type TmuxError } from "../domain/Errors.js"
import type { Pane, PaneDetail, ServerIdentity, Session, Window } from "../domain/Model.js"
import { InvocationContext } from "../services/InvocationContext.js"
import type { ResolvedSocket } from "../services/SocketResolver.js"
import type * as Format from "../tmux/Format.js"
import { clientRecord, paneRecord, placementRecord, sessionRecord, windowRecord } from "../tmux/Records.js"
import type { Tmux, TmuxCommand } from "../tmux/Tmux.js"
import { decode, decodeServerIdentity, type QueryTarget, queryTree, serverIdentityCommand } from "./Query.js"

export interface Listing<A> {
  readonly server: ServerIdentity
  readonly items: ReadonlyArray<A>
}

/** Which part of the tree to list. Absent ids mean the whole server. */
export interface Scope {
  readonly session_id?: string | undefined
  readonly window_id?: string | undefined
}

/** tmux's targets accept ids verbatim ($N, @N, %N): no name matching, no prefix surprises. */
const scopeFlags = (scope: Scope, sessionWide: ReadonlyArray<string>): ReadonlyArray<string> =>
  scope.window_id !== undefined
    ? ["-t", scope.window_id]
    : scope.session_id !== undefined
      ? [...sessionWide, "-t", scope.session_id]
      : ["-a"]

const scopeTarget = (scope: Scope): QueryTarget | undefined =>
  scope.window_id !== undefined
    ? { kind: "window", id: scope.window_id }
    : scope.session_id !== undefined
      ? { kind: "session", id: scope.session_id }
      : undefined

/** Keeps the first item of each key, in order. */
export const dedupeBy = <A>(items: ReadonlyArray<A>, key: (item: A) => string): Array<A> => {
  const seen = new Set<string>()
  return items.filter((item) => {
    const k = key(item)
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

/** Lists the sessions, with the clients that `decodeSessions` needs to count attachments. */
export const sessionsCommands = (marks: Format.Marks): ReadonlyArray<TmuxCommand> => [
  ["list-sessions", "-F", sessionRecord.format(marks)],
  clientsCommand(marks)
]

/**
 * A control-mode client that takes no pane output (ours, attached with `no-output`) watches
 * nothing; it is left out of attachment counts so they read as they would without it.
 */
const isInvisibleClient = (flags: string): boolean => {
  const list = flags.split(",")
  return list.includes("control-mode") && list.includes("no-output")
}

/** Session rows from `sessionsCommands` output, in session-id order, attachment counts corrected. */
export const decodeSessions = (output: Format.ParsedOutput): Effect.Effect<Array<Session>, Failed> =>
  Effect.gen(function* () {
    const invisible = (yield* decode(clientRecord, output)).filter((client) => isInvisibleClient(client.flags))
    const rows = yield* decode(sessionRecord, output)
    return rows
      .map(
        (row): Session => ({
          ...row,
          session_attached: Math.max(
            0,
            row.session_attached - invisible.filter((client) => client.session_id === row.session_id).length
          )
        })
      )
      .sort(byNumericId("session_id"))
  })

export const listSessions = (socket: ResolvedSocket): Effect.Effect<Listing<Session>, TmuxError, Tmux> =>
  Effect.gen(function* () {
    // queryTree: list-clients answers "no current target" on a server without sessions.
    const output = yield* queryTree(socket, (m) => [serverIdentityCommand(m), ...sessionsCommands(m)])
    const server = yield* decodeServerIdentity(output)
    return { server, items: yield* decodeSessions(output) }
  })

/** Windows, in window-id order. A window linked into several sessions appears once per session. */
export const listWindows = (
  socket: ResolvedSocket,
  scope: Pick<Scope, "session_id"> = {}
): Effect.Effect<Listing<Window>, TmuxError, Tmux> =>
  Effect.gen(function* () {
    const output = yield* queryTree(
      socket,
      (m) => [serverIdentityCommand(m), ["list-windows", ...scopeFlags(scope, []), "-F", windowRecord.format(m)]],
      scopeTarget(scope)
    )
    const server = yield* decodeServerIdentity(output)
    const rows = (yield* decode(windowRecord, output)) as Array<Window>
    return {
      server,
      items: rows.sort((a, b) => byNumericId("window_id")(a, b) || byNumericId("session_id")(a, b))
    }
  })

/** Lists the clients, to tell which panes a person is watching. */
export const clientsCommand = (marks: Format.Marks): TmuxCommand => ["list-clients", "-F", clientRecord.format(marks)]

/** Turns pane rows plus the client list into panes that know whether they are the caller or watched. */
export const toPanes = (
  socket: ResolvedSocket,
  server: ServerIdentity,
  output: Format.ParsedOutput
): Effect.Effect<Array<Pane>, TmuxError, InvocationContext> =>
  Effect.gen(function* () {
    const context = yield* InvocationContext
    const rows = yield* decode(paneRecord, output)
    // Control-mode clients are programs (ours included), not people.
    const people = (yield* decode(clientRecord, output)).filter((client) => !client.flags.includes("control-mode"))
    const panes = rows.map(({ window_zoomed, ...row }): Pane => ({
      ...row,
      is_caller: context.isCallerPane(socket, server.pid, row.pane_id),
      // A person sees every pane of their current window, or only the active one when it is zoomed.
      is_attended: people.some((client) => client.window_id === row.window_id && (!window_zoomed || row.active))
    }))
    return dedupeBy(panes, (pane) => pane.pane_id).sort(byNumericId("pane_id"))
  })

/** Panes in pane-id order; a pane of a linked window is listed once (its first session). */
export const listPanes = (
  socket: ResolvedSocket,
  scope: Scope = {}
): Effect.Effect<Listing<Pane>, TmuxError, Tmux | InvocationContext> =>
  Effect.gen(function* () {
    const output = yield* queryTree(
      socket,
      (m) => [serverIdentityCommand(m), ["list-panes", ...scopeFlags(scope, ["-s"]), "-F", paneRecord.format(m)], clientsCommand(m)],
      scopeTarget(scope)
    )
    const server = yield* decodeServerIdentity(output)
    return { server, items: yield* toPanes(socket, server, output) }
  })

/** At most this many placements are returned per pane (a window is rarely linked more often). */
export const MAX_PLACEMENTS = 32

/** Lists every window link, to compute placements; put it in the same command list as the pane rows. */
export const placementsCommand = (marks: Format.Marks): TmuxCommand => [
  "list-windows",
  "-a",
  "-F",
  placementRecord.format(marks)
]

/**
 * Panes with their placements, from one invocation's output that holds pane rows (from list-panes
 * or a `-P -F` spawn), the clients and the placement list.
 */
export const toPaneDetails = (
  socket: ResolvedSocket,
  server: ServerIdentity,
  output: Format.ParsedOutput
): Effect.Effect<Array<PaneDetail>, TmuxError, InvocationContext> =>
  Effect.gen(function* () {
    const panes = yield* toPanes(socket, server, output)
    const links = yield* decode(placementRecord, output)
    return panes.map((pane) => {
      const placements = links
        .filter((link) => link.window_id === pane.window_id)
        .map(({ session_id, session_name, window_index }) => ({ session_id, session_name, window_index }))
        .sort((a, b) => byNumericId("session_id")(a, b) || a.window_index - b.window_index)
      return {
        ...pane,
        placements: placements.slice(0, MAX_PLACEMENTS),
        placements_complete: placements.length <= MAX_PLACEMENTS
      }
    })
  })

/** One pane with its placements, in one round trip. */
export const getPaneDetail = (
  socket: ResolvedSocket,
  paneId: string
): Effect.Effect<PaneDetail, TmuxError, Tmux | InvocationContext> =>
  Effect.gen(function* () {
    const output = yield* queryTree(
      socket,
      (m) => [
        serverIdentityCommand(m),
        ["list-panes", "-t", paneId, "-F", paneRecord.format(m)],
        clientsCommand(m),
        placementsCommand(m)
      ],
      { kind: "pane", id: paneId }
    )
    const server = yield* decodeServerIdentity(output)
    const found = (yield* toPaneDetails(socket, server, output)).find((pane) => pane.pane_id === paneId)
    if (found === undefined) return yield* Effect.fail(new NotFound({ kind: "pane", target: paneId, socket: socket.label }))
    return found
  })

export type SessionTarget = { readonly session_id: string } | { readonly session_name: string }

/** One session by id or exact name (tmux's own `-t name` would also match prefixes). */
export const getSession = (
  socket: ResolvedSocket,
  target: SessionTarget
): Effect.Effect<Session, TmuxError, Tmux> =>
  Effect.flatMap(listSessions(socket), ({ items }) => {
    const found = items.find((session) =>
      "session_id" in target ? session.session_id === target.session_id : session.session_name === target.session_name
    )
    return found !== undefined
      ? Effect.succeed(found)
      : Effect.fail(
          new NotFound({
            kind: "session",
            target: "session_id" in target ? target.session_id : target.session_name,
            socket: socket.label
          })
        )
  })

export const getWindow = (socket: ResolvedSocket, windowId: string): Effect.Effect<Window, TmuxError, Tmux> =>
  Effect.gen(function* () {
    // `list-windows -t @N` lists the windows of a session holding @N and fails if there is none.
    const output = yield* queryTree(socket, (m) => [["list-windows", "-t", windowId, "-F", windowRecord.format(m)]], {
      kind: "window",
      id: windowId
    })
    const found = (yield* decode(windowRecord, output)).find((window) => window.window_id === windowId)
    if (found === undefined) return yield* Effect.fail(new NotFound({ kind: "window", target: windowId, socket: socket.label }))
    return found as Window
  })

export const getPane = (
  socket: ResolvedSocket,
  paneId: string
): Effect.Effect<Pane, TmuxError, Tmux | InvocationContext> =>
  Effect.gen(function* () {
    // `display-message -t` quietly falls back to another target when the pane is gone, so the
    // lookup uses `list-panes -t`, which fails on a missing pane.
    const output = yield* queryTree(
      socket,
      (m) => [serverIdentityCommand(m), ["list-panes", "-t", paneId, "-F", paneRecord.format(m)], clientsCommand(m)],
      { kind: "pane", id: paneId }
    )
    const server = yield* decodeServerIdentity(output)
    const found = (yield* toPanes(socket, server, output)).find((pane) => pane.pane_id === paneId)
    if (found === undefined) return yield* Effect.fail(new NotFound({ kind: "pane", target: paneId, socket: socket.label }))
    return found
  })
