/**
 * An in-memory `Tmux`: a map of socket paths to servers, interpreting the commands the operations
 * send (and failing loudly on anything else, so an operation that starts sending something new
 * cannot pass its unit tests by accident). Failures go through `classifyFailure` with tmux 3.3a's
 * own stderr texts, so the fake yields exactly the errors the real transport does.
 *
 * The world is held by reference: a test (or an embedder) can change it between calls and see
 * what the tools make of it, and `invocations` records every command list received.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { classifyFailure } from "../tmux/Classify.js"
import { describeCommands, Tmux, type TmuxCommand, type TmuxShape } from "../tmux/Tmux.js"

/** A pane of the fake world; tests may edit its fields between calls. */
export interface FakePane {
  readonly id: string
  command: string
  cwd: string
  pid: number | null
  title: string
  dead: boolean
  inMode: boolean
  width: number
  height: number
  left: number
  top: number
  /** What the program printed, oldest first; wrapped at `width` into history and screen rows as tmux does. */
  lines: Array<string>
}

/** A window of the fake world, with its panes. */
export interface FakeWindow {
  readonly id: string
  name: string
  zoomed: boolean
  width: number
  height: number
  panes: Array<FakePane>
  activePane: string
}

/** A window's place in a session: a linked window has one winlink per session. */
export interface FakeWinlink {
  index: number
  window: string
}

/** A session of the fake world: its window links and current window. */
export interface FakeSession {
  readonly id: string
  name: string
  created: number
  winlinks: Array<FakeWinlink>
  /** The winlink index of the session's current window. */
  current: number
}

/** A client shows its session's current window and that window's active pane. */
export interface FakeClient {
  /** As tmux prints `#{client_flags}`, e.g. "attached,focused,UTF-8" or "...,control-mode,...". */
  flags: string
  session: string
}

/** A fake tmux server: identity, sessions, windows, clients and id counters. */
export interface FakeServer {
  pid: number
  startTime: number
  version: string
  exitEmpty: boolean
  sessions: Array<FakeSession>
  windows: Map<string, FakeWindow>
  clients: Array<FakeClient>
  /** Id counters: like tmux, ids are never reused within one server instance. */
  next: { session: number; window: number; pane: number }
}

/** Socket path -> the server answering there. */
export type FakeWorld = Map<string, FakeServer>

/** One command list the fake received. */
export interface FakeInvocation {
  readonly socketPath: string
  readonly commands: ReadonlyArray<TmuxCommand>
  readonly startServer: boolean
}

/** The fake's world and every command list it received, oldest first. */
export interface FakeTmuxStateShape {
  readonly world: FakeWorld
  readonly invocations: Array<FakeInvocation>
}

/** The fake's state, for tests that inspect or edit the world or check which commands were sent. */
export class FakeTmuxState extends Context.Tag("effect-tmux-mcp/FakeTmuxState")<FakeTmuxState, FakeTmuxStateShape>() {}

// ---- building worlds ----------------------------------------------------------------------------

/** A pane to build: any of its fields (the id is allocated). */
export type FakePaneSpec = Partial<Omit<FakePane, "id">>
/** A window to build, or a link to one already built. */
export type FakeWindowSpec =
  | { readonly name?: string; readonly index?: number; readonly zoomed?: boolean; readonly width?: number; readonly height?: number; readonly panes?: ReadonlyArray<FakePaneSpec>; readonly activePane?: number }
  /** Links an already created window (by id) into this session too. */
  | { readonly link: string; readonly index?: number }
/** A session to build, with its windows. */
export interface FakeSessionSpec {
  readonly name: string
  readonly created?: number
  readonly windows?: ReadonlyArray<FakeWindowSpec>
  /** Position in `windows` of the current window (default 0). */
  readonly current?: number
}
/** A server to build (`FakeTmux.server`), with its sessions and clients. */
export interface FakeServerSpec {
  readonly pid?: number
  readonly startTime?: number
  readonly version?: string
  readonly exitEmpty?: boolean
  readonly sessions?: ReadonlyArray<FakeSessionSpec>
  readonly clients?: ReadonlyArray<{ readonly session: string; readonly flags?: string }>
}

