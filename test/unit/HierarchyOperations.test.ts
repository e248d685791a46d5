/**
 * operations/hierarchy over FakeTmux: the session / window / pane tree (one round trip per read,
 * in id order, linked windows handled, attendance and caller marks) and the guards that protect
 * the caller's own pane, window and session.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { refuseCallerPane, refuseCallerWithin } from "../../src/operations/hierarchy/Guards.js"
import {
  getPane,
  getPaneDetail,
  getPaneWindow,
  getSession,
  getWindow,
  listPanes,
  listSessions,
  listWindows
} from "../../src/operations/hierarchy/Hierarchy.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { callerEnv, fakeOperations, socketPathFor } from "../support/fakeWorld.js"

const DEFAULT = socketPathFor()
const PID = 100

/**
 * $0 work: @0 edit (%0, %1), @1 logs (%2); $1 play: @2 game (%3), and @0 linked at index 3.
 * A person watches work; our own control-mode client sits on play.
 */
const world = (): FakeWorld =>
  new Map([
    [
      DEFAULT,
      FakeTmux.server({
        pid: PID,
        sessions: [
          {
            name: "work",
            created: 1_700_000_100,
            windows: [{ name: "edit", panes: [{ cwd: "/src" }, { command: "vim" }] }, { name: "logs" }]
          },
          { name: "play", windows: [{ name: "game" }, { link: "@0", index: 3 }] }
        ],
        clients: [{ session: "work" }, { session: "play", flags: "attached,focused,control-mode,no-output,UTF-8" }]
      })
    ]
  ])

describe("listSessions / getSession", () => {
  it.effect("lists the sessions in id order, in one round trip, without our control client in session_attached", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      const { server, items } = yield* fake.run((socket) => listSessions(socket))
      expect(server).toMatchObject({ pid: PID, version: "3.3a", socket_path: DEFAULT, generation: `${PID}.1700000000` })
      expect(items).toEqual([
        {
          session_id: "$0",
          session_name: "work",
          window_count: 2,
          session_attached: 1,
          session_created: 1_700_000_100,
          active_window_id: "@0",
          active_pane_id: "%0"
        },
        {
          session_id: "$1",
          session_name: "play",
          window_count: 2,
          session_attached: 0,
          session_created: 1_700_000_000,
          active_window_id: "@2",
          active_pane_id: "%3"
        }
      ])
      expect(fake.state.invocations).toHaveLength(1)
    }))

  it.effect("finds a session by id, exact name or pane, and refuses a prefix or a missing one", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      expect((yield* fake.run((socket) => getSession(socket, { session_id: "$1" }))).session_name).toBe("play")
      expect((yield* fake.run((socket) => getSession(socket, { session_name: "work" }))).session_id).toBe("$0")
      expect((yield* fake.run((socket) => getSession(socket, { pane_id: "%3" }))).session_id).toBe("$1")
      // tmux's own -t would take a prefix; the operation matches names exactly.
      expect(yield* Effect.flip(fake.run((socket) => getSession(socket, { session_name: "wor" })))).toMatchObject({
        _tag: "NotFound",
        kind: "session",
        target: "wor"
      })
      expect(yield* Effect.flip(fake.run((socket) => getSession(socket, { pane_id: "%9" })))).toMatchObject({
        _tag: "NotFound",
        kind: "pane",
        target: "%9"
      })
    }))

  it.effect("a dead server is NoServer, never an empty list", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(new Map())
      expect(yield* Effect.flip(fake.run((socket) => listSessions(socket)))).toMatchObject({ _tag: "NoServer" })
      expect(yield* Effect.flip(fake.run((socket) => listPanes(socket)))).toMatchObject({ _tag: "NoServer" })
    }))
})

describe("listWindows / getWindow / getPaneWindow", () => {
  it.effect("lists every window link in window-id order, and one session's windows", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      const all = yield* fake.run((socket) => listWindows(socket))
      expect(all.items.map((w) => `${w.window_id}/${w.session_id}:${w.window_index}${w.active ? "*" : ""}`)).toEqual([
        "@0/$0:0*",
        "@0/$1:3",
        "@1/$0:1",
        "@2/$1:0*"
      ])
      const play = yield* fake.run((socket) => listWindows(socket, { session_id: "$1" }))
      expect(play.items.map((w) => w.window_id)).toEqual(["@0", "@2"])
      expect(play.items[0]).toMatchObject({
        window_name: "edit",
        pane_count: 2,
        width: 80,
        height: 24,
        zoomed: false,
        active_pane_id: "%0"
      })
      expect(yield* Effect.flip(fake.run((socket) => listWindows(socket, { session_id: "$9" })))).toMatchObject({
        _tag: "NotFound",
        kind: "session",
        target: "$9"
      })
    }))

  it.effect("reads one window, and the window of a pane as tmux resolves the pane", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      expect(yield* fake.run((socket) => getWindow(socket, "@1"))).toMatchObject({
        window_id: "@1",
        window_name: "logs",
        session_id: "$0",
        window_index: 1
      })
      // %0's window is in both sessions: tmux picks one for the pane, and the row is that link.
      const window = yield* fake.run((socket) => getPaneWindow(socket, "%0"))
      expect(window.window_id).toBe("@0")
      expect(["$0", "$1"]).toContain(window.session_id)
      expect(yield* Effect.flip(fake.run((socket) => getWindow(socket, "@9")))).toMatchObject({
        _tag: "NotFound",
        kind: "window",
        target: "@9"
      })
      expect(yield* Effect.flip(fake.run((socket) => getPaneWindow(socket, "%9")))).toMatchObject({
        _tag: "NotFound",
        kind: "pane",
        target: "%9"
      })
    }))

  it.effect("on a server without sessions a named window is NotFound (tmux says \"no current target\")", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(new Map([[DEFAULT, FakeTmux.server({ sessions: [] })]]))
      expect((yield* fake.run((socket) => listWindows(socket))).items).toEqual([])
      expect(yield* Effect.flip(fake.run((socket) => getWindow(socket, "@0")))).toMatchObject({
        _tag: "NotFound",
        kind: "window",
        target: "@0"
      })
    }))
})

