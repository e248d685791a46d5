/**
 * Reading the session / window / pane tree. Each operation is one tmux round trip whatever the
 * number of objects: a `;`-joined command list returns the server identity, the rows, and (for
 * panes) the clients, which tell who is watching.
 */
import * as Effect from "effect/Effect"
import { InvocationContext } from "../../context/InvocationContext.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { type Failed, type InvalidInput, NotFound, type TmuxError } from "../../domain/Errors.js"
import { byNumericId } from "../../domain/Ids.js"
import { Pane, type PaneDetail, type ServerIdentity, Session, Window } from "../../domain/Model.js"
import { ifFormat } from "../../tmux/ControlProtocol.js"
import type * as Format from "../../tmux/Format.js"
import { decode, decodeServerIdentity, query, type QueryTarget, queryTree, serverIdentityCommand } from "../../tmux/Query.js"
import { clientRecord, paneIdsRecord, paneRecord, placementRecord, serverRecord, windowRecord } from "../../tmux/Records.js"
import type { Tmux, TmuxCommand } from "../../tmux/Tmux.js"
import {
  needsPlacements,
  PANE_FIELDS,
  PANE_KEY,
  paneCodec,
  type PaneField,
  project,
  type Projected,
  SESSION_FIELDS,
  SESSION_KEY,
  sessionCodec,
  type SessionField,
  WINDOW_FIELDS,
  WINDOW_KEY,
  windowCodec,
  type WindowField,
  withKey
} from "./Fields.js"
import { type ItemFilter, selectItems, textFields, withFilterFields } from "./Filters.js"
import { type Beside, decodeLayout, layoutCommand, layoutRects, panesBeside } from "./Neighbours.js"
import { hasNoSessionYet, rereadWhileStarting } from "./PaneStart.js"
import { linksByWindow, placementsCommand, placementsOf } from "./Placements.js"

/** A list and the server that answered it, read in the same round trip. */
export interface Listing<A> {
  readonly server: ServerIdentity
  readonly items: ReadonlyArray<A>
}

/** Which part of the tree to list. Absent ids mean the whole server. */
export interface TreeScope {
  readonly session_id?: string | undefined
  readonly window_id?: string | undefined
}

/** The object a scope names, if any: tmux's targets accept ids verbatim ($N, @N), no name matching. */
const scopeTarget = (scope: TreeScope): QueryTarget | undefined =>
  scope.window_id !== undefined
    ? { kind: "window", id: scope.window_id }
    : scope.session_id !== undefined
    ? { kind: "session", id: scope.session_id }
    : undefined

/**
 * Runs a command only when the server has a session (`#{S:1}` is then not empty). tmux 3.3a answers
 * `list-windows -a`, `list-panes -a` and `list-clients` with "no current target" on a server without
 * sessions, which would fail the whole command list; skipped, they print nothing, the truth there.
 * `if-shell` parses its command as a command line (not argv): `ifFormat` quotes it.
 */
export const whenSessionsExist = (command: TmuxCommand): TmuxCommand => ifFormat("#{S:1}", [command])

/** Every window link (a window once per session holding it), on any server. */
export const allWindowsCommand = <F extends Format.Fields>(codec: Format.RecordCodec<F>, marks: Format.Marks): TmuxCommand =>
  whenSessionsExist(["list-windows", "-a", "-F", codec.format(marks)])

/**
 * Every pane of every window link, on any server. (`list-panes -a` expands a pane record about half
 * again as fast as the `#{S:#{W:#{P:…}}}` loops: 30 vs 44 ms for 500 panes.)
 */
export const allPanesCommand = <F extends Format.Fields>(codec: Format.RecordCodec<F>, marks: Format.Marks): TmuxCommand =>
  whenSessionsExist(["list-panes", "-a", "-F", codec.format(marks)])

/**
 * Every pane of every window link through tmux's format loops, with `after` printed once at the end
 * in the same command, so a reader right after a kill gets all of it or nothing. The records follow
 * each other without a newline, so a record must end with a field tmux prints itself (an id or a
 * flag): `parseOutput` takes one trailing newline off each record.
 */
