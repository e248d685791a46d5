/**
 * FakeTmux against tmux 3.3a: the same command lists, run on a private real server and on the
 * fake from the same start, must print the same (for the fields both can know: ids, indexes,
 * sizes, layouts, names, environments, buffers, options) and fail the same way (the error tmux's
 * stderr classifies to, with tmux's own text for the rest). This is what lets unit tests over the
 * fake stand for tmux. The tmux CLI is run directly (no transport), so the test runs once.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { spawnSync } from "node:child_process"
import { afterEach, describe, expect, it } from "vitest"
import type { ResolvedSocket } from "../../src/context/SocketResolver.js"
import { FakeTmux } from "../../src/testing/FakeTmux.js"
import { classifyFailure } from "../../src/tmux/Classify.js"
import { describeCommands, type TmuxCommand } from "../../src/tmux/Tmux.js"
import { makePrivateTmux, type PrivateTmux } from "../support/PrivateTmux.js"
import { tmuxVersion } from "../support/tmuxVersion.js"

type Answer = { readonly printed: string } | { readonly error: unknown }

interface Pair {
  readonly real: (commands: ReadonlyArray<TmuxCommand>, stdin?: string) => Answer
  readonly fake: (commands: ReadonlyArray<TmuxCommand>, stdin?: string) => Answer
}

const worlds: Array<PrivateTmux> = []
afterEach(() => {
  for (const world of worlds.splice(0)) world.dispose()
})

/** A fresh real server and a fresh fake, driven alike (the first list may start a server). */
const pair = (): Pair => {
  const world = makePrivateTmux()
  worlds.push(world)
  const socket: ResolvedSocket = {
    name: world.socketName,
    path: world.socketPath,
    rule: "LIBTMUX_SOCKET",
    flags: ["-L", world.socketName],
    label: world.socketName
  }
  const fake = FakeTmux.make(new Map())
  const classified = (stderr: string, commands: ReadonlyArray<TmuxCommand>) =>
    classifyFailure({ stderr, exitCode: 1, socketLabel: socket.label, command: describeCommands(commands) })
  return {
    real: (commands, stdin) => {
      const argv = commands.flatMap((command, i) => (i === 0 ? [...command] : [";", ...command]))
      const result = spawnSync("tmux", ["-f", "/dev/null", "-L", world.socketName, ...argv], {
        env: world.env,
        encoding: "utf8",
        timeout: 10_000,
        ...(stdin === undefined ? {} : { input: stdin })
      })
      return result.status === 0 ? { printed: result.stdout } : { error: classified(result.stderr, commands) }
    },
    fake: (commands, stdin) => {
      const outcome = Effect.runSync(
        Effect.result(fake.tmux.run(socket, commands, { startServer: true, ...(stdin === undefined ? {} : { stdin }) }))
      )
      return Result.isSuccess(outcome) ? { printed: outcome.success } : { error: outcome.failure }
    }
  }
}

const same = (both: Pair, commands: ReadonlyArray<TmuxCommand>, stdin?: string) => {
  const real = both.real(commands, stdin)
  expect(both.fake(commands, stdin), JSON.stringify(commands)).toEqual(real)
  return real
}

const GEOMETRY = "#{pane_index} #{pane_id} #{pane_width}x#{pane_height} #{pane_left},#{pane_top} #{pane_active}"
const panes = (target: string): TmuxCommand => ["list-panes", "-t", target, "-F", GEOMETRY]
const layout = (
  target: string
): TmuxCommand => ["display-message", "-p", "-t", target, "#{window_layout} #{window_width}x#{window_height} #{window_zoomed_flag}"]

const start = (both: Pair, name = "main") => same(both, [["new-session", "-d", "-s", name, "-x", "80", "-y", "24"]])

