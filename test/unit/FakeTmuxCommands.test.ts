/**
 * The command table's own rules, where no operation's test shows them: argv read as tmux reads it
 * (aliases, prefixes, grouped flags, `--`, the optional-value quirk), the current session a
 * new-session sets for the rest of its list, what the fake refuses to make up (keys it has no
 * bytes for, `#(…)`, strftime escapes), if-shell's nested errors, and tmux's argv size limit.
 * test/integration/fake-fidelity.test.ts holds the same kind of facts against real tmux.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ResolvedSocket } from "../../src/context/SocketResolver.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"

const PATH = "/fake/tmux-1/main"
const socket: ResolvedSocket = { name: "main", path: PATH, rule: "LIBTMUX_SOCKET", flags: ["-L", "main"], label: `main (${PATH})` }

const setup = () => {
  const world: FakeWorld = new Map([[PATH, FakeTmux.server({ sessions: [{ name: "main", windows: [{ panes: [{}, {}] }] }] })]])
  const { tmux } = FakeTmux.make(world)
  const server = world.get(PATH)!
  return { tmux, server, pane: (id: string) => FakeTmux.pane(server, id)!.pane }
}

describe("FakeTmux's command table", () => {
  it.effect("reads names, aliases and unique prefixes, grouped flags and --, as tmux does", () =>
    Effect.gen(function*() {
      const { tmux, pane } = setup()
      expect(yield* tmux.run(socket, [["display", "-p", "#{pane_id}"]])).toBe("%0\n")
      expect(yield* tmux.run(socket, [["display-mess", "-pt%1", "#{pane_id}"]])).toBe("%1\n")
      yield* tmux.run(socket, [["send-keys", "-lt", "%1", "--", "-n"]])
      expect(pane("%1").input).toBe("-n")
      // tmux 3.3a reads a value-taking flag at the end of the argv as given without a value.
      expect(yield* tmux.run(socket, [["list-panes", "-F", "#{pane_id}", "-t"]])).toBe("%0\n%1\n")
      expect(yield* Effect.flip(tmux.run(socket, [["s", "x"]]))).toMatchObject({
        _tag: "Failed",
        stderr: expect.stringMatching(/^ambiguous command: s, could be: /)
      })
      expect(yield* Effect.flip(tmux.run(socket, [["rename-window", "a", "b"]]))).toMatchObject({
        stderr: "command rename-window: too many arguments (need at most 1)"
      })
      // A tmux command the table lacks says so, rather than passing for a command tmux does not have.
      expect(yield* Effect.flip(tmux.run(socket, [["link-window", "-s", "@0", "-t", "main:5"]]))).toMatchObject({
        stderr: "FakeTmux does not model link-window"
      })
      expect(yield* Effect.flip(tmux.run(socket, [["no-such-command"]]))).toMatchObject({ stderr: "unknown command: no-such-command" })
    }))

  it.effect("a new-session makes its session current for the rest of its own list only", () =>
    Effect.gen(function*() {
      const { tmux, server } = setup()
      expect(
        yield* tmux.run(socket, [["new-session", "-d", "-s", "fresh"], ["set-option", "@mark", "1"], [
          "display-message",
          "-p",
          "#{session_name}"
        ]])
      ).toBe("fresh\n")
      expect(server.sessions.map((s) => [s.name, s.options?.get("@mark")])).toEqual([
        ["main", undefined],
        ["fresh", "1"]
      ])
    }))

  it.effect("refuses what it would have to make up: keys without known bytes, #(…), strftime escapes", () =>
    Effect.gen(function*() {
      const { tmux, pane } = setup()
      for (const key of ["S-Up", "C-F5", "KP*"]) {
        expect(yield* Effect.flip(tmux.run(socket, [["send-keys", "-t", "%0", key]]))).toMatchObject({
          _tag: "Failed",
          stderr: expect.stringContaining("does not model")
        })
      }
      expect(yield* Effect.flip(tmux.run(socket, [["display-message", "-p", "#(id)"]]))).toMatchObject({
        stderr: expect.stringContaining("never runs")
      })
      expect(yield* Effect.flip(tmux.run(socket, [["rename-window", "-t", "@0", "#(reboot)"]]))).toMatchObject({
        stderr: expect.stringContaining("never runs")
      })
      expect(yield* Effect.flip(tmux.run(socket, [["pipe-pane", "-t", "%0", "cat > log.%H"]]))).toMatchObject({
        stderr: expect.stringContaining("strftime")
      })
      yield* tmux.run(socket, [["pipe-pane", "-t", "%0", "printf '%%s' ##x"]])
      expect(pane("%0").pipe).toBe("printf '%s' #x")
      // A word that is no key name is typed as text, as tmux does.
      yield* tmux.run(socket, [["send-keys", "-t", "%0", "NoSuchKey", "C-a", "M-x", "F5"]])
      expect(pane("%0").input).toBe("NoSuchKey\x01\x1bx\x1b[15~")
    }))

  it.effect("a failure inside if-shell stops its own list, the rest of the invocation runs, and the invocation fails", () =>
    Effect.gen(function*() {
      const { tmux, server } = setup()
      const error = yield* Effect.flip(
        tmux.run(socket, [[
          "if-shell",
          "-F",
          "1",
          "\"set-option\" \"@a\" \"1\" ; \"list-panes\" \"-t\" \"%9\" ; \"set-option\" \"@b\" \"1\""
        ], ["set-option", "@c", "1"]])
      )
      expect(error).toMatchObject({ _tag: "NotFound", kind: "pane", target: "%9" })
      const options = server.sessions[0]!.options!
      expect([options.get("@a"), options.get("@b"), options.get("@c")]).toEqual(["1", undefined, "1"])
    }))

  it.effect("refuses a list longer than one tmux invocation carries, and NUL in an argument, as the exec transport does", () =>
    Effect.gen(function*() {
      const { tmux, pane } = setup()
      const long = Array.from({ length: 100 }, () => ["send-keys", "-t", "%0", "x".repeat(200)])
      expect(yield* Effect.flip(tmux.run(socket, long))).toMatchObject({ _tag: "Failed", stderr: "command too long" })
      expect(yield* Effect.flip(tmux.run(socket, [["send-keys", "-t", "%0", "a\0b"]]))).toMatchObject({ _tag: "Failed", reason: "spawn" })
      expect(pane("%0").input).toBe("")
    }))
})
