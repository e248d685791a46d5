import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type FakeServerSpec, FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { call, callerEnv, fakeLayer, socketPathFor } from "../support/fakeWorld.js"
import { errorMeta, okResult } from "../support/runTool.js"

const DEFAULT = socketPathFor()
const PID = 4242
const worldOf = (spec: FakeServerSpec): FakeWorld => new Map([[DEFAULT, FakeTmux.server({ pid: PID, ...spec })]])

/**
 * "zeta" is created first ($0, @0 with %0..%9); "alpha" second ($1, @1 with %10) and "beta" third
 * ($2, @2 with %11, plus @0 linked in). tmux prints sessions by name, so listing order differs from id order.
 */
const bigWorld = () =>
  worldOf({
    sessions: [
      { name: "zeta", windows: [{ name: "many", panes: Array.from({ length: 10 }, () => ({})) }] },
      { name: "alpha", windows: [{ name: "one" }] },
      { name: "beta", windows: [{ name: "two" }, { link: "@0", index: 4 }] }
    ]
  })

const ids = (page: { items: Array<Record<string, unknown>> }, key: string) => page.items.map((item) => item[key])

describe("list_sessions", () => {
  it.effect("pages sessions in numeric id order", () =>
    Effect.gen(function*() {
      const sessions = Array.from({ length: 12 }, (_, i) => ({ name: `s${String(11 - i).padStart(2, "0")}` }))
      const layer = fakeLayer(worldOf({ sessions }))
      const page = okResult(yield* call(layer, "list_sessions"))
      expect(ids(page, "session_id")).toEqual(Array.from({ length: 12 }, (_, i) => `$${i}`))
      expect(page).toMatchObject({ total: 12, offset: 0, limit: 100, truncated: false })
      const second = okResult(yield* call(layer, "list_sessions", { offset: 10, limit: 5 }))
      expect(second).toMatchObject({ total: 12, offset: 10, limit: 5, truncated: false })
      expect(ids(second, "session_id")).toEqual(["$10", "$11"])
      expect(okResult(yield* call(layer, "list_sessions", { limit: 5 })).truncated).toBe(true)
      expect(errorMeta(yield* call(layer, "list_sessions", { limit: 1001 })).code).toBe("invalid_input")
      expect(errorMeta(yield* call(layer, "list_sessions", { limit: 0 })).code).toBe("invalid_input")
    }))

  it.effect("describes each session with its active window and pane", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(
        worldOf({
          sessions: [{ name: "work", created: 1_700_000_123, windows: [{}, { panes: [{}, {}], activePane: 1 }], current: 1 }],
          clients: [{ session: "work" }, { session: "work", flags: "attached,focused,control-mode,UTF-8" }]
        })
      )
      // fields: "all" returns every field there was before the compact default.
      expect(okResult(yield* call(layer, "list_sessions", { fields: "all" })).items).toEqual([
        {
          session_id: "$0",
          session_name: "work",
          window_count: 2,
          session_attached: 2,
          session_created: 1_700_000_123,
          active_window_id: "@1",
          active_pane_id: "%2"
        }
      ])
    }))

  it.effect("is an empty page on a live sessionless server and no_server on a dead one", () =>
    Effect.gen(function*() {
      expect(okResult(yield* call(fakeLayer(worldOf({ sessions: [] })), "list_sessions"))).toEqual({
        items: [],
        total: 0,
        offset: 0,
        limit: 100,
        truncated: false
      })
      expect(errorMeta(yield* call(fakeLayer(new Map()), "list_sessions")).code).toBe("no_server")
    }))
})

