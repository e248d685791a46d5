/**
 * The commands that read: display-message -p, capture-pane -p, list-sessions / -windows / -panes /
 * -clients with -F and -f, and if-shell -F (a format for a condition, its commands run in the same
 * invocation).
 */
import type { FakePane, FakeSession, FakeWinlink } from "../../FakeWorld.js"
import { has, parseCommandLine, value } from "../Arguments.js"
import { type CommandEntry, done, failed, formatTarget, type Invocation, type Outcome, printed, unmodelled } from "../Command.js"
import { FormatError, type FormatTarget, tryExpand } from "../Formats.js"
import type { Found } from "../Targets.js"
import { rowsOf, sessionsOf, windowOf, winlinksOf } from "../World.js"

/** Prints the format once per target (those the filter, if any, keeps), each line ending in a newline. */
const list = (format: string, filter: string | undefined, targets: ReadonlyArray<FormatTarget>): Outcome => {
  let out = ""
  for (const target of targets) {
    if (filter !== undefined) {
      const kept = tryExpand(filter, target)
      if (kept instanceof FormatError) return failed(kept.message)
      if (kept === "" || kept === "0") continue
    }
    const line = tryExpand(format, target)
    if (line instanceof FormatError) return failed(line.message)
    out += `${line}\n`
  }
  return printed(out)
}

const inSession = (invocation: Invocation, session: FakeSession, winlink?: FakeWinlink, pane?: FakePane): FormatTarget => ({
  server: invocation.server,
  path: invocation.path,
  session,
  winlink: winlink ?? session.winlinks.find((w) => w.index === session.current),
  pane
})

const displayMessage: CommandEntry = {
  name: "display-message",
  alias: "display",
  template: "ac:d:INpt:F:v",
  lower: 0,
  upper: 1,
  // tmux 3.3a: a target that does not resolve leaves the fields empty, without an error.
  target: { flag: "t", kind: "pane", canFail: true },
  run: (invocation, args, { target }) => {
    if (!has(args, "p")) return unmodelled("display-message", "without -p (it shows the message on a client)")
    const format = args.values[0] ?? value(args, "F")
    if (format === undefined) return unmodelled("display-message", "without a format")
    const expanded = tryExpand(format, formatTarget(invocation, target))
    return expanded instanceof FormatError ? failed(expanded.message) : printed(`${expanded}\n`)
  }
}

/** capture-pane's -S/-E (cmd-capture-pane.c): 0 is the top screen row, negative reaches into history, "-" is the far end. */
const capture = (pane: FakePane, start: string | undefined, end: string | undefined, join: boolean): string => {
  const rows = rowsOf(pane)
  const history = rows.length - pane.height
  const last = rows.length - 1
  const line = (given: string | undefined, fallback: number, dash: number) => {
    if (given === "-") return dash
    const n = given === undefined || !/^-?\d+$/.test(given) ? undefined : Number(given)
    if (n === undefined || n > 32767) return fallback
    return Math.min(last, n < 0 && -n > history ? 0 : history + n)
  }
  let top = line(start, history, 0)
  let bottom = line(end, last, last)
  if (bottom < top) [top, bottom] = [bottom, top]
  let out = ""
  for (let r = top; r <= bottom; r++) out += rows[r]!.text + (join && rows[r]!.wrapped ? "" : "\n")
  return out
}

const capturePane: CommandEntry = {
  name: "capture-pane",
  alias: "capturep",
  template: "ab:CeE:JNpPqS:t:",
  lower: 0,
  upper: 0,
  target: { flag: "t", kind: "pane" },
  run: (_invocation, args, { target }) => {
    if (!has(args, "p")) return unmodelled("capture-pane", "without -p (into a buffer)")
    for (const flag of ["a", "b", "C", "P", "q"]) if (has(args, flag)) return unmodelled("capture-pane", `-${flag}`)
    // -e keeps escapes: the fake's panes hold plain text, so there are none to keep. -N keeps trailing spaces: none either.
    return printed(capture(target!.pane, value(args, "S"), value(args, "E"), has(args, "J")))
  }
}

