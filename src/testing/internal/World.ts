/**
 * FakeTmux's world model: servers, their sessions, windows (linked into sessions by winlinks),
 * panes, clients, paste buffers, environments and options, and what each pane printed. Plain
 * mutable objects held by reference, so a test or an embedder can build a world, run operations
 * over it and inspect (or change) it between calls. Changes that reach beyond one object (closing,
 * unlinking, starting processes) are in Changes.ts, layouts in Layout.ts.
 */

import type {
  FakeBuffer,
  FakeClient,
  FakeEnvironment,
  FakePane,
  FakePaneSpec,
  FakeServer,
  FakeServerSpec,
  FakeSession,
  FakeWindow,
  FakeWinlink
} from "../FakeWorld.js"

export const DEFAULT_HOME = "/home/fake"
export const DEFAULT_SHELL = "bash"
const DEFAULT_HISTORY_LIMIT = 2000

const environmentOf = (spec: Readonly<Record<string, string | null>> | undefined): FakeEnvironment => new Map(Object.entries(spec ?? {}))

/** A pane as tmux makes it for a spawn; `spec` overrides any field. */
export const makePane = (server: FakeServer, spec: FakePaneSpec & { readonly width: number; readonly height: number }): FakePane => {
  const number = server.next.pane++
  return {
    id: `%${number}`,
    command: DEFAULT_SHELL,
    cwd: DEFAULT_HOME,
    startPath: spec.cwd ?? DEFAULT_HOME,
    startCommand: [],
    environment: {},
    pid: server.next.pid++,
    title: "fake",
    dead: false,
    inMode: false,
    alternate: false,
    bracketedPaste: false,
    left: 0,
    top: 0,
    historyLimit: DEFAULT_HISTORY_LIMIT,
    lines: [],
    input: "",
    pipe: null,
    options: new Map(),
    ...spec
  }
}

export const makeWindow = (server: FakeServer, name: string, width: number, height: number, panes: Array<FakePane>): FakeWindow => {
  const window: FakeWindow = {
    id: `@${server.next.window++}`,
    name,
    zoomed: false,
    width,
    height,
    panes,
    activePane: panes[0]!.id,
    options: new Map()
  }
  server.windows.set(window.id, window)
  return window
}

export const makeSession = (server: FakeServer, name: string | undefined, created: number): FakeSession => {
  const number = server.next.session++
  const session: FakeSession = {
    id: `$${number}`,
    // tmux names an unnamed session by its id's number.
    name: name ?? String(number),
    created,
    winlinks: [],
    current: 0,
    cwd: server.cwd,
    environment: new Map(),
    options: new Map()
  }
  server.sessions.push(session)
  return session
}

/** A server built from a spec, ids allocated in spec order ($0, @0, %0, ...) as tmux would. */
export const makeServer = (spec: FakeServerSpec = {}): FakeServer => {
  const sessions = spec.sessions ?? []
  const startTime = spec.startTime ?? 1_700_000_000
  const server: FakeServer = {
    pid: spec.pid ?? 4242,
    startTime,
    version: spec.version ?? "3.3a",
    // A sessionless server only exists with exit-empty off; one with sessions has tmux's default.
    exitEmpty: spec.exitEmpty ?? sessions.length > 0,
    sessions: [],
    windows: new Map(),
    clients: [],
    buffers: [],
    environment: environmentOf(spec.environment ?? { PATH: "/usr/bin:/bin", HOME: DEFAULT_HOME, TERM: "xterm" }),
    options: new Map(),
    cwd: DEFAULT_HOME,
    ...(spec.directories === undefined ? {} : { directories: new Set(spec.directories) }),
    next: { session: 0, window: 0, pane: 0, buffer: 0, pid: 10_000 }
  }
  for (const s of sessions) {
    const session = makeSession(server, s.name, s.created ?? startTime)
    session.environment = environmentOf(s.environment)
    for (const [position, w] of (s.windows ?? [{}]).entries()) {
      const index = w.index ?? position
      if ("link" in w) {
        session.winlinks.push({ index, window: w.link })
      } else {
        const width = w.width ?? 80
        const height = w.height ?? 24
        const specs = w.panes ?? [{}]
        // Stacked top to bottom as tmux's even-vertical lays them out: equal shares, the last one the rest.
        const each = Math.max(1, Math.floor((height - (specs.length - 1)) / specs.length))
        const panes = specs.map((p, i) => {
          const paneHeight = i === specs.length - 1 ? Math.max(1, height - (each + 1) * (specs.length - 1)) : each
          // The pid follows the pane's number, as the specs' readers expect (%N has pid 10000 + N).
          server.next.pid = 10_000 + server.next.pane
          return makePane(server, { width, height: paneHeight, top: i * (each + 1), ...p })
        })
        const window = makeWindow(server, w.name ?? DEFAULT_SHELL, width, height, panes)
        window.zoomed = w.zoomed ?? false
        window.activePane = panes[w.activePane ?? 0]!.id
        session.winlinks.push({ index, window: window.id })
      }
      if (position === (s.current ?? 0)) session.current = index
    }
  }
  server.next.pid = Math.max(server.next.pid, 10_000 + server.next.pane)
  for (const c of spec.clients ?? []) {
    const session = server.sessions.find((s) => s.name === c.session)
    if (session === undefined) throw new Error(`FakeTmux.server: no session ${c.session} for a client`)
    server.clients.push({
      session: session.id,
      flags: c.flags ?? "attached,focused,UTF-8",
      name: c.name ?? `/dev/pts/${server.clients.length}`
    })
  }
  for (const b of spec.buffers ?? []) addBuffer(server, b.name, b.data, b.created ?? startTime)
  return server
}