/** A server built from a spec, ids allocated in spec order ($0, @0, %0, ...) as tmux would. */
const makeServer = (spec: FakeServerSpec = {}): FakeServer => {
  const sessions = spec.sessions ?? []
  const server: FakeServer = {
    pid: spec.pid ?? 4242,
    startTime: spec.startTime ?? 1_700_000_000,
    version: spec.version ?? "3.3a",
    // A sessionless server only exists with exit-empty off; one with sessions has tmux's default.
    exitEmpty: spec.exitEmpty ?? sessions.length > 0,
    sessions: [],
    windows: new Map(),
    clients: [],
    next: { session: 0, window: 0, pane: 0 }
  }
  for (const s of sessions) {
    const session: FakeSession = { id: `$${server.next.session++}`, name: s.name, created: s.created ?? server.startTime, winlinks: [], current: 0 }
    for (const [position, w] of (s.windows ?? [{}]).entries()) {
      const index = w.index ?? position
      if ("link" in w) {
        session.winlinks.push({ index, window: w.link })
      } else {
        const width = w.width ?? 80
        const height = w.height ?? 24
        const specs = w.panes ?? [{}]
        const paneHeight = Math.floor((height - (specs.length - 1)) / specs.length)
        const panes = specs.map((p, i): FakePane => {
          const number = server.next.pane++
          return { id: `%${number}`, command: "bash", cwd: "/home/fake", pid: 10_000 + number, title: "fake", dead: false, inMode: false, width, height: paneHeight, left: 0, top: i * (paneHeight + 1), lines: [], ...p }
        })
        const window: FakeWindow = { id: `@${server.next.window++}`, name: w.name ?? "bash", zoomed: w.zoomed ?? false, width, height, panes, activePane: panes[w.activePane ?? 0]!.id }
        server.windows.set(window.id, window)
        session.winlinks.push({ index, window: window.id })
      }
      if (position === (s.current ?? 0)) session.current = index
    }
    server.sessions.push(session)
  }
  for (const c of spec.clients ?? []) {
    const session = server.sessions.find((s) => s.name === c.session)
    if (session === undefined) throw new Error(`FakeTmux.server: no session ${c.session} for a client`)
    server.clients.push({ session: session.id, flags: c.flags ?? "attached,focused,UTF-8" })
  }
  return server
}

// ---- formats ------------------------------------------------------------------------------------

/** What a format is expanded against. As in tmux, a window without a pane means its active pane. */
interface Target {
  readonly server: FakeServer
  readonly path: string
  readonly session?: FakeSession | undefined
  readonly winlink?: FakeWinlink | undefined
  readonly pane?: FakePane | undefined
  readonly client?: FakeClient | undefined
}

type Outcome = { readonly printed: string } | { readonly error: string }

const variables = (t: Target): Record<string, string | number | boolean | null | undefined> => {
  const window = t.winlink === undefined ? undefined : t.server.windows.get(t.winlink.window)
  const pane = t.pane ?? window?.panes.find((p) => p.id === window.activePane)
  return {
    pid: t.server.pid,
    start_time: t.server.startTime,
    version: t.server.version,
    socket_path: t.path,
    session_id: t.session?.id,
    session_name: t.session?.name,
    session_windows: t.session?.winlinks.length,
    // tmux counts control-mode clients as attached too.
    session_attached: t.session && t.server.clients.filter((c) => c.session === t.session!.id).length,
    session_created: t.session?.created,
    window_id: window?.id,
    window_name: window?.name,
    window_index: t.winlink?.index,
    window_panes: window?.panes.length,
    window_active: t.session && t.winlink && t.session.current === t.winlink.index,
    window_zoomed_flag: window?.zoomed,
    window_width: window?.width,
    window_height: window?.height,
    window_layout: window && `${window.width}x${window.height},0,0`,
    pane_id: pane?.id,
    pane_index: pane && window?.panes.indexOf(pane),
    pane_active: pane && window?.activePane === pane.id,
    pane_width: pane?.width,
    pane_height: pane?.height,
    pane_left: pane?.left,
    pane_top: pane?.top,
    pane_current_command: pane?.command,
    pane_current_path: pane?.cwd,
    pane_pid: pane?.pid,
    pane_title: pane?.title,
    pane_dead: pane?.dead,
    pane_in_mode: pane?.inMode,
    history_size: pane && rowsOf(pane).length - pane.height,
    client_flags: t.client?.flags
  }
}

