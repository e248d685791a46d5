/**
 * The changes commands make to the world that reach beyond one object, done as tmux 3.3a does
 * them: starting a pane's process, closing a pane (its window goes with its last pane), unlinking
 * a window from a session (the session goes with its last window, the window with its last link),
 * killing a session, choosing what becomes current or active instead, and how tmux stores a name.
 */
import { basename } from "node:path"
import type { FakePane, FakeServer, FakeSession, FakeWindow, FakeWinlink } from "../FakeWorld.js"
import { closeCell } from "./Layout.js"
import { DEFAULT_SHELL, sessionEnvironment, sessionsHolding, winlinksOf } from "./World.js"

export interface Spawn {
  /** The argv to run; empty runs the default shell. */
  readonly argv: ReadonlyArray<string>
  readonly cwd: string
  /** `-e NAME=value` flags. */
  readonly environment: ReadonlyArray<string>
}

/** The foreground program a spawn shows as `pane_current_command` (env runs what follows its own words). */
const programOf = (argv: ReadonlyArray<string>): string => {
  if (argv.length === 0) return DEFAULT_SHELL
  let words = argv.length === 1 ? argv[0]!.trim().split(/\s+/) : [...argv]
  if (basename(words[0]!) === "env") {
    words = words.slice(1)
    while (words.length > 0 && (words[0] === "--" || words[0]!.startsWith("-") || words[0]!.includes("="))) words = words.slice(1)
    if (words.length === 0) return "env"
  }
  return basename(words[0]!)
}

/** The environment a new process of the session starts with: global, then the session's, then `-e`. */
const environmentFor = (server: FakeServer, session: FakeSession, flags: ReadonlyArray<string>): Record<string, string> => {
  const environment: Record<string, string> = {}
  for (const scope of [server.environment, sessionEnvironment(session)]) {
    for (const [name, value] of scope) {
      if (value === null) delete environment[name]
      else environment[name] = value
    }
  }
  for (const flag of flags) {
    const at = flag.indexOf("=")
    if (at > 0) environment[flag.slice(0, at)] = flag.slice(at + 1)
  }
  return environment
}

/** Starts (or restarts) the pane's process: a fresh pid, the program, its directory and environment. */
export const startProcess = (server: FakeServer, session: FakeSession, pane: FakePane, spawn: Spawn): void => {
  pane.startCommand = [...spawn.argv]
  pane.command = programOf(spawn.argv)
  // tmux's child falls back to HOME when it cannot enter the directory, and says nothing.
  pane.cwd = server.directories === undefined || server.directories.has(spawn.cwd)
    ? spawn.cwd
    : server.environment.get("HOME") ?? "/"
  pane.startPath = spawn.cwd
  pane.environment = environmentFor(server, session, spawn.environment)
  pane.pid = server.next.pid++
  pane.dead = false
  pane.alternate = false
  pane.inMode = false
}

/** The name a new window gets without -n: automatic-rename shows the program. */
export const automaticName = (pane: FakePane): string => pane.command

/**
 * How tmux 3.3a stores a session or window name: vis(3)-escaped (`\` doubled, a tab as `\t`,
 * `$` before a letter, `_` or `{` as `\$`, other controls as octal), and in a session name `:`
 * and `.` replaced by `_`.
 */
