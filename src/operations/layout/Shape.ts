/**
 * Reshaping existing objects: rename, select, lay out, resize, swap, move, retitle. Each change
 * and the read-back of what it changed share one `;`-joined command list (one round trip), so the
 * result is the object as tmux holds it right after the change. Objects are addressed by id only;
 * none of these picks a target by default.
 *
 * Names and titles are checked (`Names.ts`) and then literalized: tmux expands formats in
 * rename-session, rename-window and select-pane -T, so `#(cmd)` would otherwise run.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { InvocationContext } from "../../context/InvocationContext.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { InvalidInput, NotFound, type TmuxError } from "../../domain/Errors.js"
import { SessionId } from "../../domain/Ids.js"
import { NonNegativeInt, Pane, type Session, Window } from "../../domain/Model.js"
import * as Format from "../../tmux/Format.js"
import { literalizeFormat } from "../../tmux/Literal.js"
import { decode, decodeServerIdentity, type QueryTarget, queryTree, serverIdentityCommand } from "../../tmux/Query.js"
import { paneRecord, placementRecord, sessionIdRecord, windowRecord } from "../../tmux/Records.js"
import type { Tmux, TmuxCommand } from "../../tmux/Tmux.js"
import { clientsCommand, decodeSessions, sessionsCommands, toPanes } from "../hierarchy/Hierarchy.js"
import { ensureGeneration, type GenerationCheck } from "../servers/Servers.js"
import { checkName, storedExactly } from "./Names.js"

type Requirements = Tmux | InvocationContext

const notFound = (socket: ResolvedSocket, target: QueryTarget) =>
  Effect.fail(new NotFound({ kind: target.kind, target: target.id, socket: socket.label }))

/** Runs `change` and then reads `windowId`'s window back (as its session that tmux picks sees it). */
const changeWindow = (
  socket: ResolvedSocket,
  windowId: string,
  change: ReadonlyArray<TmuxCommand>
): Effect.Effect<Window, TmuxError, Tmux> =>
  Effect.gen(function*() {
    const target = { kind: "window", id: windowId } as const
    const output = yield* queryTree(socket, (m) => [...change, ["list-windows", "-t", windowId, "-F", windowRecord.format(m)]], target)
    const found = (yield* decode(windowRecord, output)).find((window) => window.window_id === windowId)
    return found === undefined ? yield* notFound(socket, target) : (found as Window)
  })

/** Runs `change` and then reads back the panes of the windows that hold `read` panes. */
const changePanes = (
  socket: ResolvedSocket,
  target: QueryTarget,
  change: ReadonlyArray<TmuxCommand>,
  read: ReadonlyArray<string>
): Effect.Effect<{ readonly panes: ReadonlyArray<Pane>; readonly zoomed: ReadonlyMap<string, boolean> }, TmuxError, Requirements> =>
  Effect.gen(function*() {
    const output = yield* queryTree(
      socket,
      (m) => [
        serverIdentityCommand(m),
        ...change,
        ...read.map((id): TmuxCommand => ["list-panes", "-t", id, "-F", paneRecord.format(m)]),
        clientsCommand(m)
      ],
      target
    )
    const server = yield* decodeServerIdentity(output)
    const rows = yield* decode(paneRecord, output)
    return {
      panes: yield* toPanes(socket, server, output),
      zoomed: new Map(rows.map((row) => [row.window_id, row.window_zoomed]))
    }
  })

const paneNamed = (socket: ResolvedSocket, panes: ReadonlyArray<Pane>, paneId: string) => {
  const found = panes.find((pane) => pane.pane_id === paneId)
  return found === undefined ? notFound(socket, { kind: "pane", id: paneId }) : Effect.succeed(found)
}

// Names and titles

/**
 * Renames a session by id; the name is stored literally (`#(…)` never runs) and refused if tmux
 * would store it differently.
 */
export const renameSession = Effect.fn("Shape.renameSession")((
  socket: ResolvedSocket,
  sessionId: string,
  name: string,
  options: GenerationCheck = {}
): Effect.Effect<Session, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    yield* checkName("session name", name, "name")
    const target = { kind: "session", id: sessionId } as const
    const output = yield* queryTree(
      socket,
      (m) => [["rename-session", "-t", sessionId, "--", literalizeFormat(name)], ...sessionsCommands(m)],
      target
    )
    const found = (yield* decodeSessions(output)).find((session) => session.session_id === sessionId)
    if (found === undefined) return yield* notFound(socket, target)
    yield* storedExactly("session name", name, found.session_name)
    return found as Session
  })
)