const listSessions: CommandEntry = {
  name: "list-sessions",
  alias: "ls",
  template: "F:f:",
  lower: 0,
  upper: 0,
  run: (invocation, args) => {
    const format = value(args, "F")
    if (format === undefined) return unmodelled("list-sessions", "without -F")
    return list(format, value(args, "f"), sessionsOf(invocation.server).map((s) => inSession(invocation, s)))
  }
}

const sessionWindows = (invocation: Invocation, session: FakeSession) => winlinksOf(session).map((w) => inSession(invocation, session, w))

const listWindows: CommandEntry = {
  name: "list-windows",
  alias: "lsw",
  template: "F:f:at:",
  lower: 0,
  upper: 0,
  target: { flag: "t", kind: "session" },
  run: (invocation, args, { target }) => {
    const format = value(args, "F")
    if (format === undefined) return unmodelled("list-windows", "without -F")
    const windows = has(args, "a")
      ? sessionsOf(invocation.server).flatMap((s) => sessionWindows(invocation, s))
      : sessionWindows(invocation, target!.session)
    return list(format, value(args, "f"), windows)
  }
}

const panesOf = (invocation: Invocation, windows: ReadonlyArray<FormatTarget>): Array<FormatTarget> =>
  windows.flatMap((t) => windowOf(invocation.server, t.winlink!).panes.map((pane) => ({ ...t, pane })))

const listPanes: CommandEntry = {
  name: "list-panes",
  alias: "lsp",
  template: "asF:f:t:",
  lower: 0,
  upper: 0,
  target: { flag: "t", kind: "window" },
  run: (invocation, args, { target }) => {
    const format = value(args, "F")
    if (format === undefined) return unmodelled("list-panes", "without -F")
    const found = target as Found
    // -a covers the server, -s the target's session, otherwise the target's window.
    const windows = has(args, "a")
      ? sessionsOf(invocation.server).flatMap((s) => sessionWindows(invocation, s))
      : has(args, "s")
      ? sessionWindows(invocation, found.session)
      : [inSession(invocation, found.session, found.winlink)]
    return list(format, value(args, "f"), panesOf(invocation, windows))
  }
}

const listClients: CommandEntry = {
  name: "list-clients",
  alias: "lsc",
  template: "F:t:",
  lower: 0,
  upper: 0,
  target: { flag: "t", kind: "session" },
  run: (invocation, args, { target }) => {
    const format = value(args, "F")
    if (format === undefined) return unmodelled("list-clients", "without -F")
    const clients = invocation.server.clients.filter((c) => !has(args, "t") || c.session === target!.session.id)
    return list(
      format,
      undefined,
      clients.map((client) => ({ ...inSession(invocation, invocation.server.sessions.find((s) => s.id === client.session)!), client }))
    )
  }
}

const ifShell: CommandEntry = {
  name: "if-shell",
  alias: "if",
  template: "bFt:",
  lower: 2,
  upper: 3,
  target: { flag: "t", kind: "pane", canFail: true },
  run: (invocation, args, { target }) => {
    if (!has(args, "F")) return unmodelled("if-shell", "without -F (it would run a shell command)")
    if (has(args, "b")) return unmodelled("if-shell", "-b")
    const condition = tryExpand(args.values[0]!, formatTarget(invocation, target))
    if (condition instanceof FormatError) return failed(condition.message)
    const chosen = condition !== "" && condition !== "0" ? args.values[1] : args.values[2]
    if (chosen === undefined) return done
    const commands = parseCommandLine(chosen)
    if ("error" in commands) return failed(commands.error)
    return printed(invocation.runNested(commands))
  }
}

export const readingCommands: ReadonlyArray<CommandEntry> = [
  displayMessage,
  capturePane,
  listSessions,
  listWindows,
  listPanes,
  listClients,
  ifShell
]
