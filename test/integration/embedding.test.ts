/**
 * The library face, used the way an embedding Effect application would: only the public entry
 * point (its namespaces), a TmuxMcpConfig from loadConfig, the live layers, and the operations called directly.
 * (The private world only sets up and tears down the tmux server under test.)
 */
import { it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import { describe, expect } from "vitest"
import { Capture, type Errors, Hierarchy, InvocationContext, Servers, SocketResolver, TmuxExec, TmuxMcpConfig } from "../../src/index.js"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"

const { world } = useWorlds()

/** What an application does at its edge: read its settings, compose the live layers. */
const tmuxLayer = (w: PrivateTmux, socketName = w.socketName) => {
  const config = TmuxMcpConfig.loadConfig({
    env: { PATH: process.env.PATH, HOME: w.env.HOME, TMUX_TMPDIR: w.tmpdir, LIBTMUX_SOCKET: socketName },
    flags: { tmuxConfigFile: "/dev/null" },
    uid: process.getuid!()
  })
  if (Result.isFailure(config)) throw new Error(config.failure.message)
  return Layer.mergeAll(TmuxExec.layer, SocketResolver.layer, InvocationContext.layer).pipe(
    Layer.provideMerge(TmuxMcpConfig.layer(config.success))
  )
}

describe("effect-tmux-mcp as a library", () => {
  it.live("lists panes, captures one and inspects the server through the public API", () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "app", "-x", "80", "-y", "24", "sh -c 'printf \"hello from tmux\\n\"; exec sleep 600'")
    w.tmuxOk("split-window", "-t", "app")
    return Effect.gen(function*() {
      yield* Effect.promise(() =>
        waitFor("the pane to print", () => w.tmuxOk("capture-pane", "-p", "-t", "%0").includes("hello from tmux"))
      )
      const socket = yield* Effect.flatMap(SocketResolver.SocketResolver, (resolver) => resolver.resolve())
      expect(socket).toMatchObject({ name: w.socketName, path: w.socketPath, rule: "LIBTMUX_SOCKET" })

      const { server, items } = yield* Hierarchy.listPanes(socket)
      expect(items.map((pane) => [pane.pane_id, pane.session_name, pane.is_caller])).toEqual([
        ["%0", "app", null],
        ["%1", "app", null]
      ])
      expect(server.socket_path).toBe(w.socketPath)

      const capture = yield* Capture.capturePane(socket, "%0", { maxLines: 10, joinWrapped: false })
      expect(capture).toMatchObject({ pane_id: "%0", content: "hello from tmux", truncated: false })

      const info = yield* Servers.serverInfo(socket)
      expect(info).toMatchObject({
        is_alive: true,
        pid: server.pid,
        generation: server.generation,
        session_count: 1,
        pane_count: 2
      })
    }).pipe(Effect.provide(tmuxLayer(w)))
  })

  it.live("a dead socket is a typed NoServer the application can catch by tag", () => {
    const w = world()
    return Effect.gen(function*() {
      const socket = yield* Effect.flatMap(SocketResolver.SocketResolver, (resolver) => resolver.resolve())
      const outcome = yield* Hierarchy.listPanes(socket).pipe(
        Effect.map(() => "listed"),
        Effect.catchTag("NoServer", (error: Errors.NoServer) => Effect.succeed(`no server on ${error.socket}`))
      )
      expect(outcome).toBe(`no server on ${socket.label}`)
      expect(outcome).toContain(w.socketPath)
      // serverInfo reports the same state as data instead.
      expect(yield* Servers.serverInfo(socket)).toMatchObject({ is_alive: false, pid: null })
      const missing = yield* Effect.flip(Capture.capturePane(socket, "%0", { maxLines: 10, joinWrapped: false }))
      expect(missing._tag).toBe("NoServer")
    }).pipe(Effect.provide(tmuxLayer(w)))
  })
})