/** Renames a window by id, likewise stored literally. */
export const renameWindow = Effect.fn("Shape.renameWindow")((
  socket: ResolvedSocket,
  windowId: string,
  name: string,
  options: GenerationCheck = {}
): Effect.Effect<Window, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    yield* checkName("window name", name, "name")
    const window = yield* changeWindow(socket, windowId, [["rename-window", "-t", windowId, "--", literalizeFormat(name)]])
    yield* storedExactly("window name", name, window.window_name)
    return window
  })
)

/** A program in the pane may set its title later with an escape sequence; tmux 3.3a allows that. */
export const setPaneTitle = Effect.fn("Shape.setPaneTitle")((
  socket: ResolvedSocket,
  paneId: string,
  title: string,
  options: GenerationCheck = {}
): Effect.Effect<Pane, TmuxError | InvalidInput, Requirements> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    yield* checkName("pane title", title, "title")
    const { panes } = yield* changePanes(
      socket,
      { kind: "pane", id: paneId },
      [["select-pane", "-t", paneId, "-T", literalizeFormat(title)]],
      [paneId]
    )
    const pane = yield* paneNamed(socket, panes, paneId)
    yield* storedExactly("pane title", title, pane.title)
    return pane
  })
)

// Selection

/** A window relative to a session's current one. */
export type WindowDirection = "next" | "previous" | "last"

/** Which window to select: by id, or next / previous / last in a session. */
export type WindowSelection =
  | { readonly window_id: string }
  | { readonly session_id: string; readonly direction: WindowDirection }

const windowDirectionCommand: Record<WindowDirection, string> = {
  next: "next-window",
  previous: "previous-window",
  last: "last-window"
}

/** Makes a window its session's current window; returns it. next/previous wrap around. */
export const selectWindow = Effect.fn("Shape.selectWindow")((
  socket: ResolvedSocket,
  selection: WindowSelection,
  options: GenerationCheck = {}
): Effect.Effect<Window, TmuxError, Tmux> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    if ("window_id" in selection) {
      return yield* changeWindow(socket, selection.window_id, [["select-window", "-t", selection.window_id]])
    }
    const target = { kind: "session", id: selection.session_id } as const
    const output = yield* queryTree(
      socket,
      (m) => [
        [windowDirectionCommand[selection.direction], "-t", selection.session_id],
        ["list-windows", "-t", selection.session_id, "-F", windowRecord.format(m)]
      ],
      target
    )
    const found = (yield* decode(windowRecord, output)).find((window) => window.active)
    return found === undefined ? yield* notFound(socket, target) : (found as Window)
  })
)

/** A pane relative to a window's active one. */
export type PaneDirection = "up" | "down" | "left" | "right" | "last" | "next" | "previous"

/** Which pane to select: by id, or by direction in a window. */
export type PaneSelection =
  | { readonly pane_id: string }
  | { readonly window_id: string; readonly direction: PaneDirection }

const paneDirectionCommand: Record<"up" | "down" | "left" | "right" | "last", (windowId: string) => TmuxCommand> = {
  up: (w) => ["select-pane", "-t", w, "-U"],
  down: (w) => ["select-pane", "-t", w, "-D"],
  left: (w) => ["select-pane", "-t", w, "-L"],
  right: (w) => ["select-pane", "-t", w, "-R"],
  last: (w) => ["last-pane", "-t", w]
}

const paneOrderRecord = Format.record("pord", {
  pane_id: Format.string("pane_id"),
  pane_index: Format.int("pane_index"),
  active: Format.bool("pane_active")
})

/** The pane after (or before) the active one in pane-index order, wrapping around. */
const neighbourPane = (
  socket: ResolvedSocket,
  windowId: string,
  step: 1 | -1
): Effect.Effect<string, TmuxError, Tmux> =>
  Effect.gen(function*() {
    const target = { kind: "window", id: windowId } as const
    const output = yield* queryTree(socket, (m) => [["list-panes", "-t", windowId, "-F", paneOrderRecord.format(m)]], target)
    const panes = (yield* decode(paneOrderRecord, output)).sort((a, b) => a.pane_index - b.pane_index)
    const active = panes.findIndex((pane) => pane.active)
    if (panes.length === 0 || active < 0) return yield* notFound(socket, target)
    return panes[(active + step + panes.length) % panes.length]!.pane_id
  })