describe("list_windows", () => {
  it.effect("lists every window, a linked one once per session, in window-id order", () =>
    Effect.gen(function*() {
      const page = okResult(yield* call(fakeLayer(bigWorld()), "list_windows", { fields: "all" }))
      expect(page.items.map((w: any) => `${w.window_id}/${w.session_id}/${w.window_index}`)).toEqual([
        "@0/$0/0",
        "@0/$2/4",
        "@1/$1/0",
        "@2/$2/0"
      ])
      expect(page.items[0]).toEqual({
        window_id: "@0",
        window_name: "many",
        window_index: 0,
        session_id: "$0",
        session_name: "zeta",
        pane_count: 10,
        active: true,
        zoomed: false,
        width: 80,
        height: 24,
        layout:
          "e62f,80x24,0,0[80x1,0,0,0,80x1,0,2,1,80x1,0,4,2,80x1,0,6,3,80x1,0,8,4,80x1,0,10,5,80x1,0,12,6,80x1,0,14,7,80x1,0,16,8,80x6,0,18,9]",
        active_pane_id: "%0"
      })
      expect(page.items[1]).toMatchObject({ window_id: "@0", session_id: "$2", active: false })
    }))

  it.effect("scopes to one session", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(bigWorld())
      const page = okResult(yield* call(layer, "list_windows", { session_id: "$2" }))
      expect(page.items.map((w: any) => w.window_id)).toEqual(["@0", "@2"])
      expect(page.items.every((w: any) => w.session_id === "$2")).toBe(true)
      expect(errorMeta(yield* call(layer, "list_windows", { session_id: "$9" })).code).toBe("not_found")
      expect(errorMeta(yield* call(layer, "list_windows", { session_id: "work" })).code).toBe("invalid_input")
    }))

  it.effect("is empty on a sessionless server", () =>
    Effect.gen(function*() {
      expect(okResult(yield* call(fakeLayer(worldOf({ sessions: [] })), "list_windows")).items).toEqual([])
    }))
})