export const storedName = (name: string, kind: "session" | "window"): string => {
  let out = ""
  for (let i = 0; i < name.length; i++) {
    const char = name[i]!
    const code = char.charCodeAt(0)
    if (char === "\\") out += "\\\\"
    else if (char === "\t") out += "\\t"
    else if (char === "\n") out += "\\n"
    else if (char === "$" && /[A-Za-z_{]/.test(name[i + 1] ?? "")) out += "\\$"
    else if (code < 0x20 || code === 0x7f) out += `\\${code.toString(8).padStart(3, "0")}`
    else out += char
  }
  return kind === "session" ? out.replace(/[:.]/g, "_") : out
}

/** Makes a winlink the session's current window, remembering the one before for last-window. */
export const selectWinlink = (session: FakeSession, index: number): void => {
  if (session.current === index) return
  session.last = session.current
  session.current = index
}

/** When each pane of a window was last made active (tmux's active_point), kept with the window object. */
const activity = new WeakMap<FakeWindow, Map<string, number>>()

/** Makes a pane its window's active pane, remembering the one before for last-pane. */
export const activatePane = (window: FakeWindow, paneId: string): void => {
  const points = activity.get(window) ?? new Map<string, number>()
  activity.set(window, points)
  points.set(paneId, Math.max(0, ...points.values()) + 1)
  if (window.activePane === paneId) return
  window.lastPane = window.activePane
  window.activePane = paneId
}

/** Of several candidates, the pane made active most recently (window_pane_choose_best); the first on a tie. */
export const mostRecentlyActive = (window: FakeWindow, candidates: ReadonlyArray<FakePane>): FakePane | undefined => {
  const points = activity.get(window)
  let best = candidates[0]
  for (const pane of candidates.slice(1)) {
    if ((points?.get(pane.id) ?? 0) > (points?.get(best!.id) ?? 0)) best = pane
  }
  return best
}

/** What becomes current when the current window leaves a session: the last one, else the previous, else the next. */
const chooseCurrent = (session: FakeSession, leaving: number): void => {
  const remaining = winlinksOf(session)
  if (remaining.length === 0) return
  const last = remaining.find((w) => w.index === session.last)
  const previous = [...remaining].reverse().find((w) => w.index < leaving)
  session.current = (last ?? previous ?? remaining[0]!).index
  session.last = undefined
}

export const destroySession = (server: FakeServer, session: FakeSession): void => {
  if (!server.sessions.includes(session)) return
  server.sessions = server.sessions.filter((s) => s !== session)
  // detach-on-destroy: the session's clients are detached.
  server.clients = server.clients.filter((c) => c.session !== session.id)
  for (const winlink of [...session.winlinks]) {
    session.winlinks = session.winlinks.filter((w) => w !== winlink)
    if (sessionsHolding(server, winlink.window).length === 0) destroyWindow(server, winlink.window)
  }
}

/** Takes a window out of one session; the session closes with its last window, the window with its last link. */
export const unlinkWinlink = (server: FakeServer, session: FakeSession, winlink: FakeWinlink): void => {
  session.winlinks = session.winlinks.filter((w) => w !== winlink)
  if (session.current === winlink.index) chooseCurrent(session, winlink.index)
  if (session.last === winlink.index) session.last = undefined
  if (session.winlinks.length === 0) destroySession(server, session)
  if (sessionsHolding(server, winlink.window).length === 0) destroyWindow(server, winlink.window)
}

/** Kills a window in every session holding it (kill-window, or its last pane closing). */
export const destroyWindow = (server: FakeServer, windowId: string): void => {
  const window = server.windows.get(windowId)
  if (window === undefined) return
  server.windows.delete(windowId)
  for (const session of sessionsHolding(server, windowId)) {
    for (const winlink of session.winlinks.filter((w) => w.window === windowId)) unlinkWinlink(server, session, winlink)
  }
  for (const pane of window.panes) pane.dead = true
}

/** Closes a pane; the window closes with its last pane. */
export const destroyPane = (server: FakeServer, window: FakeWindow, pane: FakePane): void => {
  if (window.panes.length === 1) {
    destroyWindow(server, window.id)
    return
  }
  closeCell(window, pane.id)
  const at = window.panes.indexOf(pane)
  window.panes = window.panes.filter((p) => p !== pane)
  if (window.lastPane === pane.id) window.lastPane = undefined
  if (window.activePane === pane.id) {
    const last = window.panes.find((p) => p.id === window.lastPane)
    window.activePane = (last ?? window.panes[Math.max(0, at - 1)] ?? window.panes[0]!).id
    window.lastPane = undefined
  }
  if (window.panes.length === 1) window.zoomed = false
  pane.dead = true
}