/**
 * Makes a pane its window's active pane; returns it. It does not switch the session's current
 * window (select_window does). Selecting a pane in a zoomed window unzooms it, as in tmux.
 */
export const selectPane = Effect.fn("Shape.selectPane")((
  socket: ResolvedSocket,
  selection: PaneSelection,
  options: GenerationCheck = {}
): Effect.Effect<Pane, TmuxError, Requirements> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    if ("pane_id" in selection) {
      const paneId = selection.pane_id
      const { panes } = yield* changePanes(socket, { kind: "pane", id: paneId }, [["select-pane", "-t", paneId]], [paneId])
      return yield* paneNamed(socket, panes, paneId)
    }
    const { window_id: windowId, direction } = selection
    if (direction === "next" || direction === "previous") {
      const paneId = yield* neighbourPane(socket, windowId, direction === "next" ? 1 : -1)
      return yield* selectPane(socket, { pane_id: paneId })
    }
    const target = { kind: "window", id: windowId } as const
    const { panes } = yield* changePanes(socket, target, [paneDirectionCommand[direction](windowId)], [windowId])
    const active = panes.find((pane) => pane.window_id === windowId && pane.active)
    return active === undefined ? yield* notFound(socket, target) : active
  })
)

// Layout and size

/** tmux's named layouts. */
export const LAYOUT_NAMES = ["even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled"] as const

/** A layout string as `#{window_layout}` prints it: checksum, then sizes, offsets and ids. */
const RAW_LAYOUT = /^[0-9a-f]{4},[0-9x,{}[\]]+$/