/** Where a `#{…}` that opens at `open` closes, counting nested `#{`; -1 when it does not. */
const closing = (format: string, open: number): number => {
  let depth = 0
  for (let i = open; i < format.length; i++) {
    if (format[i] === "#" && format[i + 1] === "{") {
      depth++
      i++
    } else if (format[i] === "}" && --depth === 0) {
      return i
    }
  }
  return -1
}

/**
 * `#{variable}` references, `##`, and the loops `#{S:…}` (every session, in name order),
 * `#{W:…}` (the session's windows, in index order) and `#{P:…}` (the window's panes); an unknown
 * variable is empty, as in tmux. Anything else (conditionals, modifiers) is refused.
 */
const expandText = (format: string, target: Target): string | { readonly error: string } => {
  const values = variables(target)
  let out = ""
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== "#") {
      out += format[i]
    } else if (format[i + 1] === "#") {
      out += "#"
      i++
    } else {
      const close = format[i + 1] === "{" ? closing(format, i) : -1
      const body = close === -1 ? "" : format.slice(i + 2, close)
      const loop = /^([SWP]):/.exec(body)
      if (loop !== null) {
        const inner = body.slice(2)
        const window = target.winlink === undefined ? undefined : target.server.windows.get(target.winlink.window)
        const each: Array<Target> =
          loop[1] === "S"
            ? sessionsOf(target.server).map((session) => ({ ...target, session, winlink: currentWinlink(session), pane: undefined }))
            : loop[1] === "W"
              ? target.session === undefined
                ? []
                : winlinksOf(target.session).map((winlink) => ({ ...target, winlink, pane: undefined }))
              : (window?.panes ?? []).map((pane) => ({ ...target, pane }))
        for (const t of each) {
          const expanded = expandText(inner, t)
          if (typeof expanded !== "string") return expanded
          out += expanded
        }
      } else if (/^[a-z_]+$/.test(body)) {
        const value = values[body]
        out += typeof value === "boolean" ? (value ? "1" : "0") : (value ?? "")
      } else {
        return { error: `FakeTmux expands only #{variable} and #{S:…}/#{W:…}/#{P:…} loops, not ${format.slice(i, i + 12)}` }
      }
      i = close
    }
  }
  return out
}

/** A printed line: the expanded format and a newline. */
const expand = (format: string, target: Target): Outcome => {
  const text = expandText(format, target)
  return typeof text === "string" ? { printed: `${text}\n` } : text
}

const expandAll = (format: string, targets: ReadonlyArray<Target>): Outcome => {
  let printed = ""
  for (const target of targets) {
    const line = expand(format, target)
    if ("error" in line) return line
    printed += line.printed
  }
  return { printed }
}

/**
 * Reads a command line as `ControlProtocol.commandLine` writes it (what `if-shell` parses):
 * double-quoted arguments with backslash escapes and three-digit octal, commands separated by ` ; `.
 */
