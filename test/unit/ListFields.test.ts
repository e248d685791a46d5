/**
 * The list tools' `fields`: a compact default set per item, names for more (the key always), "all"
 * for every field there is; and tmux is asked only for what the fields returned need.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { SocketResolver } from "../../src/context/SocketResolver.js"
import { Pane, Session, Window } from "../../src/domain/Model.js"
import { listPanes, listSessions, listWindows } from "../../src/operations/hierarchy/Hierarchy.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { DEFAULT_PANE_FIELDS } from "../../src/tools/pane.js"
import { DEFAULT_SESSION_FIELDS } from "../../src/tools/session.js"
import { DEFAULT_WINDOW_FIELDS } from "../../src/tools/window.js"
import { call, fakeLayer, fakeState, socketPathFor } from "../support/fakeWorld.js"
import { errorMeta, okResult } from "../support/runTool.js"

const world = (): FakeWorld =>
  new Map([
    [
      socketPathFor(),
      FakeTmux.server({
        sessions: [
          { name: "main", windows: [{ name: "edit", panes: [{}, {}] }, { name: "logs" }] },
          { name: "other", windows: [{ link: "@0", index: 3 }] }
        ],
        clients: [{ session: "main" }]
      })
    ]
  ])

/**
 * Every field the models had before the compact defaults: fields "all" must keep returning each
 * (a pane's, and its placements since issue 31).
 */
const PANE_FIELDS_TODAY =
  "pane_id pane_index window_id window_index window_name session_id session_name active width height left top command cwd pid title dead in_mode is_caller is_attended placements placements_complete"
    .split(" ")
const WINDOW_FIELDS_TODAY =
  "window_id window_name window_index session_id session_name pane_count active zoomed width height layout active_pane_id".split(" ")
const SESSION_FIELDS_TODAY = "session_id session_name window_count session_attached session_created active_window_id active_pane_id".split(
  " "
)

/** The full listings of the library, encoded as the wire sends them. */
const fullListings = Effect.gen(function*() {
  const socket = yield* (yield* SocketResolver).resolve()
  return {
    panes: Schema.encodeSync(Schema.Array(Pane))((yield* listPanes(socket)).items),
    windows: Schema.encodeSync(Schema.Array(Window))((yield* listWindows(socket)).items),
    sessions: Schema.encodeSync(Schema.Array(Session))((yield* listSessions(socket)).items)
  }
})

/** The `-F` formats of the list commands of the last invocation. */
const formatsSent = (layer: ReturnType<typeof fakeLayer>) =>
  Effect.map(fakeState(layer), (state) => state.invocations.at(-1)!.commands.flat().join(" "))

