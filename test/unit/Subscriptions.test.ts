/**
 * Screen subscriptions over the fake tmux, on the test clock: one tmux round trip per poll for every
 * subscribed pane of a server, an update only for a screen that changed, one last update for a pane
 * that closed, and no round trip once nothing is subscribed.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import { makeSubscriptions, POLL_INTERVAL_MS } from "../../src/mcp/Subscriptions.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { findPane, printInto } from "../../src/testing/internal/World.js"
import { Tmux } from "../../src/tmux/Tmux.js"
import { defaultSocket, fakeOperations, socketPathFor } from "../support/fakeWorld.js"

const DEFAULT = socketPathFor()
const screen = (paneId: string) => `tmux://pane/${encodeURIComponent(paneId)}/screen`

const world = (): FakeWorld =>
  new Map([[
    DEFAULT,
    FakeTmux.server({ sessions: [{ name: "s", windows: [{ panes: [{ lines: ["a"] }, { lines: ["b"] }, { lines: ["c"] }] }] }] })
  ]])

/** Lets the polling fiber finish a round the clock released. */
const settle = Effect.repeatN(Effect.yieldNow(), 50)

const poll = Effect.zipRight(TestClock.adjust(POLL_INTERVAL_MS), settle)

/** Two more poll periods send nothing to tmux (no subscription is left). */
const expectNoRoundTrips = (invocations: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const before = invocations.length
    yield* poll
    yield* poll
    expect(invocations.length).toBe(before)
  })

describe("screen subscriptions", () => {
  it.scoped("one round trip per poll for all panes, updates only on change, a closed pane's last update, nothing once unsubscribed", () => {
    const fake = fakeOperations(world())
    return Effect.gen(function*() {
      const updates: Array<string> = []
      const subscriptions = yield* makeSubscriptions((uri) => void updates.push(uri))
      for (const pane of ["%0", "%1", "%2"]) yield* subscriptions.subscribe(screen(pane))
      const sent = fake.state.invocations.length

      yield* poll
      expect(fake.sentSince(sent).map((commands) => commands.map((command) => command[0]))).toEqual([[
        "display-message",
        "capture-pane",
        "display-message",
        "capture-pane",
        "display-message",
        "capture-pane"
      ]])
      expect(updates).toEqual([])

      printInto(findPane(fake.state.world.get(DEFAULT)!, "%1")!.pane, "\nnew line")
      yield* poll
      expect(updates).toEqual([screen("%1")])

      const socket = yield* defaultSocket
      yield* Effect.flatMap(Tmux, (tmux) => tmux.run(socket, [["kill-pane", "-t", "%2"]]))
      yield* poll
      yield* poll
      expect(updates).toEqual([screen("%1"), screen("%2")])

      yield* subscriptions.unsubscribe(screen("%0"))
      yield* subscriptions.unsubscribe(screen("%1"))
      yield* expectNoRoundTrips(fake.state.invocations)
      expect(updates).toHaveLength(2)
    }).pipe(Effect.provide(Layer.fresh(fake.layer)))
  })

  it.scoped("a server that stops ends its subscriptions, each with one last update, and polling stops", () => {
    const fake = fakeOperations(world())
    return Effect.gen(function*() {
      const updates: Array<string> = []
      const subscriptions = yield* makeSubscriptions((uri) => void updates.push(uri))
      yield* subscriptions.subscribe(screen("%0"))
      yield* subscriptions.subscribe(screen("%1"))
      const socket = yield* defaultSocket
      yield* Effect.flatMap(Tmux, (tmux) => tmux.run(socket, [["kill-server"]]))
      yield* poll
      expect([...updates].sort()).toEqual([screen("%0"), screen("%1")])
      yield* expectNoRoundTrips(fake.state.invocations)
      expect(updates).toHaveLength(2)
    }).pipe(Effect.provide(Layer.fresh(fake.layer)))
  })
})
