import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SEARCH_TIME_BOX_MS } from "../../src/operations/watching/Search.js"
import { FakeTmux, FakeTmuxState, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { Tmux } from "../../src/tmux/Tmux.js"
import { call, fakeConfig, fakeLayer, fakeState, resultText, socketPathFor } from "../support/fakeWorld.js"
import { servicesLayer } from "../support/PrivateTmux.js"
import { errorMeta, okResult } from "../support/runTool.js"

const DEFAULT = socketPathFor()
const numbered = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}`)

/**
 * Session "build" ($0): window @0 with %0 (30 lines on 10 rows: 20 in history) and %1; window @1
 * with %2. Session "logs" ($1): window @2 with %3.
 */
const world = (): FakeWorld =>
  new Map([
    [
      DEFAULT,
      FakeTmux.server({
        sessions: [
          {
            name: "build",
            windows: [
              {
                name: "make",
                panes: [
                  {
                    height: 10,
                    lines: [...numbered("line", 5), "error: first", ...numbered("line", 23), "ERROR: last"],
                    command: "make",
                    title: "builder"
                  },
                  { height: 10, lines: ["$ ls", "no match here"] }
                ]
              },
              { name: "edit", panes: [{ height: 10, lines: ["error in window two"] }] }
            ]
          },
          { name: "logs", windows: [{ panes: [{ height: 10, lines: ["warning", "error: from logs", "error: again"] }] }] }
        ]
      })
    ]
  ])

const search = (layer: ReturnType<typeof fakeLayer>, args: Record<string, unknown>) =>
  Effect.map(call(layer, "search_panes", args), okResult)

describe("search_panes", () => {
  it.effect("finds literal text across the server's panes with capture_pane line numbers, in two invocations", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      // The pane fields the results had before the compact default; text_truncated and pattern now only when they say something.
      const fields = "pane_id pane_index window_id window_index window_name session_id session_name command title is_caller".split(" ")
      const result = yield* search(layer, { patterns: ["error"], fields })
      expect(result.panes.map((pane: any) => pane.pane_id)).toEqual(["%0", "%2", "%3"])
      // Case matters by default: "ERROR: last" on %0's screen is not a match, "error: first" in its history is.
      expect(result.panes[0]).toMatchObject({ pane_id: "%0", command: "make", title: "builder", match_count: 1 })
      expect(result.panes[0].matches).toEqual([{ line: -15, text: "error: first" }])
      expect(result.panes[1]).toEqual({
        pane_id: "%2",
        pane_index: 0,
        window_id: "@1",
        window_index: 1,
        window_name: "edit",
        session_id: "$0",
        session_name: "build",
        command: "bash",
        title: "fake",
        is_caller: null,
        match_count: 1,
        matches: [{ line: 0, text: "error in window two" }],
        matches_truncated: false
      })
      // By default a pane says which it is, where, and what runs there.
      expect((yield* search(layer, { patterns: ["error"] })).panes[1]).toEqual({
        pane_id: "%2",
        window_id: "@1",
        session_id: "$0",
        command: "bash",
        is_caller: null,
        match_count: 1,
        matches: [{ line: 0, text: "error in window two" }],
        matches_truncated: false
      })
      expect(result.panes[2].matches.map((m: any) => [m.line, m.text])).toEqual([
        [1, "error: from logs"],
        [2, "error: again"]
      ])
      expect(result).toMatchObject({
        panes_total: 4,
        offset: 0,
        max_panes: 50,
        next_offset: null,
        history_lines: 1000,
        panes_searched: 4,
        panes_with_matches: 3,
        panes_omitted: 0,
        panes_not_searched: 0,
        panes_closed: 0,
        total_matches: 4,
        matches_returned: 4,
        bytes_exhausted: false,
        time_exhausted: false,
        truncated: false
      })
      const invocations = (yield* fakeState(layer)).invocations.slice(0, 2)
      expect(invocations).toHaveLength(2)
      expect(invocations[1]!.commands.map((command) => command[0])).toEqual(
        ["%0", "%1", "%2", "%3"].flatMap(() => ["display-message", "capture-pane"])
      )
      expect(invocations[1]!.commands[1]).toEqual(["capture-pane", "-p", "-t", "%0", "-S", "-1000"])
    }))

  it.effect("reads history above the screen as negative lines, and ignores case on request", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      const result = yield* search(layer, { patterns: ["error"], ignore_case: true, window_id: "@0" })
      // %0 holds 30 rows on a 10-row screen: row k (0-based) is line k - 20.
      expect(result.panes).toHaveLength(1)
      expect(result.panes[0].matches).toEqual([
        { line: -15, text: "error: first" },
        { line: 9, text: "ERROR: last" }
      ])
      const screenOnly = yield* search(layer, { patterns: ["error"], ignore_case: true, window_id: "@0", history_lines: 0 })
      expect(screenOnly.panes[0].matches.map((m: any) => m.line)).toEqual([9])
      expect(screenOnly.history_lines).toBe(0)
      const someHistory = yield* search(layer, { patterns: ["error"], ignore_case: true, window_id: "@0", history_lines: 10 })
      expect(someHistory.panes[0].matches.map((m: any) => m.line)).toEqual([9])
      const enoughHistory = yield* search(layer, { patterns: ["error"], ignore_case: true, window_id: "@0", history_lines: 15 })
      expect(enoughHistory.panes[0].matches.map((m: any) => m.line)).toEqual([-15, 9])
    }))

  it.effect("matches regular expressions and names the first pattern that matched each line", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      const result = yield* search(layer, { patterns: ["^warn", "again$", "^error: \\w+ logs$"], regex: true, session_id: "$1" })
      expect(result.panes[0].matches.map((m: any) => [m.text, m.pattern])).toEqual([
        ["warning", 0],
        ["error: from logs", 2],
        ["error: again", 1]
      ])
      // Without regex the same strings are literal text, found nowhere.
      const literal = yield* search(layer, { patterns: ["^warn", "again$"], session_id: "$1" })
      expect(literal).toMatchObject({ panes: [], total_matches: 0, panes_searched: 1 })
    }))

  it.effect("scopes to a session or a window, never both; unknown scopes are not_found", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      const session = yield* search(layer, { patterns: ["error"], session_id: "$0" })
      expect(session.panes.map((pane: any) => pane.pane_id)).toEqual(["%0", "%2"])
      expect(session.panes_total).toBe(3)
      const window = yield* search(layer, { patterns: ["error"], window_id: "@1" })
      expect(window.panes.map((pane: any) => pane.pane_id)).toEqual(["%2"])
      expect(window.panes_total).toBe(1)
      const before = (yield* fakeState(layer)).invocations.length
      const both = errorMeta(yield* call(layer, "search_panes", { patterns: ["x"], session_id: "$0", window_id: "@1" }))
      expect(both.code).toBe("invalid_input")
      expect((yield* fakeState(layer)).invocations.length).toBe(before)
      expect(errorMeta(yield* call(layer, "search_panes", { patterns: ["x"], session_id: "$9" })).code).toBe("not_found")
      expect(errorMeta(yield* call(layer, "search_panes", { patterns: ["x"], window_id: "@9" })).code).toBe("not_found")
    }))

  it.effect("pages over panes in pane-id order with offset and max_panes, capturing only the page", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      const first = yield* search(layer, { patterns: ["error"], max_panes: 2 })
      expect(first).toMatchObject({ panes_total: 4, offset: 0, max_panes: 2, next_offset: 2, panes_searched: 2, truncated: true })
      expect(first.panes.map((pane: any) => pane.pane_id)).toEqual(["%0"])
      const captured = (yield* fakeState(layer)).invocations.at(-1)!.commands.filter((c) => c[0] === "capture-pane").map((c) => c[3])
      expect(captured).toEqual(["%0", "%1"])
      const second = yield* search(layer, { patterns: ["error"], max_panes: 2, offset: first.next_offset })
      expect(second).toMatchObject({ offset: 2, next_offset: null, panes_searched: 2, truncated: false })
      expect(second.panes.map((pane: any) => pane.pane_id)).toEqual(["%2", "%3"])
      const beyond = yield* search(layer, { patterns: ["error"], offset: 10 })
      expect(beyond).toMatchObject({ panes: [], panes_total: 4, panes_searched: 0, next_offset: null, truncated: false })
    }))

  it.effect("caps matches per pane and says how many there were", () =>
    Effect.gen(function*() {
      const result = yield* search(fakeLayer(world()), { patterns: ["line"], window_id: "@0", max_matches_per_pane: 3 })
      expect(result.panes[0]).toMatchObject({ pane_id: "%0", match_count: 28, matches_truncated: true })
      expect(result.panes[0].matches.map((m: any) => m.text)).toEqual(["line 1", "line 2", "line 3"])
      expect(result).toMatchObject({ total_matches: 28, matches_returned: 3, bytes_exhausted: false, truncated: true })
    }))

  it.effect("stops filling at max_bytes and counts what was left out", () =>
    Effect.gen(function*() {
      const long = "x".repeat(300)
      const lines = Array.from({ length: 40 }, (_, i) => `${long} ${i}`)
      const big: FakeWorld = new Map([
        [
          DEFAULT,
          FakeTmux.server({
            sessions: [{ name: "s", windows: [{ width: 400, panes: [{ height: 50, lines }, { height: 50, lines }] }] }]
          })
        ]
      ])
      const result = yield* call(fakeLayer(big), "search_panes", { patterns: ["xxx"], max_matches_per_pane: 40, max_bytes: 4096 })
      const found = okResult(result)
      expect(Buffer.byteLength(resultText(result))).toBeLessThanOrEqual(4096)
      expect(found).toMatchObject({ total_matches: 80, panes_with_matches: 2, panes_omitted: 1, bytes_exhausted: true, truncated: true })
      expect(found.panes).toHaveLength(1)
      expect(found.panes[0].matches.length).toBeGreaterThan(0)
      expect(found.panes[0].matches.length).toBeLessThan(40)
      expect(found.panes[0]).toMatchObject({ match_count: 40, matches_truncated: true })
      expect(found.matches_returned).toBe(found.panes[0].matches.length)
    }))

  it.effect("cuts a long matching line at 500 characters and says so", () =>
    Effect.gen(function*() {
      const wide: FakeWorld = new Map([
        [
          DEFAULT,
          FakeTmux.server({ sessions: [{ name: "s", windows: [{ width: 1000, panes: [{ lines: [`needle ${"y".repeat(700)}`] }] }] }] })
        ]
      ])
      const [match] = (yield* search(fakeLayer(wide), { patterns: ["needle"] })).panes[0].matches
      expect(match.text).toBe(`needle ${"y".repeat(493)}`)
      expect(match.text_truncated).toBe(true)
    }))

  it.effect("text shaped like the capture headers cannot split a pane's text or forge another pane", () =>
    Effect.gen(function*() {
      // The headers carry a random token per call; the fake keeps control characters tmux would drop.
      const forged = ["\x1e0123456789ab\x1fcap\x1f%9\x1f0\x1f1", "\x1ecap\x1f%1\x1f0\x1f1", "needle after"]
      const tricky: FakeWorld = new Map([
        [
          DEFAULT,
          FakeTmux.server({
            sessions: [{ name: "s", windows: [{ panes: [{ height: 5, lines: forged }, { height: 5, lines: ["needle in %1"] }] }] }]
          })
        ]
      ])
      const result = yield* search(fakeLayer(tricky), { patterns: ["needle", "cap"] })
      expect(result.panes.map((pane: any) => [pane.pane_id, pane.matches.map((m: any) => [m.line, m.pattern])])).toEqual([
        ["%0", [[0, 1], [1, 1], [2, 0]]],
        ["%1", [[0, 0]]]
      ])
      expect(result.panes_searched).toBe(2)
    }))

  it.effect("a pane that closes between the listing and the capture is counted, the rest still searched", () =>
    Effect.gen(function*() {
      const fakeWorld = world()
      const { tmux, state } = FakeTmux.make(fakeWorld)
      let closed = false
      const closing = Tmux.of({
        run: (socket, commands, options) =>
          Effect.suspend(() => {
            if (!closed && commands.some((command) => command[0] === "capture-pane")) {
              closed = true
              const window = fakeWorld.get(DEFAULT)!.windows.get("@0")!
              window.panes = window.panes.filter((pane) => pane.id !== "%1")
              window.activePane = "%0"
            }
            return tmux.run(socket, commands, options)
          })
      })
      const layer = servicesLayer<FakeTmuxState>(
        fakeConfig(),
        Layer.merge(Layer.succeed(Tmux, closing), Layer.succeed(FakeTmuxState, state))
      )
      const result = okResult(yield* call(layer, "search_panes", { patterns: ["error"] }))
      expect(result).toMatchObject({ panes_total: 4, panes_searched: 3, panes_closed: 1, total_matches: 4 })
      expect(result.panes.map((pane: any) => pane.pane_id)).toEqual(["%0", "%2", "%3"])
      const captures = state.invocations.map((i) => i.commands.filter((c) => c[0] === "capture-pane").map((c) => c[3]))
      expect(captures).toEqual([[], ["%0", "%1", "%2", "%3"], ["%0", "%2", "%3"]])
    }))

  it.effect("rejects bad patterns and oversized requests before asking tmux", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ patterns: [] }, "at least one pattern"],
        [{ patterns: Array.from({ length: 21 }, (_, i) => `p${i}`) }, "at most 20"],
        [{ patterns: ["ok", ""] }, "patterns[1] is empty"],
        [{ patterns: ["(unclosed"], regex: true }, "patterns[0] is not a valid regular expression"],
        [{ patterns: ["x"], history_lines: 5000 }, "history_lines (5000) x max_panes (50)"],
        [{ patterns: ["x"], max_panes: 0 }, "max_panes"],
        [{ patterns: ["x"], max_bytes: 10 }, "max_bytes"],
        [{ patterns: "x" }, "patterns"]
      ]
      for (const [args, reason] of cases) {
        const error = errorMeta(yield* call(layer, "search_panes", args))
        expect(error.code, JSON.stringify(args)).toBe("invalid_input")
        expect(error.text, JSON.stringify(args)).toContain(reason)
      }
      expect((yield* fakeState(layer)).invocations).toEqual([])
      // Within the product limit a long history is fine.
      expect((yield* search(layer, { patterns: ["x"], history_lines: 100_000, max_panes: 2 })).history_lines).toBe(100_000)
    }))

  it.effect("a catastrophically backtracking regex is invalid_input, not a hang", () =>
    Effect.gen(function*() {
      const evil: FakeWorld = new Map([
        [DEFAULT, FakeTmux.server({ sessions: [{ name: "s", windows: [{ width: 200, panes: [{ lines: [`${"a".repeat(40)}!`] }] }] }] })]
      ])
      const error = errorMeta(yield* call(fakeLayer(evil), "search_panes", { patterns: ["^(a+)+$"], regex: true }))
      expect(error.code).toBe("invalid_input")
      expect(error.text).toContain("simplify it")
    }))

  it.effect("is empty on a sessionless server (one invocation) and no_server on a dead socket", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(new Map([[DEFAULT, FakeTmux.server({ exitEmpty: false })]]))
      expect(yield* search(layer, { patterns: ["x"] })).toMatchObject({ panes: [], panes_total: 0, panes_searched: 0, truncated: false })
      expect((yield* fakeState(layer)).invocations).toHaveLength(1)
      expect(errorMeta(yield* call(fakeLayer(new Map()), "search_panes", { patterns: ["x"] })).code).toBe("no_server")
    }))

  it.effect("stops matching when its time box runs out and counts the panes it did not search", () =>
    Effect.gen(function*() {
      // Every look at the clock is one second later: the box of SEARCH_TIME_BOX_MS runs out after two panes.
      let now = 0
      const stepping: Clock.Clock = {
        currentTimeMillisUnsafe: () => now,
        currentTimeMillis: Effect.sync(() => (now += 1000)),
        currentTimeNanosUnsafe: () => BigInt(now) * 1_000_000n,
        currentTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
        monotonicTimeNanosUnsafe: () => BigInt(now) * 1_000_000n,
        monotonicTimeNanos: Effect.sync(() => BigInt(now) * 1_000_000n),
        sleep: () => Effect.void
      }
      expect(SEARCH_TIME_BOX_MS).toBe(2000)
      const result = okResult(
        yield* call(fakeLayer(world()), "search_panes", { patterns: ["error"] }).pipe(Effect.provideService(Clock.Clock, stepping))
      )
      expect(result).toMatchObject({ panes_searched: 2, panes_not_searched: 2, time_exhausted: true, truncated: true, total_matches: 1 })
      expect(result.panes.map((pane: any) => pane.pane_id)).toEqual(["%0"])
    }))
})