export const eachPaneCommand = <F extends Format.Fields>(
  codec: Format.RecordCodec<F>,
  marks: Format.Marks,
  after = ""
): TmuxCommand => ["display-message", "-p", `#{S:#{W:#{P:${codec.format(marks)}}}}${after}`]

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

/** Lists the sessions (the fields asked for), with the clients that `decodeSessions` needs to count attachments. */
export const sessionsCommands = (marks: Format.Marks, fields: ReadonlyArray<SessionField> = SESSION_FIELDS): ReadonlyArray<TmuxCommand> => [
  ["list-sessions", "-F", sessionCodec(fields).format(marks)],
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

/**
 * Session rows from `sessionsCommands` output (with the same fields), in session-id order,
 * attachment counts corrected.
 */
export const decodeSessions = (
  output: Format.ParsedOutput,
  fields: ReadonlyArray<SessionField> = SESSION_FIELDS
): Effect.Effect<Array<Session>, Failed> =>
  Effect.gen(function*() {
    const invisible = (yield* decode(clientRecord, output)).filter((client) => isInvisibleClient(client.flags))
    const rows = yield* decode(sessionCodec(fields), output)
    return rows
      .map(
        (row): Session =>
          row.session_attached === undefined ? row : {
            ...row,
            session_attached: Math.max(
              0,
              row.session_attached - invisible.filter((client) => client.session_id === row.session_id).length
            )
          }
      )
      .sort(byNumericId("session_id"))
  })

/**
 * Every session of the server that passes the filter, in id order, with the fields asked for
 * (`session_id` always; default all).
 */
export const listSessionFields = Effect.fn("Hierarchy.listSessions")((
  socket: ResolvedSocket,
  fields: ReadonlyArray<SessionField>,
  filter: ItemFilter<SessionField> = {}
): Effect.Effect<Listing<Projected<Session>>, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    const read = withFilterFields(fields, filter)
    const output = yield* query(socket, (m) => [serverIdentityCommand(m), ...sessionsCommands(m, read)])
    const server = yield* decodeServerIdentity(output)
    const returned = withKey(SESSION_FIELDS, SESSION_KEY, fields)
    const sessions = (yield* decodeSessions(output, read)).map((session) => project(session, withKey(SESSION_FIELDS, SESSION_KEY, read)))
    return { server, items: yield* selectItems(sessions, filter, SESSION_TEXT, returned) }
  })
)

const SESSION_TEXT = textFields(Session.fields)
const WINDOW_TEXT = textFields(Window.fields)
const PANE_TEXT = textFields(Pane.fields)

/** Every session of the server, in id order. */
export const listSessions = (socket: ResolvedSocket): Effect.Effect<Listing<Session>, TmuxError, Tmux> =>
  listSessionFields(socket, SESSION_FIELDS) as Effect.Effect<Listing<Session>, TmuxError, Tmux>

/**
 * Windows, in window-id order, with the fields asked for (`window_id` and `session_id` always). A
 * window linked into several sessions appears once per session.
 */
export const listWindowFields = Effect.fn("Hierarchy.listWindows")((
  socket: ResolvedSocket,
  scope: Pick<TreeScope, "session_id">,
  fields: ReadonlyArray<WindowField>,
  filter: ItemFilter<WindowField> = {}
): Effect.Effect<Listing<Projected<Window>>, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    const target = scopeTarget(scope)
    const read = withFilterFields(fields, filter)
    const codec = windowCodec(read)
    const output = yield* target === undefined
      ? query(socket, (m) => [serverIdentityCommand(m), allWindowsCommand(codec, m)])
      : queryTree(socket, (m) => [serverIdentityCommand(m), ["list-windows", "-t", target.id, "-F", codec.format(m)]], target)
    const server = yield* decodeServerIdentity(output)
    const rows = (yield* decode(codec, output)) as Array<Window>
    const returned = withKey(WINDOW_FIELDS, WINDOW_KEY, fields)
    const windows = rows
      .sort((a, b) => byNumericId("window_id")(a, b) || byNumericId("session_id")(a, b))
      .map((window) => project(window, withKey(WINDOW_FIELDS, WINDOW_KEY, read)))
    return { server, items: yield* selectItems(windows, filter, WINDOW_TEXT, returned) }
  })
)

