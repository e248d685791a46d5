/**
 * A `Tmux` whose one pane is a `PaneGrid`: it answers what capture_since and wait_for_text send
 * (`display-message -p -t <pane> <format>` and `capture-pane -p -t <pane> -S … [-E …]`, clamped as
 * tmux 3.3a's cmd-capture-pane.c clamps them) and dies on anything else. `beforeEach` runs before
 * every invocation, so a test can make the pane print between two looks of one call.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Tmux, type TmuxCommand } from "../../src/tmux/Tmux.js"
import type { PaneGrid } from "./PaneGrid.js"

export const GRID_PANE_ID = "%7"
export const GRID_SERVER = { pid: 100, startTime: 1_700_000_000, panePid: 200 }

const variables = (grid: PaneGrid, socketPath: string): Record<string, string | number> => ({
  pid: GRID_SERVER.pid,
  start_time: GRID_SERVER.startTime,
  socket_path: socketPath,
  pane_id: GRID_PANE_ID,
  pane_pid: GRID_SERVER.panePid,
  pane_dead: 0,
  pane_in_mode: 0,
  pane_mode: "",
  scroll_position: "",
  alternate_on: 0,
  cursor_x: grid.cursorX,
  cursor_y: grid.cursorY,
  pane_width: grid.width,
  pane_height: grid.height,
  history_size: grid.historySize,
  history_limit: grid.historyLimit,
  pane_current_command: "sh",
  pane_current_path: "/",
  pane_title: ""
})

/** A -S/-E value as cmd-capture-pane.c reads it: "-" is the far end, negative reaches into history. */
const lineOf = (grid: PaneGrid, value: string | undefined, far: number, fallback: number): number => {
  const last = grid.historySize + grid.height - 1
  if (value === "-") return far
  const n = Number(value)
  if (value === undefined || !Number.isInteger(n) || n > 32767) return fallback
  return Math.min(last, n < 0 && -n > grid.historySize ? 0 : grid.historySize + n)
}

const flag = (command: TmuxCommand, name: string): string | undefined => {
  const at = command.indexOf(name)
  return at < 0 ? undefined : command[at + 1]
}

const answer = (grid: PaneGrid, socketPath: string, command: TmuxCommand): string => {
  if (flag(command, "-t") !== GRID_PANE_ID) throw new Error(`PaneGridTmux: not the modelled pane: ${command.join(" ")}`)
  if (command[0] === "display-message" && command[1] === "-p" && command.length === 5) {
    const values = variables(grid, socketPath)
    return `${
      command[4]!.replace(/#\{([a-z_]+)\}/g, (_, name: string) => {
        if (!(name in values)) throw new Error(`PaneGridTmux: unmodelled variable ${name}`)
        return String(values[name])
      })
    }\n`
  }
  if (command[0] === "capture-pane" && command[1] === "-p" && command.every((word) => !["-e", "-J", "-N", "-a", "-P"].includes(word))) {
    const last = grid.historySize + grid.height - 1
    let top = lineOf(grid, flag(command, "-S"), 0, grid.historySize)
    let bottom = lineOf(grid, flag(command, "-E"), last, last)
    if (bottom < top) [top, bottom] = [bottom, top]
    return grid
      .captured(top, bottom)
      .map((row) => `${row}\n`)
      .join("")
  }
  throw new Error(`PaneGridTmux does not model: ${command.join(" ")}`)
}

export const paneGridTmux = (grid: PaneGrid, beforeEach: () => void = () => {}): Layer.Layer<Tmux> =>
  Layer.succeed(Tmux, {
    run: (socket, commands) =>
      Effect.sync(() => {
        beforeEach()
        return commands.map((command) => answer(grid, socket.path, command)).join("")
      })
  })