describe("list_panes", () => {
  it.effect("lists every pane once in numeric id order (%2 before %10)", () =>
    Effect.gen(function*() {
      const page = okResult(yield* call(fakeLayer(bigWorld()), "list_panes", { fields: "all" }))
      const paneIds = ids(page, "pane_id")
      expect(paneIds).toEqual(Array.from({ length: 12 }, (_, i) => `%${i}`))
      expect(paneIds.indexOf("%2")).toBeLessThan(paneIds.indexOf("%10"))
      expect(page.total).toBe(12)
      expect(page.items.find((p: any) => p.pane_id === "%10")).toEqual({
        pane_id: "%10",
        pane_index: 0,
        window_id: "@1",
        window_index: 0,
        window_name: "one",
        session_id: "$1",
        session_name: "alpha",
        active: true,
        width: 80,
        height: 24,
        left: 0,
        top: 0,
        command: "bash",
        cwd: "/home/fake",
        pid: 10_010,
        title: "fake",
        dead: false,
        in_mode: false,
        is_caller: null,
        is_attended: false,
        placements: [{ session_id: "$1", session_name: "alpha", window_index: 0 }],
        placements_complete: true
      })
      // A pane of the linked window @0 is listed once, in the first session tmux prints (by name: beta),
      // and placed in both sessions, in session-id order.
      expect(page.items.find((p: any) => p.pane_id === "%0")).toMatchObject({
        window_id: "@0",
        session_id: "$2",
        window_index: 4,
        placements: [{ session_id: "$0", session_name: "zeta", window_index: 0 }, {
          session_id: "$2",
          session_name: "beta",
          window_index: 4
        }],
        placements_complete: true
      })
    }))

  it.effect("scopes to a session or a window, never both", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(bigWorld())
      expect(ids(okResult(yield* call(layer, "list_panes", { session_id: "$2" })), "pane_id")).toEqual([
        ...Array.from({ length: 10 }, (_, i) => `%${i}`),
        "%11"
      ])
      expect(ids(okResult(yield* call(layer, "list_panes", { window_id: "@1" })), "pane_id")).toEqual(["%10"])
      expect(ids(okResult(yield* call(layer, "list_panes", { window_id: "@0", limit: 3, offset: 8 })), "pane_id")).toEqual(["%8", "%9"])
      expect(errorMeta(yield* call(layer, "list_panes", { window_id: "@9" })).code).toBe("not_found")
      expect(errorMeta(yield* call(layer, "list_panes", { session_id: "$0", window_id: "@0" })).code).toBe("invalid_input")
      expect(errorMeta(yield* call(layer, "list_panes", { limit: 5000 })).code).toBe("invalid_input")
    }))

  it.effect("marks the caller's pane only when socket and server pid match", () =>
    Effect.gen(function*() {
      const mine = okResult(yield* call(fakeLayer(bigWorld(), { env: callerEnv(DEFAULT, PID, "%10") }), "list_panes"))
      expect(mine.items.filter((p: any) => p.is_caller === true).map((p: any) => p.pane_id)).toEqual(["%10"])
      expect(mine.items.every((p: any) => p.is_caller !== null)).toBe(true)
      const restarted = okResult(yield* call(fakeLayer(bigWorld(), { env: callerEnv(DEFAULT, PID + 1, "%10") }), "list_panes"))
      expect(restarted.items.every((p: any) => p.is_caller === false)).toBe(true)
    }))

  it.effect("marks panes a person's client shows: all of the window, only the active one when zoomed, never for control mode", () =>
    Effect.gen(function*() {
      const attended = (spec: FakeServerSpec) =>
        call(fakeLayer(worldOf(spec)), "list_panes", { fields: ["is_attended"] }).pipe(
          Effect.map((result) => okResult(result).items.filter((p: any) => p.is_attended).map((p: any) => p.pane_id))
        )
      const sessions = (zoomed: boolean) => [
        { name: "a", windows: [{ zoomed, panes: [{}, {}, {}], activePane: 1 }, { panes: [{}] }] },
        { name: "b", windows: [{ panes: [{}] }] }
      ]
      expect(yield* attended({ sessions: sessions(false), clients: [{ session: "a" }] })).toEqual(["%0", "%1", "%2"])
      expect(yield* attended({ sessions: sessions(true), clients: [{ session: "a" }] })).toEqual(["%1"])
      expect(
        yield* attended({
          sessions: sessions(false),
          clients: [{ session: "a", flags: "attached,focused,control-mode,ignore-size,no-output,UTF-8" }]
        })
      ).toEqual([])
      expect(yield* attended({ sessions: sessions(false), clients: [{ session: "b" }] })).toEqual(["%4"])
      expect(yield* attended({ sessions: sessions(false) })).toEqual([])
    }))

  it.effect("is empty on a sessionless server, and no_server on a dead one", () =>
    Effect.gen(function*() {
      expect(okResult(yield* call(fakeLayer(worldOf({ sessions: [] })), "list_panes")).items).toEqual([])
      const dead = errorMeta(yield* call(fakeLayer(new Map()), "list_panes"))
      expect(dead.code).toBe("no_server")
      expect(dead.hint).not.toMatch(/call list_panes/i)
    }))
})