/** Windows, in window-id order. A window linked into several sessions appears once per session. */
export const listWindows = (
  socket: ResolvedSocket,
  scope: Pick<TreeScope, "session_id"> = {}
): Effect.Effect<Listing<Window>, TmuxError, Tmux> =>
  listWindowFields(socket, scope, WINDOW_FIELDS) as Effect.Effect<Listing<Window>, TmuxError, Tmux>

/** Lists the clients, to tell which panes a person is watching (none can be without a session). */
export const clientsCommand = (marks: Format.Marks): TmuxCommand => whenSessionsExist(["list-clients", "-F", clientRecord.format(marks)])

/**
 * Turns pane rows (of `paneCodec(fields)`) plus the client list (and, for placements, the window
 * links of `placementsCommand`) into panes with those fields, that know whether they are the
 * caller or watched, in pane-id order.
 */
export const toPaneFields = (
  socket: ResolvedSocket,
  server: ServerIdentity,
  output: Format.ParsedOutput,
  fields: ReadonlyArray<PaneField>
): Effect.Effect<Array<Projected<PaneDetail>>, TmuxError, InvocationContext> =>
  Effect.gen(function*() {
    const context = yield* InvocationContext
    const rows = yield* decode(paneCodec(fields), output)
    // Control-mode clients are programs (ours included), not people.
    const people = (yield* decode(clientRecord, output)).filter((client) => !client.flags.includes("control-mode"))
    const watchedWindows = new Set(people.map((client) => client.window_id))
    const returned = withKey(PANE_FIELDS, PANE_KEY, fields)
    const links = needsPlacements(returned) ? linksByWindow(yield* decode(placementRecord, output)) : undefined
    // Each pane is built once, in its final shape: at 500 panes, spreading and projecting every row cost ~3 ms a call.
    const seen = new Set<string>()
    const panes: Array<Record<string, unknown>> = []
    for (const row of rows) {
      if (seen.has(row.pane_id)) continue
      seen.add(row.pane_id)
      const pane: Record<string, unknown> = {}
      // The row has the pane's own link: paneCodec asks for it with the placements.
      const placed = links === undefined ? undefined : placementsOf(row as Parameters<typeof placementsOf>[0], links)
      for (const field of returned) {
        if (field === "is_caller") pane.is_caller = context.isCallerPane(socket, server.pid, row.pane_id)
        // A person sees every pane of their current window, or only the active one when it is zoomed.
        else if (field === "is_attended") pane.is_attended = watchedWindows.has(row.window_id) && (!row.window_zoomed || row.active)
        else if (field === "placements" || field === "placements_complete") pane[field] = placed![field]
        else if (field in row) pane[field] = row[field]
      }
      panes.push(pane)
    }
    return (panes as Array<Projected<PaneDetail>>).sort(
      byNumericId("pane_id") as (a: Projected<PaneDetail>, b: Projected<PaneDetail>) => number
    )
  })

/** Turns pane rows plus the client list into panes that know whether they are the caller or watched. */
export const toPanes = (
  socket: ResolvedSocket,
  server: ServerIdentity,
  output: Format.ParsedOutput
): Effect.Effect<Array<Pane>, TmuxError, InvocationContext> =>
  toPaneFields(socket, server, output, PANE_FIELDS) as Effect.Effect<Array<Pane>, TmuxError, InvocationContext>

/** A pane filter: conditions on the fields, and optionally only the panes beside a pane. */
export interface PaneFilter extends ItemFilter<PaneField> {
  /** Lists the panes beside this one in its window, most shared border first, instead of a scope. */
  readonly beside?: Beside | undefined
}