describe("fields of the list tools", () => {
  it.effect("return the compact default set per item, in the model's order", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      const panes = okResult(yield* call(layer, "list_panes"))
      expect(panes.items).toHaveLength(3)
      for (const pane of panes.items) {
        expect(Object.keys(pane)).toEqual(PANE_FIELDS_TODAY.filter((f) => DEFAULT_PANE_FIELDS.includes(f as never)))
      }
      expect(panes.items[0]).toEqual({
        pane_id: "%0",
        pane_index: 0,
        window_id: "@0",
        window_index: 0,
        session_id: "$0",
        active: true,
        command: "bash",
        is_caller: null,
        is_attended: true
      })
      const windows = okResult(yield* call(layer, "list_windows"))
      expect(windows.items[0]).toEqual({
        window_id: "@0",
        window_name: "edit",
        window_index: 0,
        session_id: "$0",
        pane_count: 2,
        active: true
      })
      expect(windows.items.map((window: any) => Object.keys(window).length)).toEqual(windows.items.map(() => DEFAULT_WINDOW_FIELDS.length))
      const sessions = okResult(yield* call(layer, "list_sessions"))
      expect(sessions.items[0]).toEqual({ session_id: "$0", session_name: "main", window_count: 2, session_attached: 1 })
      expect(Object.keys(sessions.items[1])).toEqual([...DEFAULT_SESSION_FIELDS])
    }))

  it.effect("fields: \"all\" returns every field there is today, as the full listings of the library", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      const full = yield* Effect.provide(fullListings, layer)
      const panes = okResult(yield* call(layer, "list_panes", { fields: "all" })).items
      const windows = okResult(yield* call(layer, "list_windows", { fields: "all" })).items
      const sessions = okResult(yield* call(layer, "list_sessions", { fields: "all" })).items
      // The library's listPanes has no placements: @0 is linked into "other" too (index 3), @1 is not.
      expect(panes.map(({ placements: _placements, placements_complete: _complete, ...pane }: any) => pane)).toEqual(full.panes)
      expect(panes.map((pane: any) => [pane.pane_id, pane.placements, pane.placements_complete])).toEqual([
        [
          "%0",
          [{ session_id: "$0", session_name: "main", window_index: 0 }, { session_id: "$1", session_name: "other", window_index: 3 }],
          true
        ],
        [
          "%1",
          [{ session_id: "$0", session_name: "main", window_index: 0 }, { session_id: "$1", session_name: "other", window_index: 3 }],
          true
        ],
        ["%2", [{ session_id: "$0", session_name: "main", window_index: 1 }], true]
      ])
      expect(windows).toEqual(full.windows)
      expect(sessions).toEqual(full.sessions)
      for (const pane of panes) expect(Object.keys(pane)).toEqual(PANE_FIELDS_TODAY)
      for (const window of windows) expect(Object.keys(window)).toEqual(WINDOW_FIELDS_TODAY)
      for (const session of sessions) expect(Object.keys(session)).toEqual(SESSION_FIELDS_TODAY)
    }))

  it.effect("named fields come with the item's key, in the model's order", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      expect(okResult(yield* call(layer, "list_panes", { fields: ["cwd", "title"] })).items[0]).toEqual({
        pane_id: "%0",
        cwd: "/home/fake",
        title: "fake"
      })
      expect(okResult(yield* call(layer, "list_panes", { fields: ["is_attended", "pane_id"] })).items.map((p: any) => p.is_attended))
        .toEqual([true, true, false])
      // A window link is a window in a session: both ids, always.
      expect(okResult(yield* call(layer, "list_windows", { fields: ["layout"] })).items[1]).toEqual({
        window_id: "@0",
        session_id: "$1",
        layout: expect.any(String)
      })
      expect(okResult(yield* call(layer, "list_sessions", { fields: [] })).items[1]).toEqual({ session_id: "$1" })
    }))

  it.effect("ask tmux only for what the returned fields need: no /proc-read fields unless returned", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      okResult(yield* call(layer, "list_panes"))
      const compact = yield* formatsSent(layer)
      expect(compact).toContain("#{pane_current_command}")
      expect(compact).not.toContain("#{pane_current_path}")
      expect(compact).not.toContain("#{pane_title}")
      okResult(yield* call(layer, "list_panes", { fields: ["pane_index"] }))
      expect(yield* formatsSent(layer)).not.toContain("#{pane_current_command}")
      okResult(yield* call(layer, "list_windows"))
      expect(yield* formatsSent(layer)).not.toContain("#{window_layout}")
      // The window links are listed only for the placements, and only those of linked windows.
      expect(compact).not.toContain("list-windows")
      okResult(yield* call(layer, "list_panes", { fields: "all" }))
      expect(yield* formatsSent(layer)).toContain("#{pane_current_path}")
      expect(yield* formatsSent(layer)).toMatch(/"list-windows" "-a" "-f" "#{window_linked}"/)
    }))

  it.effect("refuse names that are no field, naming the argument", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      for (const fields of [["cwd", "nope"], "everything", [1]]) {
        const error = errorMeta(yield* call(layer, "list_panes", { fields }))
        expect(error.code).toBe("invalid_input")
        expect(error.text).toContain("fields")
      }
    }))
})