/** A layout as tmux 3.8 prints it, a JSON subset: keys, numbers, ids, true/false (no `#`, `;` or space). */
const JSON_LAYOUT = /^\{"V":[0-9]+,[-0-9A-Za-z"%.:,{}[\]]+\}$/

/** Whether text is a named layout or has the form of a layout string (as `window_layout` prints it). */
export const isLayout = (layout: string): boolean =>
  (LAYOUT_NAMES as ReadonlyArray<string>).includes(layout) ||
  (layout.length <= 8192 && (RAW_LAYOUT.test(layout) || JSON_LAYOUT.test(layout)))

/**
 * Applies a named layout or a saved layout string to a window; a string tmux cannot apply there is
 * InvalidInput.
 */
export const selectLayout = Effect.fn("Shape.selectLayout")((
  socket: ResolvedSocket,
  windowId: string,
  layout: string,
  options: GenerationCheck = {}
): Effect.Effect<Window, TmuxError | InvalidInput, Tmux> =>
  Effect.andThen(
    ensureGeneration(socket, options.generation),
    isLayout(layout)
      ? changeWindow(socket, windowId, [["select-layout", "-t", windowId, "--", layout]]).pipe(
        // tmux checks a layout string (checksum, pane count, sizes) before changing anything.
        Effect.catchIf(
          (error) =>
            error._tag === "Failed" && error.reason === "exit" &&
            /invalid layout|have \d+ panes? but need \d+|size mismatch after applying layout/.test(error.stderr),
          () =>
            Effect.fail(
              new InvalidInput({
                reason:
                  `layout is not a layout tmux can apply to window ${windowId} (a layout string must come from a window with the same number of panes, unchanged).`
              })
            )
        )
      )
      : Effect.fail(
        new InvalidInput({
          reason: `layout must be one of ${
            LAYOUT_NAMES.join(", ")
          } or a layout string from get_window_info (e.g. "bb62,159x48,0,0{79x48,0,0,79,48,80,0,80}").`
        })
      )
  )
)

/** A pane after a resize or zoom, and whether the call changed anything. */
export const ResizedPane = Schema.Struct({
  ...Pane.fields,
  window_zoomed: Schema.Boolean.annotate({ description: "The pane's window is zoomed (one pane fills it)." }),
  changed: Schema.Boolean.annotate({ description: "Whether the call changed the pane's size or the window's zoom." })
})
export type ResizedPane = typeof ResizedPane.Type

/** A pane's new width and / or height in cells. */
export interface PaneSize {
  readonly width?: number | undefined
  readonly height?: number | undefined
}

const paneSizeFields = {
  pane_id: Format.string("pane_id"),
  width: Format.int("pane_width"),
  height: Format.int("pane_height"),
  active: Format.bool("pane_active"),
  pane_count: Format.int("window_panes"),
  zoomed: Format.bool("window_zoomed_flag")
}
const paneSizeRecord = Format.record("psz", paneSizeFields)
type PaneSizeRow = Format.Decoded<typeof paneSizeFields>

/** The pane's size and zoom state before a change; also proves the pane exists. */
const paneSize = (socket: ResolvedSocket, paneId: string): Effect.Effect<PaneSizeRow, TmuxError, Tmux> =>
  Effect.gen(function*() {
    const target = { kind: "pane", id: paneId } as const
    const output = yield* queryTree(socket, (m) => [["list-panes", "-t", paneId, "-F", paneSizeRecord.format(m)]], target)
    const found = (yield* decode(paneSizeRecord, output)).find((row) => row.pane_id === paneId)
    return found === undefined ? yield* notFound(socket, target) : found
  })

const resized = (
  socket: ResolvedSocket,
  paneId: string,
  change: ReadonlyArray<TmuxCommand>,
  before: PaneSizeRow
): Effect.Effect<ResizedPane, TmuxError, Requirements> =>
  Effect.gen(function*() {
    const { panes, zoomed } = yield* changePanes(socket, { kind: "pane", id: paneId }, change, [paneId])
    const pane = yield* paneNamed(socket, panes, paneId)
    const windowZoomed = zoomed.get(pane.window_id) ?? false
    return {
      ...pane,
      window_zoomed: windowZoomed,
      changed: pane.width !== before.width || pane.height !== before.height || windowZoomed !== before.zoomed
    }
  })

/**
 * Sets a pane's size in cells. tmux keeps the window's size, so the neighbours give or take the
 * difference; a pane alone in its window keeps the window's size. Resizing unzooms the window.
 */
export const resizePane = Effect.fn("Shape.resizePane")((
  socket: ResolvedSocket,
  paneId: string,
  size: PaneSize,
  options: GenerationCheck = {}
): Effect.Effect<ResizedPane, TmuxError | InvalidInput, Requirements> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    if (size.width === undefined && size.height === undefined) {
      return yield* Effect.fail(new InvalidInput({ reason: "Pass width, height, or both (or zoom)." }))
    }
    const before = yield* paneSize(socket, paneId)
    const command = ["resize-pane", "-t", paneId]
    if (size.width !== undefined) command.push("-x", String(size.width))
    if (size.height !== undefined) command.push("-y", String(size.height))
    return yield* resized(socket, paneId, [command], before)
  })
)

/**
 * Zooms a pane (it fills its window) or unzooms its window, idempotently: tmux's `resize-pane -Z`
 * toggles, so the zoom state is read first and only a needed change is sent. Zooming a pane of a
 * window where another pane is zoomed zooms this one instead.
 */
export const zoomPane = Effect.fn("Shape.zoomPane")((
  socket: ResolvedSocket,
  paneId: string,
  zoom: boolean,
  options: GenerationCheck = {}
): Effect.Effect<ResizedPane, TmuxError | InvalidInput, Requirements> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    const before = yield* paneSize(socket, paneId)
    const toggle: TmuxCommand = ["resize-pane", "-Z", "-t", paneId]
    if (zoom && before.pane_count < 2) {
      return yield* Effect.fail(new InvalidInput({ reason: `pane ${paneId} is alone in its window: tmux zooms only among several panes.` }))
    }
    const change: ReadonlyArray<TmuxCommand> = zoom
      ? before.zoomed
        ? before.active
          ? []
          : [toggle, toggle]
        : [toggle]
      : before.zoomed
      ? [toggle]
      : []
    return yield* resized(socket, paneId, change, before)
  })
)

/**
 * Sets a window's size in cells. tmux then sets the window's `window-size` option to `manual`: the
 * window keeps this size and stops following the size of attached clients.
 */
export const resizeWindow = Effect.fn("Shape.resizeWindow")((
  socket: ResolvedSocket,
  windowId: string,
  size: PaneSize,
  options: GenerationCheck = {}
): Effect.Effect<Window, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    if (size.width === undefined && size.height === undefined) {
      return yield* Effect.fail(new InvalidInput({ reason: "Pass width, height, or both." }))
    }
    const command = ["resize-window", "-t", windowId]
    if (size.width !== undefined) command.push("-x", String(size.width))
    if (size.height !== undefined) command.push("-y", String(size.height))
    return yield* changeWindow(socket, windowId, [command])
  })
)

