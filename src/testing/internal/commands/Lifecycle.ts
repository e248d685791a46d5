/**
 * The commands that make and end objects: new-session -d, new-window, split-window, respawn-pane,
 * rename-session, rename-window, kill-session, kill-window, kill-pane (kill-server is the
 * invocation's). `-P` prints the new object with `-F` (or tmux's default format).
 */
import type { FakePane, FakeSession } from "../../FakeWorld.js"
import { type Arguments, has, number, value, values } from "../Arguments.js"
import {
  activatePane,
  automaticName,
  destroyPane,
  destroySession,
  destroyWindow,
  selectWinlink,
  startProcess,
  storedName
} from "../Changes.js"
import { type CommandEntry, done, failed, type Invocation, type Outcome, printed, unmodelled } from "../Command.js"
import { FormatError, type FormatTarget, tryExpand } from "../Formats.js"
import { refreshLayout, splitCell } from "../Layout.js"
import type { Found } from "../Targets.js"
import { makePane, makeSession, makeWindow, sessionEnvironment, windowOptions } from "../World.js"

const printNew = (args: Arguments, fallback: string, target: FormatTarget): Outcome => {
  if (!has(args, "P")) return done
  const expanded = tryExpand(value(args, "F") ?? fallback, target)
  return expanded instanceof FormatError ? failed(expanded.message) : printed(`${expanded}\n`)
}

/** A name argument as tmux stores it: formats expanded (so `##` arrives as `#`), then escaped. */
const nameFrom = (text: string, kind: "session" | "window", target: FormatTarget): string | FormatError => {
  const expanded = tryExpand(text, target)
  return expanded instanceof FormatError ? expanded : storedName(expanded, kind)
}

const spawnOf = (args: Arguments, cwd: string) => ({ argv: args.values, cwd: value(args, "c") ?? cwd, environment: values(args, "e") })

/** The first free window index of a session, from `base-index` (0). */
const freeIndex = (session: FakeSession): number => {
  let index = 0
  while (session.winlinks.some((w) => w.index === index)) index++
  return index
}

/** tmux 3.3a's default update-environment. */
const UPDATE_ENVIRONMENT = [
  "DISPLAY",
  "KRB5CCNAME",
  "SSH_ASKPASS",
  "SSH_AUTH_SOCK",
  "SSH_AGENT_PID",
  "SSH_CONNECTION",
  "WINDOWID",
  "XAUTHORITY"
]

const newSession: CommandEntry = {
  name: "new-session",
  alias: "new",
  template: "Ac:dDe:EF:f:n:Ps:t:x:Xy:",
  lower: 0,
  upper: -1,
  run: (invocation, args) => {
    if (!has(args, "d")) return unmodelled("new-session", "without -d (attaching needs a terminal)")
    for (const flag of ["A", "t", "D", "X", "f"]) if (has(args, flag)) return unmodelled("new-session", `-${flag}`)
    const server = invocation.server
    const base = { server, path: invocation.path }
    const name = value(args, "s") === undefined ? undefined : nameFrom(value(args, "s")!, "session", base)
    if (name instanceof FormatError) return failed(name.message)
    if (name !== undefined && server.sessions.some((s) => s.name === name)) return failed(`duplicate session: ${name}`)
    const size = (flag: "x" | "y", fallback: number, label: string): number | string => {
      const given = value(args, flag)
      if (given === undefined) return fallback
      const n = number(given, 1, 65535)
      return typeof n === "number" ? n : `${label} ${n}`
    }
    const width = size("x", 80, "width")
    if (typeof width === "string") return failed(width)
    const height = size("y", 24, "height")
    if (typeof height === "string") return failed(height)
    const session = makeSession(server, name, invocation.now)
    const spawn = spawnOf(args, server.cwd)
    session.cwd = spawn.cwd
    // update-environment: the variables it names that the client lacks (the fake's client has none) are removed.
    for (const name of UPDATE_ENVIRONMENT) sessionEnvironment(session).set(name, null)
    // -e goes into the session's environment too, for the panes made later.
    for (const flag of spawn.environment) {
      const at = flag.indexOf("=")
      if (at > 0) sessionEnvironment(session).set(flag.slice(0, at), flag.slice(at + 1))
    }
    const pane = makePane(server, { width, height })
    startProcess(server, session, pane, spawn)
    const windowName = value(args, "n") === undefined ? automaticName(pane) : nameFrom(value(args, "n")!, "window", base)
    if (windowName instanceof FormatError) return failed(windowName.message)
    const window = makeWindow(server, windowName, width, height, [pane])
    // A window named with -n keeps its name: tmux turns automatic-rename off for it.
    if (value(args, "n") !== undefined) windowOptions(window).set("automatic-rename", "off")
    session.winlinks.push({ index: 0, window: window.id })
    // The new session is the current one for the rest of the list.
    invocation.current = session
    return printNew(args, "#{session_name}:", { server, path: invocation.path, session, winlink: session.winlinks[0] })
  }
}

