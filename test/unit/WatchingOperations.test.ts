/**
 * operations/watching over FakeTmux: captures and snapshots, reading on from a cursor, waiting for
 * text while the pane prints (FakeTmux.print), searching panes, and wait-for channels (a signal
 * kept for the next wait, a wait that times out leaving its waiter behind, a server that dies).
 * The waits run on the live clock with short, generous bounds.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { capturePane } from "../../src/operations/watching/Capture.js"
import { signalChannel, waitForChannel } from "../../src/operations/watching/Channels.js"
import { captureSince } from "../../src/operations/watching/PaneCursor.js"
import { searchPanes } from "../../src/operations/watching/Search.js"
import { snapshotPane } from "../../src/operations/watching/Snapshot.js"
import { waitForText } from "../../src/operations/watching/TextWait.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { Tmux } from "../../src/tmux/Tmux.js"
import { fakeOperations, socketPathFor } from "../support/fakeWorld.js"

const DEFAULT = socketPathFor()
const numbered = (count: number, prefix = "line") => Array.from({ length: count }, (_, i) => `${prefix} ${i}`)

/** %0: 30 lines of history and a prompt, 10 rows high; %1 in copy mode; %2 narrow, wrapping. */
const world = (): FakeWorld =>
  new Map([
    [
      DEFAULT,
      FakeTmux.server({
        sessions: [
          {
            name: "main",
            windows: [
              {
                name: "build",
                panes: [{ height: 10, lines: [...numbered(30), "error: disk full", "$ "] }, {
                  height: 10,
                  inMode: true,
                  lines: ["copy me"]
                }]
              },
              { name: "narrow", panes: [{ width: 10, height: 5, lines: ["0123456789abcdef", "$ "] }] }
            ]
          }
        ]
      })
    ]
  ])

const paneOf = (w: FakeWorld, id: string) => FakeTmux.pane(w.get(DEFAULT)!, id)!.pane
const seconds = (s: number) => ({ seconds: s, clamped: false })

describe("capturePane / snapshotPane", () => {
  it.effect("captures the screen or a range, keeping the newest lines, joining wrapped ones when asked", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      const screen = yield* fake.run((socket) => capturePane(socket, "%0", { maxLines: 500, joinWrapped: false }))
      expect(screen).toMatchObject({ lines_total: 10, truncated: false })
      expect(screen.content.split("\n").slice(-2)).toEqual(["error: disk full", "$"])
      const tail = yield* fake.run((socket) => capturePane(socket, "%0", { start: "-", maxLines: 3, joinWrapped: false }))
      expect(tail).toMatchObject({
        content: "line 29\nerror: disk full\n$",
        lines_total: 32,
        lines_returned: 3,
        truncated: true,
        truncated_lines: 29
      })
      expect((yield* fake.run((socket) => capturePane(socket, "%2", { maxLines: 10, joinWrapped: true }))).content).toBe(
        "0123456789abcdef\n$"
      )
      expect(yield* Effect.flip(fake.run((socket) => capturePane(socket, "%9", { maxLines: 10, joinWrapped: false })))).toMatchObject({
        _tag: "NotFound",
        kind: "pane"
      })
    }))

  it.effect("snapshots the screen with the cursor, modes and history in one round trip", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      const snapshot = yield* fake.run((socket) => snapshotPane(socket, "%0"))
      expect(snapshot).toMatchObject({
        cursor_x: 2,
        cursor_y: 9,
        history_size: 22,
        height: 10,
        pane_in_mode: false,
        pane_mode: null,
        alternate_on: false,
        generation: "4242.1700000000"
      })
      expect(snapshot.content.endsWith("error: disk full\n$")).toBe(true)
      expect(yield* fake.run((socket) => snapshotPane(socket, "%1"))).toMatchObject({
        pane_in_mode: true,
        pane_mode: "copy-mode",
        scroll_position: 0,
        content: "copy me"
      })
      expect(fake.state.invocations).toHaveLength(2)
    }))
})

describe("captureSince", () => {
  it.effect("returns only what the pane printed after the cursor, rest of the cursor's line included", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      const first = yield* fake.run((socket) => captureSince(socket, "%0", { maxLines: 100 }))
      expect(first).toMatchObject({ content: "", missed: false })
      FakeTmux.print(paneOf(w, "%0"), "make\r\nbuilding\r\ndone\r\n$ ")
      const next = yield* fake.run((socket) => captureSince(socket, "%0", { cursor: first.cursor, maxLines: 100 }))
      expect(next).toMatchObject({ content: "make\nbuilding\ndone\n$", continues_line: true, missed: false })
      const again = yield* fake.run((socket) => captureSince(socket, "%0", { cursor: next.cursor, maxLines: 100 }))
      expect(again.content).toBe("")
    }))

  it.effect("refuses a cursor of another pane, or one that is not a cursor", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      const cursor = (yield* fake.run((socket) => captureSince(socket, "%0", { maxLines: 10 }))).cursor
      expect(yield* Effect.flip(fake.run((socket) => captureSince(socket, "%2", { cursor, maxLines: 10 })))).toMatchObject({
        _tag: "InvalidInput"
      })
      expect(yield* Effect.flip(fake.run((socket) => captureSince(socket, "%0", { cursor: "cs1.nope", maxLines: 10 })))).toMatchObject({
        _tag: "InvalidInput"
      })
    }))
})