// FakeTmux models tmux 3.3a, its words included (3.5a says "lines invalid" where 3.3a says "size
// invalid"): the other versions of the matrix have nothing to be compared with.
describe.skipIf(tmuxVersion() !== "3.3a")("FakeTmux against tmux 3.3a", () => {
  it("splits, closes and resizes panes as tmux lays them out", () => {
    const both = pair()
    start(both)
    same(both, [["split-window", "-d", "-t", "%0"], panes("@0"), layout("@0")])
    same(both, [["split-window", "-d", "-h", "-t", "%0", "-l", "30"], panes("@0"), layout("@0")])
    same(both, [["split-window", "-b", "-t", "%1", "-l", "5"], panes("@0"), layout("@0")])
    same(both, [["split-window", "-d", "-v", "-t", "%2", "-l", "50%"], panes("@0"), layout("@0")])
    same(both, [["resize-pane", "-t", "%0", "-x", "20"], panes("@0"), layout("@0")])
    same(both, [["resize-pane", "-t", "%1", "-y", "3"], panes("@0"), layout("@0")])
    same(both, [["resize-pane", "-Z", "-t", "%2"], panes("@0"), layout("@0")])
    same(both, [["resize-pane", "-Z", "-t", "%2"], layout("@0")])
    same(both, [["kill-pane", "-t", "%3"], panes("@0"), layout("@0")])
    same(both, [["kill-pane", "-t", "%0"], panes("@0"), layout("@0")])
    same(both, [["resize-window", "-t", "@0", "-x", "100", "-y", "30"], panes("@0"), layout("@0")])
    same(both, [["resize-window", "-t", "@0", "-x", "60"], panes("@0"), layout("@0")])
  })

  it("applies the preset layouts and layout strings", () => {
    const both = pair()
    start(both)
    for (let i = 0; i < 4; i++) same(both, [["split-window", "-d", "-t", "%0", "-l", "3"]])
    for (const name of ["even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled", "even-h"]) {
      same(both, [["select-layout", "-t", "@0", name], panes("@0"), layout("@0")])
    }
    const saved = both.real([["display-message", "-p", "-t", "@0", "#{window_layout}"]]) as { printed: string }
    same(both, [["select-layout", "-t", "@0", "tiled"]])
    same(both, [["select-layout", "-t", "@0", "--", saved.printed.trim()], panes("@0"), layout("@0")])
    same(both, [["select-layout", "-t", "@0", "bogus"]])
    same(both, [["select-layout", "-t", "@0", "--", "bb62,159x48,0,0{79x48,0,0,79,48,80,0,80}"]])
    same(both, [["new-window", "-d"], ["select-layout", "-t", "@1", "--", saved.printed.trim()]])
  })

  it("selects, swaps and moves as tmux does", () => {
    const both = pair()
    start(both)
    same(both, [["split-window", "-t", "%0"], ["split-window", "-h", "-t", "%1"], panes("@0")])
    for (const direction of ["-U", "-D", "-L", "-R", "-U"]) same(both, [["select-pane", "-t", "@0", direction], panes("@0")])
    same(both, [["last-pane", "-t", "@0"], panes("@0")])
    same(both, [["swap-pane", "-d", "-s", "%0", "-t", "%2"], panes("@0"), layout("@0")])
    same(both, [["swap-pane", "-s", "%1", "-t", "%0"], panes("@0")])
    same(both, [["select-pane", "-t", "%1", "-T", "##title"], ["display-message", "-p", "-t", "%1", "#{pane_title}"]])
    // The name of a window tmux renames automatically follows its program, which a real shell changes as it starts.
    const windows: TmuxCommand = [
      "list-windows",
      "-a",
      "-F",
      "#{session_id} #{window_id} #{window_index} #{window_active} #{?automatic-rename,auto,#{window_name}}"
    ]
    same(both, [["new-window", "-d", "-n", "two"], ["new-window", "-d", "-t", "$0:5", "-n", "five"], windows])
    same(both, [["new-window", "-d", "-t", "$0:5"]])
    same(both, [["select-window", "-t", "@2"], ["next-window", "-t", "$0"], windows])
    same(both, [["previous-window", "-t", "$0"], ["last-window", "-t", "$0"], windows])
    same(both, [["new-session", "-d", "-s", "other", "-x", "80", "-y", "24"], ["move-window", "-d", "-s", "@1", "-t", "$1:"], windows])
    same(both, [["move-window", "-s", "@2", "-t", "$1:0"]])
    same(both, [["move-window", "-s", "@2", "-t", "$0:5"]])
    same(both, [["move-window", "-d", "-s", "@3", "-t", "$0:"], windows])
    same(both, [["rename-window", "-t", "@0", "a\tb$HOME"], ["rename-session", "-t", "$1", "x.y:z"], windows, [
      "list-sessions",
      "-F",
      "#{session_name}"
    ]])
    same(both, [["move-window", "-s", "@3", "-t", "$1:"], ["list-sessions", "-F", "#{session_id} #{session_name} #{session_windows}"]])
  })

  it("keeps environments, options and buffers as tmux does", () => {
    const both = pair()
    start(both)
    same(both, [
      ["set-environment", "-g", "ETM_A", "a\"b$c`d\\e"],
      ["set-environment", "-g", "-r", "ETM_R"],
      ["show-environment", "-s", "-g", "ETM_A"],
      ["show-environment", "-g", "ETM_R"],
      ["show-environment", "-s", "-g", "ETM_R"]
    ])
    same(both, [["set-environment", "-t", "$0", "ETM_S", "1"], ["set-environment", "-t", "$0", "-r", "ETM_T"], [
      "show-environment",
      "-s",
      "-t",
      "$0"
    ]])
    same(both, [["set-environment", "-t", "$0", "-u", "ETM_S"], ["show-environment", "-t", "$0"]])
    same(both, [["show-environment", "-g", "ETM_NONE"]])
    same(both, [["set-environment", "-g", "ETM_A"]])
    same(both, [["set-environment", "-g", "-u", "ETM_A", "x"]])
    same(both, [["set-option", "-p", "-t", "%0", "@etm", "v"], ["show-options", "-p", "-t", "%0", "-v", "@etm"], [
      "display-message",
      "-p",
      "-t",
      "%0",
      "[#{@etm}] #{==:#{@etm},v} #{&&:#{@etm},0} #{m:v*,#{@etm}}"
    ]])
    same(both, [["set-option", "-p", "-u", "-t", "%0", "@etm"], [
      "display-message",
      "-p",
      "-t",
      "%0",
      "[#{@etm}] #{exit-empty} #{exit-unattached} #{history-limit}"
    ]])
    same(both, [["set-option", "@owner", "me"], ["display-message", "-p", "-t", "$0", "#{@owner}"]])
    same(both, [["set-option", "-g", "exit-empty", "maybe"]])
    same(both, [["set-option", "-g", "no-such-option", "1"]])
    same(both, [["show-options", "-p", "-t", "%0", "-v", "@nope"]])
    same(both, [["load-buffer", "-b", "etm.one", "-"]], "first\nline")
    same(both, [["load-buffer", "-b", "etm.two", "-"]], "second")
    same(both, [["list-buffers", "-F", "#{buffer_name} #{buffer_size}", "-f", "#{m:etm.*,#{buffer_name}}"]])
    same(both, [["show-buffer", "-b", "etm.one"]])
    same(both, [["delete-buffer", "-b", "etm.one"], ["list-buffers", "-F", "#{buffer_name}"]])
    same(both, [["show-buffer", "-b", "etm.one"]])
    same(both, [["delete-buffer", "-b", "etm.one"]])
    same(both, [["paste-buffer", "-b", "etm.one", "-t", "%0"]])
  })

  it("fails with tmux's words", () => {
    const both = pair()
    start(both)
    same(both, [["split-window", "-d", "-t", "%0"]])
    const failing: ReadonlyArray<TmuxCommand> = [
      ["new-session", "-d", "-s", "main"],
      ["rename-session", "-t", "$9", "x"],
      ["new-window", "-t", "$9:"],
      ["new-window", "-d", "-t", "$0:0"],
      ["new-window", "-d", "-t", "@9"],
      ["split-window", "-t", "%9"],
      ["split-window", "-t", "%0", "-l", "abc"],
      ["kill-session", "-t", "$9"],
      ["kill-window", "-t", "@9"],
      ["kill-pane", "-t", "%9"],
      ["rename-window", "-t", "@9", "x"],
      ["set-environment", "-t", "$9", "A", "b"],
      ["show-environment", "-t", "$9"],
      ["send-keys", "-t", "%9", "x"],
      ["select-window", "-t", "@9"],
      ["select-pane", "-t", "%9"],
      ["resize-pane", "-t", "%0", "-x", "abc"],
      ["resize-window", "-t", "@0", "-x", "0"],
      ["swap-pane", "-d", "-s", "%9", "-t", "%0"],
      ["move-window", "-d", "-s", "@9", "-t", "$0:"],
      ["move-window", "-d", "-s", "@0", "-t", "$9:"],
      ["respawn-pane", "-t", "%0"],
      ["capture-pane", "-p", "-t", "%9"],
      ["list-windows", "-t", "=nosuch", "-F", "x"],
      ["list-panes", "-t", "%9", "-F", "x"],
      ["list-panes", "-x"],
      ["nosuchcommand"],
      ["wait-for"],
      ["display-message", "-p", "a", "b"],
      ["set-option", "-p", "-t", "%9", "@x", "y"],
      ["next-window", "-t", "$0"],
      ["last-window", "-t", "$0"],
      ["last-pane", "-t", "@0"],
      ["list-panes", "-t", "%9", "-F", "x"]
    ]
    for (const command of failing) same(both, [command, ["display-message", "-p", "not reached"]])
    // tmux parses the whole list before it runs any of it: a flag it refuses (3.3a has no
    // paste-buffer -S) in a later command leaves the buffer of an earlier one unloaded.
    same(both, [["load-buffer", "-b", "etm.s", "-"], ["paste-buffer", "-S", "-b", "etm.s", "-t", "%0"]], "x")
    same(both, [["rename-session", "-t", "$0", "renamed"], ["list-panes", "-x"]])
    same(both, [["list-buffers", "-F", "#{buffer_name}"], ["display-message", "-p", "#{session_name}"]])
    // A failure inside if-shell stops its own list only, and still fails the invocation.
    same(both, [["if-shell", "-F", "1", "\"list-panes\" \"-t\" \"%9\""], ["display-message", "-p", "after"]])
    // A target that does not resolve leaves display-message's fields empty, without an error.
    same(both, [["display-message", "-p", "-t", "%9", "[#{pane_id}]"]])
  })

  it("prints new objects with -P and closes what goes with a kill, the server last", () => {
    const both = pair()
    same(both, [["new-session", "-d", "-P", "-F", "#{session_id} #{window_id} #{pane_id} #{session_name}:", "-x", "80", "-y", "24"]])
    same(both, [["new-window", "-d", "-P", "-F", "#{window_index} #{window_id} #{pane_id}", "-t", "$0:"]])
    same(both, [["split-window", "-d", "-P", "-F", "#{pane_index} #{pane_id} #{window_id}", "-t", "@1"]])
    same(both, [["new-session", "-d", "-s", "b", "-P", "-x", "80", "-y", "24"], ["new-window", "-d", "-P", "-t", "$1:"]])
    const tree: TmuxCommand = ["display-message", "-p", "#{S:#{session_id}=#{W:#{window_id}(#{P:#{pane_id}})} }"]
    same(both, [tree])
    same(both, [["kill-pane", "-t", "%2"], tree])
    same(both, [["kill-pane", "-t", "%1"], tree])
    // $0's last window: the session goes with it.
    same(both, [["kill-window", "-t", "@0"], tree])
    same(both, [["kill-session", "-t", "$0"]])
    same(both, [["respawn-pane", "-k", "-t", "%3"], ["display-message", "-p", "-t", "%3", "#{pane_dead} #{pane_index}"]])
    // The last session: the list still runs to its end (the server exits after it, which a real
    // server does a moment later, so no call is made after it here).
    same(both, [["kill-session", "-t", "$1"], tree])
  })

  it("answers like tmux on a server without sessions", () => {
    const both = pair()
    same(both, [["start-server"], ["set-option", "-g", "exit-empty", "off"]])
    for (
      const command of [
        ["kill-session", "-t", "$0"],
        ["list-panes", "-t", "%0", "-F", "x"],
        ["list-windows", "-a", "-F", "x"],
        ["list-clients", "-F", "x"],
        ["set-environment", "-t", "$0", "A", "b"],
        ["set-option", "@o", "v"],
        ["set-option", "-p", "-t", "%0", "@x", "y"],
        ["display-message", "-p", "-t", "%0", "[#{pane_id}]"],
        ["if-shell", "-F", "#{S:1}", "\"list-clients\" \"-F\" \"x\""],
        ["list-sessions", "-F", "x"],
        ["show-buffer", "-b", "x"]
      ] satisfies ReadonlyArray<TmuxCommand>
    ) {
      same(both, [command])
    }
  })
})