/**
 * Panes that pass the filter, in pane-id order (beside a pane: most shared border first), with the
 * fields asked for (`pane_id` always); a pane of a linked window is listed once (its first
 * session). tmux is asked only for what those fields and the filter need.
 */
export const listPaneFields = Effect.fn("Hierarchy.listPanes")((
  socket: ResolvedSocket,
  scope: TreeScope,
  fields: ReadonlyArray<PaneField>,
  filter: PaneFilter = {}
): Effect.Effect<Listing<Projected<PaneDetail>>, TmuxError | InvalidInput, Tmux | InvocationContext> =>
  Effect.gen(function*() {
    const read = withFilterFields(fields, filter)
    const codec = paneCodec(read)
    // The window links, only for the placements: in the same command list, after the pane rows.
    const links = (m: Format.Marks): Array<TmuxCommand> => needsPlacements(read) ? [whenSessionsExist(placementsCommand(m))] : []
    const beside = filter.beside
    if (beside !== undefined) {
      // `list-panes -t %N` lists the pane's window and fails when the pane is missing, before the layout is read.
      const output = yield* queryTree(
        socket,
        (m) => [
          serverIdentityCommand(m),
          ["list-panes", "-t", beside.pane_id, "-F", codec.format(m)],
          layoutCommand(beside.pane_id, m),
          clientsCommand(m),
          ...links(m)
        ],
        { kind: "pane", id: beside.pane_id }
      )
      const server = yield* decodeServerIdentity(output)
      const panes = new Map((yield* toPaneFields(socket, server, output, read)).map((pane) => [pane.pane_id, pane]))
      const besides = panesBeside(layoutRects(yield* decodeLayout(output)), beside).flatMap((id) => panes.get(id) ?? [])
      return { server, items: yield* selectItems(besides, filter, PANE_TEXT, withKey(PANE_FIELDS, PANE_KEY, fields)) }
    }
    const target = scopeTarget(scope)
    const output = yield* target === undefined
      ? query(socket, (m) => [serverIdentityCommand(m), allPanesCommand(codec, m), clientsCommand(m), ...links(m)])
      : queryTree(
        socket,
        (m) => [
          serverIdentityCommand(m),
          // `list-panes -s -t $N` covers a session, `-t @N` one window.
          ["list-panes", ...(target.kind === "session" ? ["-s"] : []), "-t", target.id, "-F", codec.format(m)],
          clientsCommand(m),
          ...links(m)
        ],
        target
      )
    const server = yield* decodeServerIdentity(output)
    return {
      server,
      items: yield* selectItems(
        yield* toPaneFields(socket, server, output, read),
        filter,
        PANE_TEXT,
        withKey(PANE_FIELDS, PANE_KEY, fields)
      )
    }
  })
)

/** Panes in pane-id order; a pane of a linked window is listed once (its first session). */
export const listPanes = (
  socket: ResolvedSocket,
  scope: TreeScope = {}
): Effect.Effect<Listing<Pane>, TmuxError, Tmux | InvocationContext> =>
  listPaneFields(socket, scope, PANE_FIELDS) as Effect.Effect<Listing<Pane>, TmuxError, Tmux | InvocationContext>

/**
 * Panes with their placements, from one invocation's output that holds pane rows (from list-panes
 * or a `-P -F` spawn), the clients and `placementsCommand`'s window links.
 */
export const toPaneDetails = (
  socket: ResolvedSocket,
  server: ServerIdentity,
  output: Format.ParsedOutput
): Effect.Effect<Array<PaneDetail>, TmuxError, InvocationContext> =>
  Effect.gen(function*() {
    const panes = yield* toPanes(socket, server, output)
    const links = linksByWindow(yield* decode(placementRecord, output))
    return panes.map((pane) => ({ ...pane, ...placementsOf(pane, links) }))
  })

