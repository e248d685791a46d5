/**
 * Operations are named with Effect.fn("Module.operation") (issue 11), so an error's trace and a
 * tracer's spans say which operation ran.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { resolveSocket } from "../../src/context/SocketResolver.js"
import { listSessions } from "../../src/operations/hierarchy/Hierarchy.js"
import { renameSession } from "../../src/operations/layout/Shape.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { Tmux } from "../../src/tmux/Tmux.js"
import { fakeLayer, socketPathFor } from "../support/fakeWorld.js"

const world = (): FakeWorld => new Map([[socketPathFor(), FakeTmux.server({ pid: 4242, sessions: [{ name: "main" }] })]])

describe("operation names", () => {
  it.effect("an operation's failure carries its name in the trace", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.flatMap(resolveSocket(), (socket) => renameSession(socket, "$0", "x", { generation: "1.1" })))
        .pipe(
          Effect.provide(fakeLayer(world()))
        )
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(Cause.pretty(exit.cause)).toContain("Shape.renameSession")
    }))

  it.effect("the transport runs inside the operation's span", () =>
    Effect.gen(function*() {
      const spans: Array<string> = []
      const layer = fakeLayer(world())
      const tmux = yield* Effect.provide(Tmux, layer)
      const spying = Tmux.of({
        run: (socket, commands, options) =>
          Effect.flatMap(Effect.option(Effect.currentSpan), (span) => {
            if (Option.isSome(span)) spans.push(span.value.name)
            return tmux.run(socket, commands, options)
          })
      })
      yield* Effect.flatMap(resolveSocket(), listSessions).pipe(Effect.provideService(Tmux, spying), Effect.provide(layer))
      expect(spans).toContain("Hierarchy.listSessions")
    }))
})
