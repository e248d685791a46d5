/**
 * Start directories on a remote host, over the fake tmux: `~` and relative paths are the remote
 * user's HOME's, nothing on this machine is looked at, and a directory the host does not have
 * (tmux starts the process in HOME instead, silently) fails the call and leaves nothing behind.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { RemoteHosts } from "../../src/context/RemoteHosts.js"
import { onHost } from "../../src/context/RemoteHosts.js"
import { resolveSocket } from "../../src/context/SocketResolver.js"
import { callTool } from "../../src/mcp/CallTool.js"
import { remoteStartDirectory, spawnArguments } from "../../src/operations/lifecycle/Spawn.js"
import { checkStartDirectory } from "../../src/operations/lifecycle/StartDirectoryCheck.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { fakeHostsLayer, fixedRemoteHosts, remoteKey, remoteSocketPath, remoteView } from "../support/fakeHosts.js"
import { errorMeta, okResult, toolNamed } from "../support/runTool.js"

const build = remoteView("build")
const HOME = build.home
const PATH = remoteSocketPath("default", build)
const KEY = remoteKey("build", PATH)

describe("remoteStartDirectory", () => {
  it("reads ~ and relative paths against the remote HOME, and normalizes", () => {
    expect(remoteStartDirectory("~", HOME)).toBe(HOME)
    expect(remoteStartDirectory("~/src/app", HOME)).toBe(`${HOME}/src/app`)
    expect(remoteStartDirectory("src/../app", HOME)).toBe(`${HOME}/app`)
    expect(remoteStartDirectory("/srv//app/", HOME)).toBe("/srv/app")
    // Only `~` and `~/…` are the HOME's, as on this machine.
    expect(remoteStartDirectory("~other", HOME)).toBe(`${HOME}/~other`)
  })
})

describe("spawnArguments on a remote host", () => {
  it.effect("passes the host's path without looking at this machine, and says what to check", () =>
    Effect.gen(function*() {
      const socket = { host: "build" }
      const spawn = yield* spawnArguments({ startDirectory: "~/nowhere-on-this-machine" }, socket)
      expect(spawn.flags).toEqual(["-c", `${HOME}/nowhere-on-this-machine`])
      expect(spawn.remoteDirectory).toEqual({ host: "build", directory: `${HOME}/nowhere-on-this-machine`, home: HOME })
      expect((yield* spawnArguments({}, socket)).remoteDirectory).toBeUndefined()
      // This machine, with a hosts file: checked here, as before.
      expect((yield* Effect.flip(spawnArguments({ startDirectory: "/nonexistent-etm-dir" }, { host: "local" }))).message).toContain(
        "does not exist"
      )
    }).pipe(Effect.provide(Layer.succeed(RemoteHosts, fixedRemoteHosts([build])))))
})

/** A server on host build with one session, on which only these directories exist. */
const worldWith = (directories: ReadonlyArray<string>): FakeWorld =>
  new Map([[KEY, FakeTmux.server({ sessions: [{ name: "base" }], directories, environment: { HOME } })]])

const call = (name: string, args: Record<string, unknown>) => callTool(toolNamed(name), { ...args, host: "build" })

describe("a start directory the host does not have", () => {
  it.live("is refused after the fact, and what was made is closed again", () => {
    const world = worldWith([HOME, "/srv/app"])
    const shape = () => {
      const server = world.get(KEY)!
      return {
        sessions: server.sessions.map((session) => session.name),
        panes: [...server.windows.values()].flatMap((window) => window.panes.map((pane) => pane.id))
      }
    }
    return Effect.gen(function*() {
      const before = shape()
      for (
        const [name, args] of [
          ["create_session", { start_directory: "/srv/missing" }],
          ["create_window", { session_id: "$0", start_directory: "~/missing" }],
          ["split_window", { pane_id: "%0", start_directory: "missing" }]
        ] as const
      ) {
        const error = errorMeta(yield* call(name, args))
        expect(error.code, name).toBe("invalid_input")
        expect(error.text, name).toContain("start_directory does not exist on host build (or cannot be entered there")
        expect(error.text, name).toContain("tmux started the process in the user's HOME there instead, so the new")
        expect(error.text, name).not.toContain("missing")
        expect(shape(), name).toEqual(before)
      }
      // A directory the host has: made, and there.
      const created = okResult(yield* call("create_session", { start_directory: "/srv/app" }))
      const split = okResult(yield* call("split_window", { pane_id: created.active_pane_id, start_directory: "~", fields: ["cwd"] }))
      expect(split.pane.cwd).toBe(HOME)
      // A respawn cannot be taken back: the error says where the pane runs now.
      const respawned = errorMeta(yield* call("respawn_pane", { pane_id: split.pane.pane_id, start_directory: "/srv/gone" }))
      expect(respawned.text).toContain(`pane ${split.pane.pane_id} was respawned there all the same`)
    }).pipe(Effect.provide(fakeHostsLayer(world, [build], { flags: { safety: "destructive" } })))
  })
})

describe("checkStartDirectory", () => {
  /** A pane on host build whose process is in `cwd` (or has ended). */
  const paneIn = (cwd: string, dead = false) => {
    const server = FakeTmux.server({ sessions: [{ name: "s", windows: [{ panes: [{ cwd, dead }] }] }], environment: { HOME } })
    return new Map([[KEY, server]])
  }
  const check = (world: FakeWorld, directory: string, commandGiven: boolean) =>
    Effect.gen(function*() {
      const socket = yield* onHost("build")(resolveSocket())
      return (yield* checkStartDirectory(socket, "%0", { host: "build", directory, home: HOME }, commandGiven))._tag
    }).pipe(Effect.provide(fakeHostsLayer(world, [build])))

  it.live("tells where tmux left the process from where it was asked to start", () =>
    Effect.gen(function*() {
      expect(yield* check(paneIn("/srv/app"), "/srv/app", false)).toBe("InPlace")
      // tmux's fallbacks: HOME and /, whatever started there.
      expect(yield* check(paneIn(HOME), "/srv/app", true)).toBe("FellBack")
      expect(yield* check(paneIn("/"), "/srv/app", true)).toBe("FellBack")
      // Elsewhere: the pane's own shell did not move (tmux 3.3a leaves it in the server's directory);
      // a command may have.
      expect(yield* check(paneIn("/var/lib"), "/srv/app", false)).toBe("FellBack")
      expect(yield* check(paneIn("/var/lib"), "/srv/app", true)).toBe("InPlace")
      // HOME asked for cannot be told from a fallback; an ended process tells nothing.
      expect(yield* check(paneIn("/var/lib"), HOME, false)).toBe("InPlace")
      expect(yield* check(paneIn("/srv/other", true), "/srv/app", false)).toBe("Unknown")
    }))
})