const newWindow: CommandEntry = {
  name: "new-window",
  alias: "neww",
  template: "abc:de:F:kn:PSt:",
  lower: 0,
  upper: -1,
  target: { flag: "t", kind: "window-index" },
  run: (invocation, args, { target }) => {
    for (const flag of ["a", "b", "k", "S"]) if (has(args, flag)) return unmodelled("new-window", `-${flag}`)
    const server = invocation.server
    const { session, index: asked } = target as Found
    if (asked !== undefined && session.winlinks.some((w) => w.index === asked)) return failed(`create window failed: index ${asked} in use`)
    const index = asked ?? freeIndex(session)
    const current = session.winlinks.find((w) => w.index === session.current)
    const like = current === undefined ? undefined : server.windows.get(current.window)
    const pane = makePane(server, { width: like?.width ?? 80, height: like?.height ?? 24 })
    // Without -c a pane starts in the tmux client's directory (tmux 3.3a), not the session's.
    startProcess(server, session, pane, spawnOf(args, server.cwd))
    const name = value(args, "n") === undefined
      ? automaticName(pane)
      : nameFrom(value(args, "n")!, "window", { server, path: invocation.path, session })
    if (name instanceof FormatError) return failed(name.message)
    const window = makeWindow(server, name, pane.width, pane.height, [pane])
    if (value(args, "n") !== undefined) windowOptions(window).set("automatic-rename", "off")
    const winlink = { index, window: window.id }
    session.winlinks.push(winlink)
    if (!has(args, "d")) selectWinlink(session, index)
    return printNew(args, "#{session_name}:#{window_index}.#{pane_index}", { server, path: invocation.path, session, winlink, pane })
  }
}

/** -l as split-window reads it: cells, or a percentage of the split pane; undefined for half. */
const splitSize = (args: Arguments, pane: FakePane, horizontal: boolean): number | undefined | { readonly error: string } => {
  const given = value(args, "l")
  if (given === undefined) return undefined
  const along = horizontal ? pane.width : pane.height
  if (given.endsWith("%")) {
    const percent = number(given.slice(0, -1), 0, 2 ** 31 - 1)
    return typeof percent === "number" ? Math.floor((along * percent) / 100) : { error: `percentage ${percent}` }
  }
  const cells = number(given, 0, 2 ** 31 - 1)
  return typeof cells === "number" ? cells : { error: `lines ${cells}` }
}

const splitWindow: CommandEntry = {
  name: "split-window",
  alias: "splitw",
  template: "bc:de:fF:hIl:p:Pt:vZ",
  lower: 0,
  upper: -1,
  target: { flag: "t", kind: "pane" },
  run: (invocation, args, { target }) => {
    for (const flag of ["f", "I", "p", "Z"]) if (has(args, flag)) return unmodelled("split-window", `-${flag}`)
    const server = invocation.server
    const { session, winlink, window, pane } = target as Found
    const horizontal = has(args, "h")
    const size = splitSize(args, pane, horizontal)
    if (typeof size === "object") return failed(size.error)
    window.zoomed = false
    const added = makePane(server, { width: pane.width, height: pane.height })
    if (!splitCell(window, pane.id, added.id, horizontal ? "leftright" : "topbottom", size, has(args, "b"))) {
      server.next.pane--
      return failed("no space for new pane")
    }
    // The new pane goes next to the split one in pane-index order (before it with -b).
    window.panes.splice(window.panes.indexOf(pane) + (has(args, "b") ? 0 : 1), 0, added)
    refreshLayout(window)
    startProcess(server, session, added, spawnOf(args, server.cwd))
    if (!has(args, "d")) activatePane(window, added.id)
    return printNew(args, "#{session_name}:#{window_index}.#{pane_index}", { server, path: invocation.path, session, winlink, pane: added })
  }
}

