/** Renaming, selecting, resizing and moving: the tools that reshape existing objects. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { InvalidInput } from "../domain/Errors.js"
import { PaneId, SessionId, WindowId } from "../domain/Ids.js"
import { Pane, Session, Window } from "../domain/Model.js"
import { MAX_NAME_LENGTH } from "../operations/layout/Names.js"
import {
  LAYOUT_NAMES,
  MovedWindow,
  moveWindow,
  renameSession,
  renameWindow,
  ResizedPane,
  resizePane,
  resizeWindow,
  selectLayout,
  selectPane,
  selectWindow,
  setPaneTitle,
  swapPanes,
  SwappedPanes,
  zoomPane
} from "../operations/layout/Shape.js"
import { generationArgument } from "./internal/Arguments.js"
import { defineTool, Int, NonNegativeInt, optional, socketArguments } from "./Tool.js"

const changeArguments = { generation: generationArgument, ...socketArguments }

const invalid = (reason: string) => Effect.fail(new InvalidInput({ reason }))

const Cells = Int.pipe(Schema.between(1, 10_000))

const NAME_RULES =
  `At most ${MAX_NAME_LENGTH} characters; no control characters (tabs, newlines), no "\\" and no "$" before a letter, "_" or "{" (tmux would store those escaped, so they are refused). # and #{…} are stored literally, never expanded; if tmux still stores the name differently (a character its C library does not know), the call fails and says what was stored.`

export const renameSessionTool = defineTool({
  name: "rename_session",
  title: "Rename tmux Session",
  description:
    `Renames a session; returns it. ${NAME_RULES} ":" and "." are refused (tmux turns them into "_" in session names). A name another session has is refused by tmux.`,
  tier: "mutating",
  group: "layout",
  hints: { idempotent: true },
  input: Schema.Struct({ session_id: SessionId, name: Schema.String, ...changeArguments }),
  output: Session,
  handler: (input) =>
    Effect.flatMap(resolveSocket(input), (socket) => renameSession(socket, input.session_id, input.name, { generation: input.generation }))
})

export const renameWindowTool = defineTool({
  name: "rename_window",
  title: "Rename tmux Window",
  description: `Renames a window (tmux then stops renaming it after its running command); returns it. ${NAME_RULES}`,
  tier: "mutating",
  group: "layout",
  hints: { idempotent: true },
  input: Schema.Struct({ window_id: WindowId, name: Schema.String, ...changeArguments }),
  output: Window,
  handler: (input) =>
    Effect.flatMap(resolveSocket(input), (socket) => renameWindow(socket, input.window_id, input.name, { generation: input.generation }))
})

export const selectWindowTool = defineTool({
  name: "select_window",
  title: "Select tmux Window",
  description:
    "Makes a window its session's current window (what attached clients show): window_id, or session_id with direction next / previous (wrapping around) / last (the previously current one). Returns the window now current.",
  tier: "mutating",
  group: "layout",
  hints: { idempotent: false },
  input: Schema.Struct({
    window_id: optional(WindowId, "The window to select."),
    session_id: optional(SessionId, "With direction: the session whose current window changes."),
    direction: optional(Schema.Literal("next", "previous", "last"), "With session_id: which window to select."),
    ...changeArguments
  }),
  output: Window,
  handler: (input) =>
    Effect.gen(function*() {
      const byId = input.window_id !== undefined
      const byDirection = input.session_id !== undefined && input.direction !== undefined
      if (byId === byDirection || (byId && (input.session_id !== undefined || input.direction !== undefined))) {
        return yield* invalid("Pass window_id, or session_id with direction (not both).")
      }
      const socket = yield* resolveSocket(input)
      return yield* selectWindow(
        socket,
        input.window_id !== undefined ? { window_id: input.window_id } : { session_id: input.session_id!, direction: input.direction! },
        { generation: input.generation }
      )
    })
})

export const selectPaneTool = defineTool({
  name: "select_pane",
  title: "Select tmux Pane",
  description:
    "Makes a pane its window's active pane: pane_id, or window_id with direction up / down / left / right (neighbour on screen, wrapping at the edges), last (the previously active pane), next / previous (by pane index, wrapping around). Does not change the session's current window (select_window does). Selecting another pane of a zoomed window unzooms it. Returns the pane now active.",
  tier: "mutating",
  group: "layout",
  hints: { idempotent: false },
  input: Schema.Struct({
    pane_id: optional(PaneId, "The pane to select."),
    window_id: optional(WindowId, "With direction: the window whose active pane changes."),
    direction: optional(
      Schema.Literal("up", "down", "left", "right", "last", "next", "previous"),
      "With window_id: which pane to select, relative to the active one."
    ),
    ...changeArguments
  }),
  output: Pane,
  handler: (input) =>
    Effect.gen(function*() {
      const byId = input.pane_id !== undefined
      const byDirection = input.window_id !== undefined && input.direction !== undefined
      if (byId === byDirection || (byId && (input.window_id !== undefined || input.direction !== undefined))) {
        return yield* invalid("Pass pane_id, or window_id with direction (not both).")
      }
      const socket = yield* resolveSocket(input)
      return yield* selectPane(
        socket,
        input.pane_id !== undefined ? { pane_id: input.pane_id } : { window_id: input.window_id!, direction: input.direction! },
        { generation: input.generation }
      )
    })
})

export const selectLayoutTool = defineTool({
  name: "select_layout",
  title: "Select tmux Layout",
  description: `Arranges a window's panes: one of ${
    LAYOUT_NAMES.join(", ")
  }, or a layout string as get_window_info / list_windows report it (to restore an earlier arrangement of the same panes; one that does not fit the window is invalid_input and changes nothing). Returns the window with its new layout.`,
  tier: "mutating",
  group: "layout",
  hints: { idempotent: true },
  input: Schema.Struct({
    window_id: WindowId,
    layout: Schema.String.annotations({ description: `${LAYOUT_NAMES.join(" | ")}, or a tmux layout string.` }),
    ...changeArguments
  }),
  output: Window,
  handler: (input) =>
    Effect.flatMap(resolveSocket(input), (socket) => selectLayout(socket, input.window_id, input.layout, { generation: input.generation }))
})

export const resizePaneTool = defineTool({
  name: "resize_pane",
  title: "Resize tmux Pane",
  description:
    "Sets a pane's width and/or height in cells (its neighbours give or take the difference; a pane alone in its window keeps the window's size; resizing unzooms the window), or zooms it: zoom true makes the pane fill its window, false unzooms the window. zoom reads the current state first, so the same call twice changes nothing the second time (changed: false). Returns the pane with window_zoomed.",
  tier: "mutating",
  group: "layout",
  hints: { idempotent: true },
  input: Schema.Struct({
    pane_id: PaneId,
    width: optional(Cells, "Columns."),
    height: optional(Cells, "Rows."),
    zoom: optional(Schema.Boolean, "true: zoom this pane; false: unzoom its window. Exclusive with width/height."),
    ...changeArguments
  }),
  output: ResizedPane,
  handler: (input) =>
    Effect.gen(function*() {
      const sized = input.width !== undefined || input.height !== undefined
      if (sized === (input.zoom !== undefined)) return yield* invalid("Pass width and/or height, or zoom (not both).")
      const socket = yield* resolveSocket(input)
      return input.zoom !== undefined
        ? yield* zoomPane(socket, input.pane_id, input.zoom, { generation: input.generation })
        : yield* resizePane(socket, input.pane_id, { width: input.width, height: input.height }, { generation: input.generation })
    })
})

export const resizeWindowTool = defineTool({
  name: "resize_window",
  title: "Resize tmux Window",
  description:
    "Sets a window's width and/or height in cells; returns the window. tmux then sets the window's window-size option to manual: the window keeps this size and no longer follows the size of attached clients (a client smaller than the window sees part of it).",
  tier: "mutating",
  group: "layout",
  hints: { idempotent: true },
  input: Schema.Struct({
    window_id: WindowId,
    width: optional(Cells, "Columns."),
    height: optional(Cells, "Rows."),
    ...changeArguments
  }),
  output: Window,
  handler: (input) =>
    Effect.flatMap(
      resolveSocket(input),
      (socket) => resizeWindow(socket, input.window_id, { width: input.width, height: input.height }, { generation: input.generation })
    )
})

export const swapPaneTool = defineTool({
  name: "swap_pane",
  title: "Swap tmux Panes",
  description:
    "Swaps the places of two panes (in one window or across windows); the processes move with their panes. Focus stays in place: if an active pane is swapped, the pane that takes its place becomes active. Returns both panes where they are now.",
  tier: "mutating",
  group: "layout",
  hints: { idempotent: false },
  input: Schema.Struct({ source_pane_id: PaneId, target_pane_id: PaneId, ...changeArguments }),
  output: SwappedPanes,
  handler: (input) =>
    Effect.flatMap(
      resolveSocket(input),
      (socket) => swapPanes(socket, input.source_pane_id, input.target_pane_id, { generation: input.generation })
    )
})

export const moveWindowTool = defineTool({
  name: "move_window",
  title: "Move tmux Window",
  description:
    "Moves a window to a session (another one, or its own to change its index), at index or the first free index; an index in use is refused. The destination's current window does not change. Moving a session's last window closes that session (source_session_closed). Returns the window in its new place and moved_from.",
  tier: "mutating",
  group: "layout",
  hints: { idempotent: false },
  input: Schema.Struct({
    window_id: WindowId,
    session_id: SessionId.annotations({ description: "The destination session." }),
    index: optional(
      NonNegativeInt.pipe(Schema.lessThanOrEqualTo(100_000)),
      "Window index in the destination. Default: the first free one."
    ),
    ...changeArguments
  }),
  output: MovedWindow,
  handler: (input) =>
    Effect.flatMap(
      resolveSocket(input),
      (socket) =>
        moveWindow(socket, input.window_id, { session_id: input.session_id, index: input.index }, { generation: input.generation })
    )
})

export const setPaneTitleTool = defineTool({
  name: "set_pane_title",
  title: "Set tmux Pane Title",
  description:
    `Sets a pane's title (shown in pane borders and status lines that display it); returns the pane. At most ${MAX_NAME_LENGTH} characters, no control characters (tmux silently ignores such a title; if it ignores one for another character, the call fails and says so). # and #{…} are stored literally. The program in the pane may change its title later.`,
  tier: "mutating",
  group: "layout",
  hints: { idempotent: true },
  input: Schema.Struct({ pane_id: PaneId, title: Schema.String, ...changeArguments }),
  output: Pane,
  handler: (input) =>
    Effect.flatMap(resolveSocket(input), (socket) => setPaneTitle(socket, input.pane_id, input.title, { generation: input.generation }))
})

export const shapeTools = [
  renameSessionTool,
  renameWindowTool,
  selectWindowTool,
  selectPaneTool,
  selectLayoutTool,
  resizePaneTool,
  resizeWindowTool,
  swapPaneTool,
  moveWindowTool,
  setPaneTitleTool
]
