/**
 * Owned sessions over the fake tmux: released when the layer closes, on every server they were
 * made on, told apart by host (two hosts may have a server at the same path).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { callTool } from "../../src/mcp/CallTool.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { fakeHostsLayer, remoteKey, remoteSocketPath, remoteView } from "../support/fakeHosts.js"
import { socketPathFor } from "../support/fakeWorld.js"
import { okResult, toolNamed } from "../support/runTool.js"

const sessionNames = (world: FakeWorld, key: string) => world.get(key)?.sessions.map((session) => session.name)

describe("owned sessions", () => {
  it.effect("are killed when the layer closes on each host, two hosts' servers at the same path included", () =>
    Effect.gen(function*() {
      const build = remoteView("build")
      const gpu = remoteView("gpu")
      const path = remoteSocketPath("default", build)
      // The same path on both hosts (and, by chance, on this machine too).
      expect(remoteSocketPath("default", gpu)).toBe(path)
      const local = socketPathFor()
      const world: FakeWorld = new Map([
        [remoteKey("build", path), FakeTmux.server({ sessions: [{ name: "kept" }] })],
        [remoteKey("gpu", path), FakeTmux.server({ sessions: [{ name: "kept" }] })],
        [local, FakeTmux.server({ sessions: [{ name: "kept" }] })]
      ])
      const create = (host: string, name: string) =>
        Effect.map(
          callTool(toolNamed("create_session"), { session_name: name, owned: true, host }),
          (result) => expect(okResult(result)).toMatchObject({ owned: true, session_name: name })
        )
      yield* Effect.gen(function*() {
        yield* create("build", "mine-build")
        yield* create("gpu", "mine-gpu")
        yield* create("local", "mine-local")
        expect(sessionNames(world, remoteKey("build", path))).toEqual(["kept", "mine-build"])
        expect(sessionNames(world, remoteKey("gpu", path))).toEqual(["kept", "mine-gpu"])
      }).pipe(Effect.provide(fakeHostsLayer(world, [build, gpu])))
      // The layer closed: its finalizer killed what it owned, on every host, and nothing else.
      expect(sessionNames(world, remoteKey("build", path))).toEqual(["kept"])
      expect(sessionNames(world, remoteKey("gpu", path))).toEqual(["kept"])
      expect(sessionNames(world, local)).toEqual(["kept"])
    }))
})
