/**
 * `-t` and `-s` as tmux 3.3a resolves them (cmd-find.c), for the target forms the operations send:
 * ids (`$N`, `@N`, `%N`), session names (`=name` exact, or a plain name, exact then a unique
 * prefix, then a client's name), `session:` and `session:index`, and no target at all (the
 * invocation's current session). The error texts are tmux's. Other forms are refused loudly.
 */
import type { FakePane, FakeServer, FakeSession, FakeWindow, FakeWinlink } from "../FakeWorld.js"
import { activePaneOf, currentWinlink, findPane, newest, sessionsHolding, windowOf } from "./World.js"

export type TargetKind = "session" | "window" | "pane" | "window-index"

/** A resolved target: a session, its window link and that window's pane (the active one unless a pane was named). */
export interface Found {
  readonly session: FakeSession
  readonly winlink: FakeWinlink
  readonly window: FakeWindow
  readonly pane: FakePane
  /** For `window-index` targets: the index asked for (undefined: the next free one). */
  readonly index?: number | undefined
}

export type Resolution = { readonly found: Found } | { readonly error: string }

const at = (server: FakeServer, session: FakeSession, winlink: FakeWinlink, pane?: FakePane): Found => {
  const window = windowOf(server, winlink)
  return { session, winlink, window, pane: pane ?? activePaneOf(window) }
}

/** The session a window is shown through: the current one if it holds the window, else the newest. */
const sessionFor = (server: FakeServer, windowId: string, current: FakeSession | undefined): FakeSession | undefined => {
  const holding = sessionsHolding(server, windowId)
  return current !== undefined && holding.includes(current) ? current : newest(holding)
}

const sessionNamed = (server: FakeServer, name: string, exact: boolean): FakeSession | undefined => {
  const same = server.sessions.find((s) => s.name === name)
  if (same !== undefined || exact) return same
  const prefixed = server.sessions.filter((s) => s.name.startsWith(name))
  return prefixed.length === 1 ? prefixed[0] : undefined
}

/** A session named by id or name; tmux then tries the name as a client's and takes its session. */
const findSession = (server: FakeServer, text: string): FakeSession | undefined => {
  if (text.startsWith("$")) return server.sessions.find((s) => s.id === text)
  const exact = text.startsWith("=")
  const name = exact ? text.slice(1) : text
  const session = sessionNamed(server, name, exact)
  if (session !== undefined) return session
  const client = server.clients.find((c) => c.name === name)
  return client === undefined ? undefined : server.sessions.find((s) => s.id === client.session)
}

/** The session's (current) window and pane, as a target naming only a session means. */
const ofSession = (server: FakeServer, session: FakeSession): Found => at(server, session, currentWinlink(session)!)

export const resolveTarget = (
  server: FakeServer,
  current: FakeSession | undefined,
  target: string | undefined,
  kind: TargetKind
): Resolution => {
  const base = current ?? newest(server.sessions)
  if (base === undefined) return { error: "no current target" }
  if (target === undefined || target === "") return { found: ofSession(server, base) }
  if (target.startsWith("%")) {
    const located = findPane(server, target)
    const session = located === undefined ? undefined : sessionFor(server, located.window.id, current)
    if (located === undefined || session === undefined) return { error: `can't find pane: ${target}` }
    return { found: at(server, session, session.winlinks.find((w) => w.window === located.window.id)!, located.pane) }
  }
  if (target.startsWith("@")) {
    const session = server.windows.has(target) ? sessionFor(server, target, current) : undefined
    if (session === undefined) return { error: `can't find window: ${target}` }
    return { found: at(server, session, session.winlinks.find((w) => w.window === target)!) }
  }
  const colon = target.indexOf(":")
  if (colon < 0) {
    const session = findSession(server, target)
    if (session === undefined) return { error: `can't find session: ${target.replace(/^=/, "")}` }
    return { found: ofSession(server, session) }
  }
  // session:index (and session: for the next free index of a new or moved window).
  const sessionText = target.slice(0, colon)
  const indexText = target.slice(colon + 1)
  const session = sessionText === "" ? base : findSession(server, sessionText)
  if (session === undefined) return { error: `can't find session: ${sessionText.replace(/^=/, "")}` }
  if (!/^\d*$/.test(indexText)) return { error: `FakeTmux resolves only session:index targets, not ${target}` }
  const index = indexText === "" ? undefined : Number(indexText)
  if (kind === "window-index") return { found: { ...ofSession(server, session), index } }
  const winlink = index === undefined ? currentWinlink(session) : session.winlinks.find((w) => w.index === index)
  if (winlink === undefined) return { error: `can't find window: ${indexText}` }
  return { found: at(server, session, winlink) }
}
