/** Renaming, selecting, resizing and moving: the tools that reshape existing objects. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { InvalidInput } from "../domain/Errors.js"
import { PaneId, SessionId, WindowId } from "../domain/Ids.js"
import { Pane, Session, Window } from "../domain/Model.js"
import {
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

const Cells = Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 10_000 })))

export const renameSessionTool = defineTool({
  name: "rename_session",
  title: "Rename tmux Session",
  description: "Renames a session, stored literally. Returns it.",
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
  description: "Renames a window, stored literally. Returns it.",
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
  description: "Makes a window its session's current one, by id or direction. Returns it.",
  tier: "mutating",
  group: "layout",
  hints: { idempotent: false },
  input: Schema.Struct({
    window_id: optional(WindowId),
    session_id: optional(SessionId),
    direction: optional(Schema.Literals(["next", "previous", "last"])),
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
  description: "Makes a pane its window's active one, by id or direction. Returns it.",
  tier: "mutating",
  group: "layout",
  hints: { idempotent: false },
  input: Schema.Struct({
    pane_id: optional(PaneId),
    window_id: optional(WindowId),
    direction: optional(
      Schema.Literals(["up", "down", "left", "right", "last", "next", "previous"])
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
  description: "Arranges a window's panes by a preset or a layout string. Returns the window.",
  tier: "mutating",
  group: "layout",
  hints: { idempotent: true },
  input: Schema.Struct({
    window_id: WindowId,
    layout: Schema.String.annotate({ description: "Preset or layout string." }),
    ...changeArguments
  }),
  output: Window,
  handler: (input) =>
    Effect.flatMap(resolveSocket(input), (socket) => selectLayout(socket, input.window_id, input.layout, { generation: input.generation }))
})

export const resizePaneTool = defineTool({
  name: "resize_pane",
  title: "Resize tmux Pane",
  description: "Sets a pane's size in cells, or zooms it. Returns the pane.",
  tier: "mutating",
  group: "layout",
  hints: { idempotent: true },
  input: Schema.Struct({
    pane_id: PaneId,
    width: optional(Cells),
    height: optional(Cells),
    zoom: optional(Schema.Boolean, "false unzooms the window."),
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
  description: "Sets a window's size in cells (it then stops following clients). Returns it.",
  tier: "mutating",
  group: "layout",
  hints: { idempotent: true },
  input: Schema.Struct({
    window_id: WindowId,
    width: optional(Cells),
    height: optional(Cells),
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
  description: "Swaps two panes' places, processes and all. Returns both.",
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
  description: "Moves a window to a session and index. Returns it and where it was.",
  tier: "mutating",
  group: "layout",
  hints: { idempotent: false },
  input: Schema.Struct({
    window_id: WindowId,
    session_id: SessionId,
    index: optional(
      NonNegativeInt.pipe(Schema.check(Schema.isLessThanOrEqualTo(100_000))),
      "Default: the first free one."
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
  description: "Sets a pane's title, stored literally. Returns the pane.",
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