// ---- reading ------------------------------------------------------------------------------------

/** A session's environment, made on first use (for a session a test put together by hand). */
export const sessionEnvironment = (session: FakeSession): FakeEnvironment => (session.environment ??= new Map())
export const sessionOptions = (session: FakeSession): Map<string, string> => (session.options ??= new Map())
export const windowOptions = (window: FakeWindow): Map<string, string> => (window.options ??= new Map())

export const idNumber = (id: string): number => Number(id.slice(1))

/** tmux lists sessions in name order and winlinks in index order. */
export const sessionsOf = (server: FakeServer): Array<FakeSession> =>
  [...server.sessions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
export const winlinksOf = (session: FakeSession): Array<FakeWinlink> => [...session.winlinks].sort((a, b) => a.index - b.index)
export const currentWinlink = (session: FakeSession): FakeWinlink | undefined => session.winlinks.find((w) => w.index === session.current)
/** tmux picks the most recently used session; the fake takes the newest. */
export const newest = (sessions: ReadonlyArray<FakeSession>): FakeSession | undefined =>
  [...sessions].sort((a, b) => idNumber(b.id) - idNumber(a.id))[0]

export const windowOf = (server: FakeServer, winlink: FakeWinlink): FakeWindow => {
  const window = server.windows.get(winlink.window)
  if (window === undefined) throw new Error(`FakeTmux: winlink to a window that does not exist (${winlink.window})`)
  return window
}
export const activePaneOf = (window: FakeWindow): FakePane => window.panes.find((p) => p.id === window.activePane) ?? window.panes[0]!
export const findPane = (server: FakeServer, paneId: string): { window: FakeWindow; pane: FakePane } | undefined => {
  for (const window of server.windows.values()) {
    const pane = window.panes.find((p) => p.id === paneId)
    if (pane !== undefined) return { window, pane }
  }
  return undefined
}
export const sessionsHolding = (server: FakeServer, windowId: string): Array<FakeSession> =>
  server.sessions.filter((s) => s.winlinks.some((w) => w.window === windowId))
export const attachedClients = (server: FakeServer, session: FakeSession): Array<FakeClient> =>
  server.clients.filter((c) => c.session === session.id)

// ---- pane text ----------------------------------------------------------------------------------

export interface Row {
  readonly text: string
  readonly wrapped: boolean
}

/** Rows holding what the pane printed, wrapped at the pane width (no blank rows below them). */
const contentRows = (pane: FakePane): Array<Row> => {
  const rows: Array<Row> = []
  const width = Math.max(1, pane.width)
  for (const line of pane.lines) {
    for (let at = 0; at === 0 || at < line.length; at += width) {
      rows.push({ text: line.slice(at, at + width), wrapped: at + width < line.length })
    }
  }
  return rows
}

/** Screen and history rows as tmux stores them: long lines wrap at the pane width, blank rows fill the screen. */
export const rowsOf = (pane: FakePane): Array<Row> => {
  const rows = contentRows(pane)
  while (rows.length < pane.height) rows.push({ text: "", wrapped: false })
  return rows
}

export const historySize = (pane: FakePane): number => rowsOf(pane).length - pane.height

/** Where the cursor is: after the text of the last line printed (absolute row, column). */
export const cursorOf = (pane: FakePane): { readonly row: number; readonly x: number } => {
  const rows = contentRows(pane)
  const last = rows[rows.length - 1]
  return { row: Math.max(0, rows.length - 1), x: last === undefined ? 0 : last.text.length }
}

/**
 * Prints `text` into the pane as a program would: `\n` (or `\r\n`) starts a new line, anything else
 * adds to the cursor's line. A history that outgrows the pane's limit drops its oldest rows in
 * chunks of a tenth of the limit, as tmux 3.3a does.
 */
export const printInto = (pane: FakePane, text: string): void => {
  const parts = text.replaceAll("\r\n", "\n").split("\n")
  if (pane.lines.length === 0) pane.lines.push("")
  pane.lines[pane.lines.length - 1] += parts[0]!
  pane.lines.push(...parts.slice(1))
  const chunk = Math.max(1, Math.floor(pane.historyLimit / 10))
  while (historySize(pane) > pane.historyLimit) {
    // Whole lines only: a dropped chunk that ends inside a wrapped line takes the line.
    let dropped = 0
    while (dropped < chunk && pane.lines.length > 1) {
      dropped += Math.max(1, Math.ceil(pane.lines[0]!.length / Math.max(1, pane.width)))
      pane.lines.shift()
    }
    if (dropped === 0) break
  }
}

// ---- buffers ------------------------------------------------------------------------------------

/** Newest first, as `list-buffers` and `show-buffer` without `-b` see them. */
export const buffersNewestFirst = (server: FakeServer): Array<FakeBuffer> => [...server.buffers].sort((a, b) => b.order - a.order)

/** Sets a buffer (replacing one of the same name), as `load-buffer` and `set-buffer` do. */
export const addBuffer = (server: FakeServer, name: string | undefined, data: string, created: number): FakeBuffer => {
  const order = server.next.buffer++
  const existing = name === undefined ? undefined : server.buffers.find((b) => b.name === name)
  if (existing !== undefined) {
    existing.data = data
    existing.created = created
    existing.order = order
    return existing
  }
  const buffer: FakeBuffer = { name: name ?? `buffer${String(order).padStart(4, "0")}`, data, created, order }
  server.buffers.push(buffer)
  return buffer
}

export const removeBuffer = (server: FakeServer, buffer: FakeBuffer): void => {
  server.buffers = server.buffers.filter((b) => b !== buffer)
}