/**
 * A session by id, by exact name, or as the one holding a pane (when the pane's window is linked
 * into several sessions, the one tmux picks for the pane's id).
 */
export type SessionTarget =
  | { readonly session_id: string }
  | { readonly session_name: string }
  | { readonly pane_id: string }

/**
 * A pane's session and window as tmux resolves its id for `-t`; fails with NotFound when the pane
 * does not exist. Put it in the same command list as what needs them.
 */
const paneLookupCommand = (paneId: string, marks: Format.Marks): TmuxCommand => [
  "list-panes",
  "-t",
  paneId,
  "-F",
  paneIdsRecord.format(marks)
]

/** The row `paneLookupCommand` printed for the pane (list-panes -t %N lists its whole window). */
const lookedUpPane = (socket: ResolvedSocket, paneId: string, output: Format.ParsedOutput) =>
  Effect.flatMap(decode(paneIdsRecord, output), (rows) => {
    const row = rows.find((r) => r.pane_id === paneId)
    return row === undefined ? Effect.fail(new NotFound({ kind: "pane", target: paneId, socket: socket.label })) : Effect.succeed(row)
  })

/**
 * One session, in one round trip: the session list (names are matched exactly here; tmux's own
 * `-t name` would also match prefixes), after the pane lookup when the target is a pane.
 */
export const getSession = Effect.fn("Hierarchy.getSession")((
  socket: ResolvedSocket,
  target: SessionTarget
): Effect.Effect<Session, TmuxError, Tmux> =>
  Effect.gen(function*() {
    const listing = (m: Format.Marks) => [serverIdentityCommand(m), ...sessionsCommands(m)]
    let wanted: { readonly session_id: string } | { readonly session_name: string }
    let output: Format.ParsedOutput
    if ("pane_id" in target) {
      output = yield* queryTree(socket, (m) => [paneLookupCommand(target.pane_id, m), ...listing(m)], { kind: "pane", id: target.pane_id })
      wanted = { session_id: (yield* lookedUpPane(socket, target.pane_id, output)).session_id }
    } else {
      output = yield* query(socket, listing)
      wanted = target
    }
    const found = (yield* decodeSessions(output)).find((session) =>
      "session_id" in wanted ? session.session_id === wanted.session_id : session.session_name === wanted.session_name
    )
    if (found !== undefined) return found
    return yield* Effect.fail(
      new NotFound({
        kind: "session",
        target: "session_id" in wanted ? wanted.session_id : wanted.session_name,
        socket: socket.label
      })
    )
  })
)

/** One window by id (`@N`); NotFound when no session holds it. */
export const getWindow = Effect.fn("Hierarchy.getWindow")((
  socket: ResolvedSocket,
  windowId: string
): Effect.Effect<Window, TmuxError, Tmux> =>
  Effect.gen(function*() {
    // `list-windows -t @N` lists the windows of a session holding @N and fails if there is none.
    const output = yield* queryTree(socket, (m) => [["list-windows", "-t", windowId, "-F", windowRecord.format(m)]], {
      kind: "window",
      id: windowId
    })
    const found = (yield* decode(windowRecord, output)).find((window) => window.window_id === windowId)
    if (found === undefined) return yield* Effect.fail(new NotFound({ kind: "window", target: windowId, socket: socket.label }))
    return found as Window
  })
)

/**
 * The window holding a pane, in one round trip: `list-windows -t %N` lists the windows of the
 * session tmux picks for the pane, the same session the lookup reports, so the row is the pane's
 * own window link.
 */
export const getPaneWindow = Effect.fn("Hierarchy.getPaneWindow")((
  socket: ResolvedSocket,
  paneId: string
): Effect.Effect<Window, TmuxError, Tmux> =>
  Effect.gen(function*() {
    const output = yield* queryTree(
      socket,
      (m) => [paneLookupCommand(paneId, m), ["list-windows", "-t", paneId, "-F", windowRecord.format(m)]],
      { kind: "pane", id: paneId }
    )
    const { window_id } = yield* lookedUpPane(socket, paneId, output)
    const found = (yield* decode(windowRecord, output)).find((window) => window.window_id === window_id)
    if (found === undefined) return yield* Effect.fail(new NotFound({ kind: "window", target: window_id, socket: socket.label }))
    return found as Window
  })
)