describe("get_session_info / get_window_info / get_pane_info", () => {
  it.effect("find objects by explicit id (and sessions by exact name)", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(bigWorld())
      expect(okResult(yield* call(layer, "get_session_info", { session_id: "$2" }))).toMatchObject({
        session_id: "$2",
        session_name: "beta",
        window_count: 2
      })
      expect(okResult(yield* call(layer, "get_session_info", { session_name: "alpha" })).session_id).toBe("$1")
      expect(okResult(yield* call(layer, "get_window_info", { window_id: "@2" }))).toMatchObject({
        window_id: "@2",
        session_id: "$2",
        window_name: "two"
      })
      expect(okResult(yield* call(layer, "get_pane_info", { pane_id: "%10" }))).toMatchObject({
        pane_id: "%10",
        window_id: "@1",
        session_id: "$1",
        is_caller: null
      })
    }))

  it.effect("fail with not_found for missing objects, naming the list tool", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(bigWorld())
      const session = errorMeta(yield* call(layer, "get_session_info", { session_name: "alp" }))
      expect(session.code).toBe("not_found")
      expect(session.hint).toContain("list_sessions")
      expect(errorMeta(yield* call(layer, "get_session_info", { session_id: "$9" })).code).toBe("not_found")
      const window = errorMeta(yield* call(layer, "get_window_info", { window_id: "@9" }))
      expect(window.code).toBe("not_found")
      expect(window.hint).toContain("list_windows")
      const pane = errorMeta(yield* call(layer, "get_pane_info", { pane_id: "%99" }))
      expect(pane.code).toBe("not_found")
      expect(pane.text).toContain("%99")
      expect(pane.hint).toContain("list_panes")
      expect(errorMeta(yield* call(layer, "get_session_info", { session_id: "$1", session_name: "alpha" })).code).toBe("invalid_input")
      expect(errorMeta(yield* call(fakeLayer(new Map()), "get_pane_info", { pane_id: "%1" })).code).toBe("no_server")
    }))

  it.effect("default to the caller's own pane, window and session inside tmux", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(bigWorld(), { env: callerEnv(DEFAULT, PID, "%11") })
      expect(okResult(yield* call(layer, "get_pane_info"))).toMatchObject({ pane_id: "%11", is_caller: true, window_id: "@2" })
      expect(okResult(yield* call(layer, "get_window_info"))).toMatchObject({ window_id: "@2", session_id: "$2" })
      expect(okResult(yield* call(layer, "get_session_info"))).toMatchObject({ session_id: "$2", session_name: "beta" })
      // An explicit id still wins.
      expect(okResult(yield* call(layer, "get_pane_info", { pane_id: "%3" }))).toMatchObject({ pane_id: "%3", is_caller: false })
    }))

  it.effect("refuse to guess outside tmux, or when the tools query another server", () =>
    Effect.gen(function*() {
      const outside = fakeLayer(bigWorld())
      for (
        const [tool, argument] of [
          ["get_pane_info", "pane_id"],
          ["get_window_info", "window_id"],
          ["get_session_info", "session_id"]
        ] as const
      ) {
        const meta = errorMeta(yield* call(outside, tool))
        expect(meta.code).toBe("invalid_input")
        expect(meta.text).toContain(`${argument} is required`)
        expect(meta.text).toContain("not running inside tmux")
      }
      const elsewhere = fakeLayer(bigWorld(), { env: callerEnv("/other/socket", PID, "%11") })
      const meta = errorMeta(yield* call(elsewhere, "get_pane_info", { socket_path: DEFAULT }))
      expect(meta.code).toBe("invalid_input")
      expect(meta.text).toContain("not the caller's server")
    }))
})

describe("lookups on a running server without sessions", () => {
  // tmux 3.3a answers every targeted command there with "no current target": the target does not exist.
  const empty = () => fakeLayer(worldOf({ sessions: [] }))

  it.effect("name the missing object as not_found, never failed or an empty page", () =>
    Effect.gen(function*() {
      const layer = empty()
      const cases: Array<[string, Record<string, string>, string]> = [
        ["get_pane_info", { pane_id: "%0" }, "list_panes"],
        ["capture_pane", { pane_id: "%0" }, "list_panes"],
        ["get_window_info", { window_id: "@0" }, "list_windows"],
        ["list_windows", { session_id: "$0" }, "list_sessions"],
        ["list_panes", { window_id: "@0" }, "list_windows"],
        ["list_panes", { session_id: "$0" }, "list_sessions"]
      ]
      for (const [tool, args, listTool] of cases) {
        const error = errorMeta(yield* call(layer, tool, args))
        expect(error.code, tool).toBe("not_found")
        expect(error.hint, tool).toContain(listTool)
      }
    }))

  it.effect("where_am_i reports the caller's pane as gone when its server has no sessions left", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(worldOf({ sessions: [] }), { env: callerEnv(DEFAULT, PID, "%4") })
      expect(okResult(yield* call(layer, "where_am_i"))).toMatchObject({
        inside_tmux: true,
        caller_status: "pane_gone",
        pane_id: null,
        server_running: true
      })
      const restarted = fakeLayer(worldOf({ sessions: [] }), { env: callerEnv(DEFAULT, PID + 1, "%4") })
      expect(okResult(yield* call(restarted, "where_am_i")).caller_status).toBe("server_gone")
    }))
})