describe("listPanes / getPane / getPaneDetail", () => {
  it.effect("lists panes in id order, a linked window's once, marking who a person watches", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      const { items } = yield* fake.run((socket) => listPanes(socket))
      expect(items.map((p) => p.pane_id)).toEqual(["%0", "%1", "%2", "%3"])
      // The person's client shows work's current window @0: both its panes; play's is our control client.
      expect(items.map((p) => p.is_attended)).toEqual([true, true, false, false])
      expect(items.map((p) => p.is_caller)).toEqual([null, null, null, null])
      // A linked window's panes come once, with the first session tmux lists (by name: play before work).
      expect(items[0]).toMatchObject({
        pane_index: 0,
        window_id: "@0",
        session_id: "$1",
        active: true,
        cwd: "/src",
        width: 80,
        left: 0,
        top: 0
      })
      expect(items[1]).toMatchObject({ pane_index: 1, active: false, command: "vim", top: 12 })
      expect(fake.state.invocations).toHaveLength(1)
    }))

  it.effect("a zoomed window shows only its active pane", () =>
    Effect.gen(function*() {
      const w = world()
      w.get(DEFAULT)!.windows.get("@0")!.zoomed = true
      const { items } = yield* fakeOperations(w).run((socket) => listPanes(socket, { window_id: "@0" }))
      expect(items.map((p) => [p.pane_id, p.is_attended])).toEqual([
        ["%0", true],
        ["%1", false]
      ])
    }))

  it.effect("scopes to a session or a window, and marks the caller's own pane", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world(), { env: callerEnv(DEFAULT, PID, "%1") })
      const session = yield* fake.run((socket) => listPanes(socket, { session_id: "$1" }))
      expect(session.items.map((p) => p.pane_id)).toEqual(["%0", "%1", "%3"])
      const window = yield* fake.run((socket) => listPanes(socket, { window_id: "@0" }))
      expect(window.items.map((p) => [p.pane_id, p.is_caller])).toEqual([
        ["%0", false],
        ["%1", true]
      ])
      expect(yield* Effect.flip(fake.run((socket) => listPanes(socket, { window_id: "@9" })))).toMatchObject({
        _tag: "NotFound",
        kind: "window"
      })
    }))

  it.effect("reads one pane, and its placements in every session holding its window", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      expect(yield* fake.run((socket) => getPane(socket, "%2"))).toMatchObject({
        pane_id: "%2",
        window_id: "@1",
        window_name: "logs",
        is_attended: false
      })
      const detail = yield* fake.run((socket) => getPaneDetail(socket, "%1"))
      expect(detail.placements).toEqual([
        { session_id: "$0", session_name: "work", window_index: 0 },
        { session_id: "$1", session_name: "play", window_index: 3 }
      ])
      expect(detail.placements_complete).toBe(true)
      expect(yield* Effect.flip(fake.run((socket) => getPane(socket, "%9")))).toMatchObject({
        _tag: "NotFound",
        kind: "pane",
        target: "%9"
      })
    }))
})

describe("guards of the caller's own context", () => {
  it.effect("refuse the caller's pane, and any pane when $TMUX_PANE cannot be placed", () =>
    Effect.gen(function*() {
      const inside = fakeOperations(world(), { env: callerEnv(DEFAULT, PID, "%1") })
      expect(yield* Effect.flip(inside.run((socket) => refuseCallerPane(socket, "%1", "kill pane")))).toMatchObject({
        _tag: "Denied",
        kind: "self"
      })
      yield* inside.run((socket) => refuseCallerPane(socket, "%0", "kill pane"))
      const uncertain = fakeOperations(world(), { env: { TMUX_PANE: "%1" } })
      expect(yield* Effect.flip(uncertain.run((socket) => refuseCallerPane(socket, "%0", "kill pane")))).toMatchObject({
        _tag: "Denied",
        kind: "self"
      })
      // Nothing was asked of tmux to decide about a pane.
      expect([...inside.state.invocations, ...uncertain.state.invocations]).toEqual([])
    }))

  it.effect("refuse a session or window holding the caller's pane, through a linked window too", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world(), { env: callerEnv(DEFAULT, PID, "%1") })
      for (const target of [{ kind: "session", id: "$0" }, { kind: "session", id: "$1" }, { kind: "window", id: "@0" }] as const) {
        const denied = yield* Effect.flip(fake.run((socket) => refuseCallerWithin(socket, target, "kill")))
        expect(denied).toMatchObject({ _tag: "Denied", kind: "self" })
        expect(denied.message).toContain("(%1)")
      }
      yield* fake.run((socket) => refuseCallerWithin(socket, { kind: "window", id: "@1" }, "kill"))
      expect(yield* Effect.flip(fake.run((socket) => refuseCallerWithin(socket, { kind: "window", id: "@9" }, "kill")))).toMatchObject({
        _tag: "NotFound"
      })
      // Outside tmux there is no caller to protect: nothing is asked.
      const outside = fakeOperations(world())
      yield* outside.run((socket) => refuseCallerWithin(socket, { kind: "session", id: "$0" }, "kill"))
      expect(outside.state.invocations).toEqual([])
    }))
})