/**
 * One pane, with the server that answered and the whole output, so a caller can read more about the
 * pane in the same round trip (`extra` commands, run after the lookup: a missing pane stops the
 * list before them).
 */
export const lookupPane = (
  socket: ResolvedSocket,
  paneId: string,
  extra: (marks: Format.Marks) => ReadonlyArray<TmuxCommand> = () => []
): Effect.Effect<
  { readonly pane: Pane; readonly server: ServerIdentity; readonly output: Format.ParsedOutput },
  TmuxError,
  Tmux | InvocationContext
> =>
  Effect.gen(function*() {
    // `display-message -t` quietly falls back to another target when the pane is gone, so the
    // lookup uses `list-panes -t`, which fails on a missing pane; filtered to that pane, it prints
    // the server's identity with it (one command less). After it, the server has a session, so
    // list-clients needs no guard.
    const output = yield* queryTree(
      socket,
      (m) => [
        ["list-panes", "-t", paneId, "-f", `#{==:#{pane_id},${paneId}}`, "-F", serverRecord.format(m) + paneRecord.format(m)],
        ["list-clients", "-F", clientRecord.format(m)],
        ...extra(m)
      ],
      { kind: "pane", id: paneId }
    )
    const server = yield* decodeServerIdentity(output)
    const pane = (yield* toPanes(socket, server, output)).find((candidate) => candidate.pane_id === paneId)
    if (pane === undefined) return yield* Effect.fail(new NotFound({ kind: "pane", target: paneId, socket: socket.label }))
    return { pane, server, output }
  })

/**
 * lookupPane for a caller that reports the pane's directory: a pane made a moment ago whose
 * directory tmux cannot read yet (PaneStart) is looked up again until it can, so a read right
 * after a create does not answer an empty cwd.
 */
export const lookupStartedPane = (
  socket: ResolvedSocket,
  paneId: string,
  extra: (marks: Format.Marks) => ReadonlyArray<TmuxCommand> = () => []
) =>
  Effect.flatMap(
    lookupPane(socket, paneId, extra),
    (found) => rereadWhileStarting(found, ({ pane }) => hasNoSessionYet(pane), lookupPane(socket, paneId, extra))
  )

/** One pane by id (`%N`), with `is_caller` and `is_attended`; NotFound when it does not exist. */
export const getPane = Effect.fn("Hierarchy.getPane")((
  socket: ResolvedSocket,
  paneId: string
): Effect.Effect<Pane, TmuxError, Tmux | InvocationContext> => Effect.map(lookupStartedPane(socket, paneId), ({ pane }) => pane))

/**
 * lookupStartedPane with the pane's placements, read in the same invocation (`extra` after the
 * window links).
 */
export const lookupPaneDetail = (
  socket: ResolvedSocket,
  paneId: string,
  extra: (marks: Format.Marks) => ReadonlyArray<TmuxCommand> = () => []
) =>
  Effect.gen(function*() {
    // After the lookup, which fails on a missing pane, the server has a session: no guard needed.
    const found = yield* lookupStartedPane(socket, paneId, (m) => [placementsCommand(m), ...extra(m)])
    const links = linksByWindow(yield* decode(placementRecord, found.output))
    const pane: PaneDetail = { ...found.pane, ...placementsOf(found.pane, links) }
    return { ...found, pane }
  })

/** One pane (as getPane) with its placements, in one round trip. */
export const getPaneDetail = Effect.fn("Hierarchy.getPaneDetail")((
  socket: ResolvedSocket,
  paneId: string
): Effect.Effect<PaneDetail, TmuxError, Tmux | InvocationContext> => Effect.map(lookupPaneDetail(socket, paneId), ({ pane }) => pane))
