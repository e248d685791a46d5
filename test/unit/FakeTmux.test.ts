import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ResolvedSocket } from "../../src/context/SocketResolver.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { commandLine } from "../../src/tmux/ControlProtocol.js"

const PATH = "/fake/tmux-1/main"
const socket: ResolvedSocket = { name: "main", path: PATH, rule: "LIBTMUX_SOCKET", flags: ["-L", "main"], label: `main (${PATH})` }

const twoSessions = () =>
  FakeTmux.server({
    pid: 100,
    sessions: [
      { name: "b", windows: [{ name: "editor", panes: [{}, {}] }] },
      { name: "a", windows: [{ name: "shell" }, { link: "@0", index: 5 }], current: 1 }
    ],
    clients: [{ session: "a" }, { session: "b", flags: "attached,focused,control-mode,no-output,UTF-8" }]
  })

const setup = (world: FakeWorld) => FakeTmux.make(world)

describe("FakeTmux", () => {
  it.effect("fails with NoServer on a dead socket, and -N never starts a server", () =>
    Effect.gen(function*() {
      const { tmux, state } = setup(new Map())
      const error = yield* Effect.flip(tmux.run(socket, [["start-server"], ["set-option", "-g", "exit-empty", "off"]]))
      expect(error).toMatchObject({ _tag: "NoServer", socket: `main (${PATH})` })
      expect(state.world.size).toBe(0)
      expect(state.invocations).toEqual([
        { socketPath: PATH, commands: [["start-server"], ["set-option", "-g", "exit-empty", "off"]], startServer: false }
      ])
      // Even without -N only start-server starts a server.
      expect((yield* Effect.flip(tmux.run(socket, [["list-sessions", "-F", "x"]], { startServer: true })))._tag).toBe("NoServer")
    }))

  it.effect("start-server alone leaves no server; with exit-empty off it stays, sessionless", () =>
    Effect.gen(function*() {
      const { tmux, state } = setup(new Map())
      expect(yield* tmux.run(socket, [["start-server"], ["display-message", "-p", "#{pid}"]], { startServer: true })).toMatch(/^\d+\n$/)
      expect(state.world.has(PATH)).toBe(false)
      expect((yield* Effect.flip(tmux.run(socket, [["display-message", "-p", "x"]])))._tag).toBe("NoServer")

      const pid = yield* tmux.run(socket, [["start-server"], ["set-option", "-g", "exit-empty", "off"], [
        "display-message",
        "-p",
        "#{pid} #{socket_path} #{version}"
      ]], {
        startServer: true
      })
      expect(pid).toBe(`${state.world.get(PATH)!.pid} ${PATH} 3.3a\n`)
      expect(yield* tmux.run(socket, [["list-sessions", "-F", "#{session_id}"]])).toBe("")
    }))

  it.effect("answers server-wide listings on a sessionless server with 'no current target', as tmux 3.3a does", () =>
    Effect.gen(function*() {
      const { tmux } = setup(new Map([[PATH, FakeTmux.server({ sessions: [] })]]))
      for (
        const command of [["list-panes", "-a", "-F", "x"], ["list-windows", "-a", "-F", "x"], ["list-clients", "-F", "x"], [
          "capture-pane",
          "-p",
          "-t",
          "%0"
        ]]
      ) {
        expect(yield* Effect.flip(tmux.run(socket, [command]))).toMatchObject({
          _tag: "Failed",
          reason: "exit",
          stderr: "no current target"
        })
      }
    }))

  it.effect("kill-server ends the server", () =>
    Effect.gen(function*() {
      const { tmux, state } = setup(new Map([[PATH, twoSessions()]]))
      yield* tmux.run(socket, [["kill-server"]])
      expect(state.world.size).toBe(0)
      expect((yield* Effect.flip(tmux.run(socket, [["list-sessions", "-F", "x"]])))._tag).toBe("NoServer")
    }))

  it.effect("stops at the first failing command, with tmux's errors classified", () =>
    Effect.gen(function*() {
      const { tmux, state } = setup(new Map([[PATH, twoSessions()]]))
      const error = yield* Effect.flip(
        tmux.run(socket, [["list-sessions", "-F", "#{session_id}"], ["list-panes", "-t", "%9", "-F", "x"], [
          "set-option",
          "-g",
          "exit-empty",
          "off"
        ]])
      )
      expect(error).toMatchObject({ _tag: "NotFound", kind: "pane", target: "%9" })
      expect(state.world.get(PATH)!.exitEmpty).toBe(true)
      expect(yield* Effect.flip(tmux.run(socket, [["list-windows", "-t", "@9", "-F", "x"]]))).toMatchObject({
        _tag: "NotFound",
        kind: "window",
        target: "@9"
      })
      expect(yield* Effect.flip(tmux.run(socket, [["list-panes", "-s", "-t", "$9", "-F", "x"]]))).toMatchObject({
        _tag: "NotFound",
        kind: "session",
        target: "$9"
      })
      expect(yield* Effect.flip(tmux.run(socket, [["capture-pane", "-p", "-t", "%9"]]))).toMatchObject({ _tag: "NotFound", kind: "pane" })
      expect(yield* Effect.flip(tmux.run(socket, [["list-panes", "-x"]]))).toMatchObject({
        _tag: "Failed",
        stderr: "command list-panes: unknown flag -x"
      })
      // Anything it does not model fails loudly rather than pretending.
      expect(yield* Effect.flip(tmux.run(socket, [["new-session"]]))).toMatchObject({
        _tag: "Failed",
        stderr: expect.stringContaining("does not model")
      })
      expect(yield* Effect.flip(tmux.run(socket, [["display-message", "-p", "#{t:session_created}"]]))).toMatchObject({ _tag: "Failed" })
    }))

  it.effect("lists in tmux's order with per-session context, linked windows once per session", () =>
    Effect.gen(function*() {
      const { tmux } = setup(new Map([[PATH, twoSessions()]]))
      // Sessions in name order; window_id/pane_id are the current window and its active pane.
      expect(
        yield* tmux.run(socket, [[
          "list-sessions",
          "-F",
          "#{session_id} #{session_name} #{session_windows} #{session_attached} #{window_id} #{pane_id}"
        ]])
      ).toBe(
        "$1 a 2 1 @0 %0\n$0 b 1 1 @0 %0\n"
      )
      expect(
        yield* tmux.run(socket, [[
          "list-windows",
          "-a",
          "-F",
          "#{session_id} #{window_id} #{window_index} #{window_active} #{window_panes}"
        ]])
      ).toBe(
        "$1 @1 0 0 1\n$1 @0 5 1 2\n$0 @0 0 1 2\n"
      )
      // A window target lists the windows of the (newest) session holding it.
      expect(yield* tmux.run(socket, [["list-windows", "-t", "@0", "-F", "#{session_id} #{window_id}"]])).toBe("$1 @1\n$1 @0\n")
      expect(yield* tmux.run(socket, [["list-panes", "-t", "%1", "-F", "#{pane_id} #{pane_index} #{pane_active} #{window_id}"]])).toBe(
        "%0 0 1 @0\n%1 1 0 @0\n"
      )
      expect(yield* tmux.run(socket, [["list-panes", "-s", "-t", "$0", "-F", "#{pane_id}"]])).toBe("%0\n%1\n")
      expect(yield* tmux.run(socket, [["list-panes", "-a", "-F", "#{session_id}:#{pane_id}"]])).toBe("$1:%2\n$1:%0\n$1:%1\n$0:%0\n$0:%1\n")
      expect(yield* tmux.run(socket, [["list-clients", "-F", "#{client_flags}|#{session_id}|#{window_id}|#{pane_id}"]])).toBe(
        "attached,focused,UTF-8|$1|@0|%0\nattached,focused,control-mode,no-output,UTF-8|$0|@0|%0\n"
      )
      // Record marks and ## are literal text of the format.
      expect(yield* tmux.run(socket, [["display-message", "-p", "\x1esrv\x1f#{pid}\x1f## #{no_such_variable}|"]])).toBe(
        "\x1esrv\x1f100\x1f# |\n"
      )
    }))

  it.effect("expands format loops like list-*-a, answers display-message -t, and runs if-shell -F's command line", () =>
    Effect.gen(function*() {
      const { tmux } = setup(new Map([[PATH, twoSessions()]]))
      // The loops visit what list-windows -a / list-panes -a list, in the same order, linked windows once per session.
      expect(yield* tmux.run(socket, [["display-message", "-p", "#{S:#{W:[#{session_id} #{window_id} #{window_index} #{pane_id}]}}"]]))
        .toBe(
          "[$1 @1 0 %2][$1 @0 5 %0][$0 @0 0 %0]\n"
        )
      expect(yield* tmux.run(socket, [["display-message", "-p", "#{S:#{W:#{P:#{session_id}:#{pane_id} }}}end"]])).toBe(
        "$1:%2 $1:%0 $1:%1 $0:%0 $0:%1 end\n"
      )
      // A pane target resolves like list-panes -t; a missing one leaves the fields empty.
      expect(yield* tmux.run(socket, [["display-message", "-p", "-t", "%1", "#{session_id} #{window_id} #{pane_id}"]])).toBe("$1 @0 %1\n")
      expect(yield* tmux.run(socket, [["display-message", "-p", "-t", "%9", "[#{pane_id}]"]])).toBe("[]\n")
      const line = commandLine([["list-clients", "-F", "\x1ecli\x1f#{session_id} \"$HOME\" ~ \\"]])
      expect(yield* tmux.run(socket, [["if-shell", "-F", "#{S:1}", line], ["display-message", "-p", "after"]])).toBe(
        "\x1ecli\x1f$1 \"$HOME\" ~ \\\n\x1ecli\x1f$0 \"$HOME\" ~ \\\nafter\n"
      )

      const empty = setup(new Map([[PATH, FakeTmux.server({ sessions: [] })]]))
      expect(yield* empty.tmux.run(socket, [["display-message", "-p", "[#{S:#{W:#{P:x}}}]"], ["if-shell", "-F", "#{S:1}", line]])).toBe(
        "[]\n"
      )
    }))

  it.effect("captures screen and history like capture-pane, wrapping at the pane width", () =>
    Effect.gen(function*() {
      const lines = Array.from({ length: 8 }, (_, i) => `line ${i}`)
      const server = FakeTmux.server({
        sessions: [{ name: "s", windows: [{ panes: [{ width: 10, height: 4, lines: [...lines, "0123456789abcde"] }] }] }]
      })
      const { tmux } = setup(new Map([[PATH, server]]))
      const capture = (...flags: Array<string>) => tmux.run(socket, [["capture-pane", "-p", "-t", "%0", ...flags]])
      // 10 rows: line 0..7 then the long line wrapped in two; the screen is the last 4.
      expect(yield* capture()).toBe("line 6\nline 7\n0123456789\nabcde\n")
      expect(yield* capture("-J")).toBe("line 6\nline 7\n0123456789abcde\n")
      expect(yield* capture("-S", "-2", "-E", "0")).toBe("line 4\nline 5\nline 6\n")
      expect((yield* capture("-S", "-")).split("\n").length - 1).toBe(10)
      expect(yield* capture("-S", "-100", "-E", "-5")).toBe("line 0\nline 1\n")

      const short = FakeTmux.server({ sessions: [{ name: "s", windows: [{ panes: [{ height: 5, lines: ["$ ls"] }] }] }] })
      const blank = setup(new Map([[PATH, short]]))
      expect(yield* blank.tmux.run(socket, [["capture-pane", "-p", "-t", "%0"]])).toBe("$ ls\n\n\n\n\n")
    }))
})