describe("waitForText", () => {
  it.live("ends when a pattern appears in new output, not in what was there before", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      const printing = yield* Effect.forkChild(
        Effect.delay(Effect.sync(() => FakeTmux.print(paneOf(w, "%0"), "compiling\r\nerror: again\r\n$ ")), "150 millis")
      )
      const result = yield* fake.run((socket) => waitForText(socket, "%0", { patterns: ["error:"], timeout: seconds(5), maxLines: 10 }))
      yield* Fiber.join(printing)
      expect(result).toMatchObject({ outcome: "matched", matched_lines: [{ text: "error: again", pattern_index: 0 }], missed: false })
      expect(result.tail).toContain("compiling")
      expect(result.tail).not.toContain("disk full")
    }))

  it.live("times out when nothing matches, stops on a stop pattern, and sees a pane die", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      expect(yield* fake.run((socket) => waitForText(socket, "%0", { patterns: ["never"], timeout: seconds(0.3), maxLines: 10 })))
        .toMatchObject({ outcome: "timeout", matched_lines: [] })
      const stopping = yield* Effect.forkChild(Effect.delay(Effect.sync(() => FakeTmux.print(paneOf(w, "%0"), "FAILED\r\n")), "100 millis"))
      const stopped = yield* fake.run((socket) =>
        waitForText(socket, "%0", { patterns: ["passed"], stopPatterns: ["FAILED"], timeout: seconds(5), maxLines: 10 })
      )
      yield* Fiber.join(stopping)
      expect(stopped).toMatchObject({ outcome: "stopped", matched_lines: [{ text: "FAILED", pattern_index: 0 }] })
      const dying = yield* Effect.forkChild(Effect.delay(Effect.sync(() => (paneOf(w, "%0").dead = true)), "100 millis"))
      expect((yield* fake.run((socket) => waitForText(socket, "%0", { patterns: null, timeout: seconds(5), maxLines: 10 }))).outcome).toBe(
        "pane_died"
      )
      yield* Fiber.join(dying)
      expect(
        yield* Effect.flip(
          fake.run((socket) => waitForText(socket, "%0", { patterns: ["("], regex: true, timeout: seconds(1), maxLines: 10 }))
        )
      ).toMatchObject({ _tag: "InvalidInput" })
    }))
})

describe("searchPanes", () => {
  it.effect("finds matching lines in every pane's screen and history, in pane-id order", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      const result = yield* fake.run((socket) =>
        searchPanes(socket, {
          scope: {},
          fields: ["pane_id", "window_name", "session_name"],
          patterns: { patterns: ["error", "copy"] },
          historyLines: 1000,
          offset: 0,
          maxPanes: 10,
          maxMatchesPerPane: 10,
          maxBytes: 65_536
        })
      )
      expect(result).toMatchObject({ panes_total: 3, panes_searched: 3, panes_with_matches: 2, next_offset: null })
      expect(result.panes.map((p) => p.pane_id)).toEqual(["%0", "%1"])
      expect(result.panes[0]).toMatchObject({ window_name: "build", session_name: "main" })
      // Only the fields asked for (and the pane's id).
      expect(Object.keys(result.panes[0]!)).toEqual([
        "pane_id",
        "window_name",
        "session_name",
        "match_count",
        "matches",
        "matches_truncated"
      ])
      const scoped = yield* fake.run((socket) =>
        searchPanes(socket, {
          scope: { window_id: "@1" },
          fields: ["pane_id"],
          patterns: { patterns: ["error"] },
          historyLines: 1000,
          offset: 0,
          maxPanes: 10,
          maxMatchesPerPane: 10,
          maxBytes: 65_536
        })
      )
      expect(scoped).toMatchObject({ panes_total: 1, panes_with_matches: 0, panes: [] })
    }))
})

describe("wait-for channels", () => {
  it.live("a signal nobody waited for is kept for the next wait, which consumes it", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      expect(yield* fake.run((socket) => signalChannel(socket, "build-done"))).toEqual({ channel: "build-done", signalled: true })
      expect(yield* fake.run((socket) => waitForChannel(socket, "build-done", seconds(5)))).toMatchObject({ outcome: "signalled" })
      expect((yield* fake.run((socket) => waitForChannel(socket, "build-done", seconds(0.3)))).outcome).toBe("timeout")
    }))

  it.live("a wait ends with the signal; a timed-out waiter is left behind and takes the next signal", () =>
    Effect.gen(function*() {
      const fake = fakeOperations(world())
      const waiting = yield* Effect.forkChild(fake.run((socket) => waitForChannel(socket, "ready", seconds(5))))
      yield* Effect.sleep("150 millis")
      yield* fake.run((socket) => signalChannel(socket, "ready"))
      expect((yield* Fiber.join(waiting)).outcome).toBe("signalled")
      expect((yield* fake.run((socket) => waitForChannel(socket, "stale", seconds(0.2)))).outcome).toBe("timeout")
      // tmux never removes the departed waiter: the signal goes to it and is not kept.
      yield* fake.run((socket) => signalChannel(socket, "stale"))
      expect((yield* fake.run((socket) => waitForChannel(socket, "stale", seconds(0.2)))).outcome).toBe("timeout")
    }))

  it.live("a server that exits during the wait is server_died; none at all is NoServer", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w)
      const waiting = yield* Effect.forkChild(fake.run((socket) => waitForChannel(socket, "never", seconds(5))))
      yield* Effect.sleep("150 millis")
      // tmux releases every waiting client when the server exits, as if signalled.
      yield* fake.run((socket) => Effect.flatMap(Tmux, (tmux) => tmux.run(socket, [["kill-server"]])))
      const ended = yield* Fiber.join(waiting)
      expect(ended.outcome).toBe("server_died")
      expect(ended.elapsed_ms).toBeLessThan(4000)
      expect(w.size).toBe(0)
      expect(yield* Effect.flip(fake.run((socket) => waitForChannel(socket, "never", seconds(1))))).toMatchObject({ _tag: "NoServer" })
    }))
})