const parseCommandLine = (line: string): Array<Array<string>> | { readonly error: string } => {
  const commands: Array<Array<string>> = [[]]
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!
    if (char === " ") continue
    if (char === ";") {
      commands.push([])
      continue
    }
    if (char !== '"') return { error: `FakeTmux reads only double-quoted arguments, not ${line.slice(i, i + 12)}` }
    let argument = ""
    for (i++; i < line.length && line[i] !== '"'; i++) {
      if (line[i] !== "\\") {
        argument += line[i]
      } else if (/^[0-7]{3}$/.test(line.slice(i + 1, i + 4))) {
        argument += String.fromCharCode(parseInt(line.slice(i + 1, i + 4), 8))
        i += 3
      } else {
        argument += line[++i] ?? ""
      }
    }
    if (i >= line.length) return { error: "FakeTmux: an unterminated argument" }
    commands[commands.length - 1]!.push(argument)
  }
  return commands.filter((command) => command.length > 0)
}

// ---- targets ------------------------------------------------------------------------------------

const idNumber = (id: string) => Number(id.slice(1))
/** tmux lists sessions in name order and winlinks in index order. */
const sessionsOf = (server: FakeServer) => [...server.sessions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
const winlinksOf = (session: FakeSession) => [...session.winlinks].sort((a, b) => a.index - b.index)
const currentWinlink = (session: FakeSession) => session.winlinks.find((w) => w.index === session.current)
/** tmux picks the most recently used session; the fake takes the newest. */
const newest = (sessions: ReadonlyArray<FakeSession>) => [...sessions].sort((a, b) => idNumber(b.id) - idNumber(a.id))[0]

/** Resolves `-t` to a session (and a winlink for window and pane targets), or tmux's error text. */
const resolve = (server: FakeServer, target: string): { session: FakeSession; winlink?: FakeWinlink | undefined } | string => {
  let windowId: string | undefined
  if (target.startsWith("%")) {
    windowId = [...server.windows.values()].find((w) => w.panes.some((p) => p.id === target))?.id
    if (windowId === undefined) return `can't find pane: ${target}`
  } else if (target.startsWith("@")) {
    if (!server.windows.has(target)) return `can't find window: ${target}`
    windowId = target
  }
  if (windowId !== undefined) {
    const session = newest(server.sessions.filter((s) => s.winlinks.some((w) => w.window === windowId)))
    if (session === undefined) return `can't find window: ${target}`
    return { session, winlink: session.winlinks.find((w) => w.window === windowId) }
  }
  // Names are matched exactly; the operations only send ids.
  const session = server.sessions.find((s) => s.id === target || s.name === target)
  return session === undefined ? `can't find session: ${target}` : { session }
}

// ---- commands -----------------------------------------------------------------------------------

/** getopt as tmux uses it: `spec` lists the flags, `x:` takes a value. */
const parseFlags = (command: TmuxCommand, spec: string): { flags: Map<string, string>; rest: Array<string> } | string => {
  const flags = new Map<string, string>()
  let i = 1
  for (; i < command.length && command[i]!.startsWith("-") && command[i] !== "-"; i++) {
    const arg = command[i]!
    for (let j = 1; j < arg.length; j++) {
      const at = spec.indexOf(arg[j]!)
      if (at === -1) return `command ${command[0]}: unknown flag -${arg[j]}`
      if (spec[at + 1] !== ":") {
        flags.set(arg[j]!, "")
        continue
      }
      const value = j + 1 < arg.length ? arg.slice(j + 1) : command[++i]
      if (value === undefined) return `command ${command[0]}: -${arg[j]} expects an argument`
      flags.set(arg[j]!, value)
      break
    }
  }
  return { flags, rest: command.slice(i) }
}

/** Screen and history rows as tmux stores them: long lines wrap at the pane width. */
const rowsOf = (pane: FakePane) => {
  const rows: Array<{ text: string; wrapped: boolean }> = []
  const width = Math.max(1, pane.width)
  for (const line of pane.lines) {
    for (let at = 0; at === 0 || at < line.length; at += width) {
      rows.push({ text: line.slice(at, at + width), wrapped: at + width < line.length })
    }
  }
  while (rows.length < pane.height) rows.push({ text: "", wrapped: false })
  return rows
}

/** capture-pane's -S/-E: 0 is the top screen row, negative reaches into history, "-" is the far end. */
const capture = (pane: FakePane, flags: Map<string, string>): string => {
  const rows = rowsOf(pane)
  const historySize = rows.length - pane.height
  const last = rows.length - 1
  const line = (value: string | undefined, fallback: number, dash: number) => {
    if (value === "-") return dash
    const n = Number(value)
    if (value === undefined || !Number.isInteger(n)) return fallback
    return Math.min(last, n < 0 && -n > historySize ? 0 : historySize + n)
  }
  let top = line(flags.get("S"), historySize, 0)
  let bottom = line(flags.get("E"), last, last)
  if (bottom < top) [top, bottom] = [bottom, top]
  let printed = ""
  for (let r = top; r <= bottom; r++) {
    printed += rows[r]!.text + (flags.has("J") && rows[r]!.wrapped && r < bottom ? "" : "\n")
  }
  return printed
}

/** The commands modelled, with the flags the operations use (kill-server is handled by `run`). */
const FLAG_SPECS: Record<string, string> = {
  "display-message": "pt:",
  "if-shell": "F",
  "list-sessions": "F:",
  "list-windows": "aF:t:",
  "list-panes": "aF:st:",
  "list-clients": "F:",
  "capture-pane": "pJt:S:E:",
  "start-server": "",
  "set-option": "g"
}

const execute = (path: string, server: FakeServer, command: TmuxCommand): Outcome => {
  const name = command[0] ?? ""
  const unmodelled: Outcome = { error: `FakeTmux does not model: ${command.join(" ")}` }
  const spec = FLAG_SPECS[name]
  if (spec === undefined) return unmodelled
  const parsed = parseFlags(command, spec)
  if (typeof parsed === "string") return { error: parsed }
  const { flags, rest } = parsed
  const format = flags.get("F") ?? ""
  // tmux 3.3a: on a server without sessions every command that resolves a target fails this way.
  if (["list-windows", "list-panes", "list-clients", "capture-pane"].includes(name) && server.sessions.length === 0) {
    return { error: "no current target" }
  }
  const at = (session: FakeSession, winlink = currentWinlink(session)): Target => ({ server, path, session, winlink })
  const current = newest(server.sessions)

  switch (name) {
    case "display-message": {
      if (!flags.has("p") || rest.length !== 1) return unmodelled
      const t = flags.get("t")
      if (t === undefined) return expand(rest[0]!, current === undefined ? { server, path } : at(current))
      // tmux 3.3a: a target that does not resolve leaves the fields empty, without an error.
      const found = server.sessions.length === 0 ? "no current target" : resolve(server, t)
      if (typeof found === "string") return expand(rest[0]!, { server, path })
      const pane = t.startsWith("%") ? server.windows.get(found.winlink!.window)!.panes.find((p) => p.id === t) : undefined
      return expand(rest[0]!, { ...at(found.session, found.winlink), pane })
    }
    case "if-shell": {
      // Only the -F form (a format for a condition, no shell) is modelled.
      if (!flags.has("F") || rest.length !== 2) return unmodelled
      const condition = expandText(rest[0]!, current === undefined ? { server, path } : at(current))
      if (typeof condition !== "string") return condition
      if (condition === "" || condition === "0") return { printed: "" }
      const commands = parseCommandLine(rest[1]!)
      if ("error" in commands) return commands
      let printed = ""
      for (const inner of commands) {
        const outcome = execute(path, server, inner)
        if ("error" in outcome) return outcome
        printed += outcome.printed
      }
      return { printed }
    }
    case "list-sessions":
      return expandAll(format, sessionsOf(server).map((s) => at(s)))
    case "list-windows":
    case "list-panes": {
      let windows: Array<Target>
      if (flags.has("a")) {
        windows = sessionsOf(server).flatMap((s) => winlinksOf(s).map((w) => at(s, w)))
      } else {
        const found = flags.has("t") ? resolve(server, flags.get("t")!) : { session: current! }
        if (typeof found === "string") return { error: found }
        // list-windows and list-panes -s cover the session; list-panes -t covers one window.
        windows =
          name === "list-windows" || flags.has("s")
            ? winlinksOf(found.session).map((w) => at(found.session, w))
            : [at(found.session, found.winlink ?? currentWinlink(found.session))]
      }
      if (name === "list-windows") return expandAll(format, windows)
      return expandAll(format, windows.flatMap((t) => server.windows.get(t.winlink!.window)!.panes.map((pane) => ({ ...t, pane }))))
    }
    case "list-clients":
      return expandAll(
        format,
        server.clients.map((client) => ({ ...at(server.sessions.find((s) => s.id === client.session)!), client }))
      )
    case "capture-pane": {
      const target = flags.get("t") ?? ""
      if (!flags.has("p") || !target.startsWith("%")) return unmodelled
      const pane = [...server.windows.values()].flatMap((w) => w.panes).find((p) => p.id === target)
      return pane === undefined ? { error: `can't find pane: ${target}` } : { printed: capture(pane, flags) }
    }
    case "start-server":
      return { printed: "" }
    case "set-option":
      if (!flags.has("g") || rest[0] !== "exit-empty" || (rest[1] !== "on" && rest[1] !== "off")) return unmodelled
      server.exitEmpty = rest[1] === "on"
      return { printed: "" }
  }
  return unmodelled
}

// ---- the service --------------------------------------------------------------------------------

const make = (world: FakeWorld = new Map()): { readonly tmux: TmuxShape; readonly state: FakeTmuxStateShape } => {
  const state: FakeTmuxStateShape = { world, invocations: [] }
  // A server that exited leaves its socket file behind, and tmux words the failure differently.
  const exited = new Set<string>()
  let nextPid = 50_000

  const run: TmuxShape["run"] = (socket, commands, options = {}) =>
    Effect.suspend(() => {
      const startServer = options.startServer === true
      state.invocations.push({ socketPath: socket.path, commands, startServer })
      const fail = (stderr: string) =>
        Effect.fail(classifyFailure({ stderr, exitCode: 1, socketLabel: socket.label, command: describeCommands(commands) }))
      let server = world.get(socket.path)
      if (server === undefined) {
        // Only start-server (of the commands modelled) makes a client start a server, and -N forbids even that.
        if (!startServer || !commands.some((command) => command[0] === "start-server")) {
          return fail(
            exited.has(socket.path)
              ? `no server running on ${socket.path}`
              : `error connecting to ${socket.path} (No such file or directory)`
          )
        }
        while ([...world.values()].some((s) => s.pid === nextPid)) nextPid++
        server = makeServer({ pid: nextPid++, startTime: Math.floor(Date.now() / 1000), exitEmpty: true })
        world.set(socket.path, server)
      }
      let printed = ""
      let error: string | undefined
      let killed = false
      // tmux runs the list in order and stops at the first command that fails.
      for (const command of commands) {
        if (command[0] === "kill-server" && command.length === 1) {
          killed = true
          continue
        }
        const outcome = execute(socket.path, server, command)
        if ("error" in outcome) {
          error = outcome.error
          break
        }
        printed += outcome.printed
      }
      // The server exits after kill-server, and when it has no sessions under exit-empty on.
      if (killed || (server.sessions.length === 0 && server.exitEmpty)) {
        world.delete(socket.path)
        exited.add(socket.path)
      }
      return error === undefined ? Effect.succeed(printed) : fail(error)
    })

  return { tmux: Tmux.of({ run }), state }
}

export const FakeTmux = {
  /** A fake over `world`, kept by reference: later edits to it are seen by later calls. */
  make,
  /** `Tmux` plus `FakeTmuxState`; the same world serves every use of the layer. */
  layer: (world?: FakeWorld): Layer.Layer<Tmux | FakeTmuxState> => {
    const { tmux, state } = make(world)
    return Layer.merge(Layer.succeed(Tmux, tmux), Layer.succeed(FakeTmuxState, state))
  },
  /** Builds a server from a spec, allocating ids in order like tmux. */
  server: makeServer
}