// Moving

/** Two panes after swapping places. */
export const SwappedPanes = Schema.Struct({
  source: Pane.annotate({ description: "The source pane, now where the target was." }),
  target: Pane.annotate({ description: "The target pane, now where the source was." })
})
export type SwappedPanes = typeof SwappedPanes.Type

/**
 * Swaps two panes' places (also across windows). Focus stays in place (tmux's -d): when an active
 * pane is swapped, the pane that takes its place becomes active, so what a person looks at keeps
 * its spot on screen.
 */
export const swapPanes = Effect.fn("Shape.swapPanes")((
  socket: ResolvedSocket,
  sourcePaneId: string,
  targetPaneId: string,
  options: GenerationCheck = {}
): Effect.Effect<SwappedPanes, TmuxError | InvalidInput, Requirements> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    if (sourcePaneId === targetPaneId) {
      return yield* Effect.fail(new InvalidInput({ reason: "source_pane_id and target_pane_id are the same pane." }))
    }
    const { panes } = yield* changePanes(
      socket,
      { kind: "pane", id: sourcePaneId },
      [["swap-pane", "-d", "-s", sourcePaneId, "-t", targetPaneId]],
      [sourcePaneId, targetPaneId]
    )
    return {
      source: yield* paneNamed(socket, panes, sourcePaneId),
      target: yield* paneNamed(socket, panes, targetPaneId)
    }
  })
)

const Placement = Schema.Struct({
  session_id: SessionId,
  window_index: NonNegativeInt
})

/** A window after a move: where it is now, where it was, and whether its source session closed. */
export const MovedWindow = Schema.Struct({
  ...Window.fields,
  moved_from: Schema.NullOr(Placement).annotate({ description: "Where the window was before the move." }),
  source_session_closed: Schema.Boolean.annotate({
    description: "The window was the last one of its source session, so tmux closed that session."
  })
})
export type MovedWindow = typeof MovedWindow.Type

/** Where the window was linked before the move (placementRecord's fields under another tag). */
const placementBeforeRecord = Format.record("pbef", {
  window_id: Format.string("window_id"),
  session_id: Format.string("session_id"),
  window_index: Format.int("window_index")
})

/**
 * Moves a window to another session (or to another index of its own), at `index` or the first
 * free one. The destination's current window does not change. A window linked into several
 * sessions leaves the one tmux picks for `window_id`; `moved_from` says which.
 */
export const moveWindow = Effect.fn("Shape.moveWindow")((
  socket: ResolvedSocket,
  windowId: string,
  destination: { readonly session_id: string; readonly index?: number | undefined },
  options: GenerationCheck = {}
): Effect.Effect<MovedWindow, TmuxError, Tmux> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    const sessionId = destination.session_id
    const output = yield* queryTree(
      socket,
      (m) => [
        ["list-windows", "-a", "-F", placementBeforeRecord.format(m)],
        ["move-window", "-d", "-s", windowId, "-t", `${sessionId}:${destination.index ?? ""}`],
        ["list-windows", "-a", "-F", placementRecord.format(m)],
        ["list-windows", "-t", sessionId, "-F", windowRecord.format(m)],
        ["list-sessions", "-F", sessionIdRecord.format(m)]
      ],
      { kind: "window", id: windowId }
    )
    const moved = (yield* decode(windowRecord, output)).find((window) => window.window_id === windowId)
    if (moved === undefined) return yield* notFound(socket, { kind: "window", id: windowId })
    const key = (p: { readonly session_id: string; readonly window_index: number }) => `${p.session_id}:${p.window_index}`
    const after = new Set((yield* decode(placementRecord, output)).filter((p) => p.window_id === windowId).map(key))
    const from = (yield* decode(placementBeforeRecord, output)).find((p) => p.window_id === windowId && !after.has(key(p)))
    const sessions = new Set((yield* decode(sessionIdRecord, output)).map((row) => row.session_id))
    return {
      ...(moved as Window),
      moved_from: from === undefined ? null : { session_id: from.session_id, window_index: from.window_index },
      source_session_closed: from !== undefined && !sessions.has(from.session_id)
    }
  })
)