const respawnPane: CommandEntry = {
  name: "respawn-pane",
  alias: "respawnp",
  template: "c:e:kt:",
  lower: 0,
  upper: -1,
  target: { flag: "t", kind: "pane" },
  run: (invocation, args, { target }) => {
    const { session, winlink, window, pane } = target as Found
    if (!pane.dead && !has(args, "k")) {
      return failed(`respawn pane failed: pane ${session.name}:${winlink.index}.${window.panes.indexOf(pane)} still active`)
    }
    const argv = args.values.length > 0 ? args.values : pane.startCommand
    startProcess(invocation.server, session, pane, { argv, cwd: value(args, "c") ?? pane.startPath, environment: values(args, "e") })
    return done
  }
}

const renameSession: CommandEntry = {
  name: "rename-session",
  alias: "rename",
  template: "t:",
  lower: 1,
  upper: 1,
  target: { flag: "t", kind: "session" },
  run: (invocation, args, { target }) => {
    const { session } = target as Found
    const name = nameFrom(args.values[0]!, "session", { server: invocation.server, path: invocation.path, session })
    if (name instanceof FormatError) return failed(name.message)
    if (invocation.server.sessions.some((s) => s !== session && s.name === name)) return failed(`duplicate session: ${name}`)
    session.name = name
    return done
  }
}

const renameWindow: CommandEntry = {
  name: "rename-window",
  alias: "renamew",
  template: "t:",
  lower: 1,
  upper: 1,
  target: { flag: "t", kind: "window" },
  run: (invocation, args, { target }) => {
    const { session, winlink, window } = target as Found
    const name = nameFrom(args.values[0]!, "window", { server: invocation.server, path: invocation.path, session, winlink })
    if (name instanceof FormatError) return failed(name.message)
    window.name = name
    windowOptions(window).set("automatic-rename", "off")
    return done
  }
}

const noAll = (command: string, args: Arguments): Outcome | undefined => (has(args, "a") ? unmodelled(command, "-a") : undefined)

const killSession: CommandEntry = {
  name: "kill-session",
  template: "aCt:",
  lower: 0,
  upper: 0,
  target: { flag: "t", kind: "session" },
  run: (invocation, args, { target }) => {
    if (has(args, "C")) return unmodelled("kill-session", "-C")
    return noAll("kill-session", args) ?? (destroySession(invocation.server, (target as Found).session), done)
  }
}

const killWindow: CommandEntry = {
  name: "kill-window",
  alias: "killw",
  template: "at:",
  lower: 0,
  upper: 0,
  target: { flag: "t", kind: "window" },
  run: (invocation, args, { target }) => noAll("kill-window", args) ?? (destroyWindow(invocation.server, (target as Found).window.id), done)
}

const killPane: CommandEntry = {
  name: "kill-pane",
  alias: "killp",
  template: "at:",
  lower: 0,
  upper: 0,
  target: { flag: "t", kind: "pane" },
  run: (invocation: Invocation, args, { target }) => {
    const refused = noAll("kill-pane", args)
    if (refused !== undefined) return refused
    const { window, pane } = target as Found
    window.zoomed = false
    destroyPane(invocation.server, window, pane)
    return done
  }
}

export const lifecycleCommands: ReadonlyArray<CommandEntry> = [
  newSession,
  newWindow,
  splitWindow,
  respawnPane,
  renameSession,
  renameWindow,
  killSession,
  killWindow,
  killPane
]
