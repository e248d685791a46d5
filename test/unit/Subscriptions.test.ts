/**
 * Screen subscriptions over the fake tmux, on the test clock: one tmux round trip per poll for every
 * subscribed pane of a server, an update only for a screen that changed, one last update for a pane
 * that closed, and no round trip once nothing is subscribed.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/testing/TestClock"
import { makeSubscriptions, MAX_SUBSCRIPTIONS, POLL_INTERVAL_MS, SUBSCRIBE_HOLDER, WEDGED_AFTER_MS } from "../../src/mcp/Subscriptions.js"
import { FakeTmux, FakeTmuxState, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { findPane, printInto } from "../../src/testing/internal/World.js"
import { Tmux } from "../../src/tmux/Tmux.js"
import { fakeHostsLayer, remoteKey, remoteSocketPath, remoteView } from "../support/fakeHosts.js"
import { defaultSocket, fakeConfig, fakeOperations, socketPathFor } from "../support/fakeWorld.js"
import { servicesLayer } from "../support/PrivateTmux.js"

const DEFAULT = socketPathFor()
const screen = (paneId: string) => `tmux://pane/${encodeURIComponent(paneId)}/screen`

const world = (): FakeWorld =>
  new Map([[
    DEFAULT,
    FakeTmux.server({ sessions: [{ name: "s", windows: [{ panes: [{ lines: ["a"] }, { lines: ["b"] }, { lines: ["c"] }] }] }] })
  ]])

/** Lets the polling fiber finish a round the clock released. */
const settle = Effect.repeat(Effect.yieldNow, { times: 50 })

const poll = Effect.andThen(TestClock.adjust(POLL_INTERVAL_MS), settle)

/** Two more poll periods send nothing to tmux (no subscription is left). */
const expectNoRoundTrips = (invocations: ReadonlyArray<unknown>) =>
  Effect.gen(function*() {
    const before = invocations.length
    yield* poll
    yield* poll
    expect(invocations.length).toBe(before)
  })

describe("screen subscriptions", () => {
  it.effect("one round trip per poll for all panes, updates only on change, a closed pane's last update, nothing once unsubscribed", () => {
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

  it.effect("a URI is watched while anyone holds it: one holder letting go leaves it to the other, the last one ends it", () => {
    const fake = fakeOperations(world())
    return Effect.gen(function*() {
      const updates: Array<string> = []
      const subscriptions = yield* makeSubscriptions((uri) => void updates.push(uri))
      const uri = screen("%0")
      const change = (text: string) => printInto(findPane(fake.state.world.get(DEFAULT)!, "%0")!.pane, `\n${text}`)
      yield* subscriptions.subscribe(uri, "subscriptions/listen number 1")
      const sent = fake.state.invocations.length
      yield* subscriptions.subscribe(uri, SUBSCRIBE_HOLDER)
      // The second holder joined without reading the pane again.
      expect(fake.state.invocations.length).toBe(sent)
      yield* poll
      expect(updates).toEqual([])

      // Someone who never held it lets go: nothing changes.
      yield* subscriptions.unsubscribe(uri, "subscriptions/listen number 2")
      change("one")
      yield* poll
      expect(updates).toEqual([uri])

      // The 2025 subscribe lets go: the listen still holds it.
      yield* subscriptions.unsubscribe(uri)
      change("two")
      yield* poll
      expect(updates).toEqual([uri, uri])

      // The listen lets go: the URI is dropped, polling stops, a change is not said.
      yield* subscriptions.unsubscribe(uri, "subscriptions/listen number 1")
      yield* expectNoRoundTrips(fake.state.invocations)
      change("three")
      yield* poll
      expect(updates).toEqual([uri, uri])
    }).pipe(Effect.provide(Layer.fresh(fake.layer)))
  })

  it.effect("a URI with two holders counts once against the cap, and until both let go", () => {
    const panes = MAX_SUBSCRIPTIONS + 1
    const fake = fakeOperations(
      new Map([[
        DEFAULT,
        FakeTmux.server({
          sessions: [{ name: "s", windows: [{ panes: Array.from({ length: panes }, (_, i) => ({ lines: [`p${i}`] })) }] }]
        })
      ]])
    )
    return Effect.gen(function*() {
      const subscriptions = yield* makeSubscriptions(() => undefined)
      const shared = screen("%0")
      yield* subscriptions.subscribe(shared, "subscriptions/listen number 1")
      yield* subscriptions.subscribe(shared, "subscriptions/listen number 2")
      for (let i = 1; i < MAX_SUBSCRIPTIONS; i++) yield* subscriptions.subscribe(screen(`%${i}`))
      const last = screen(`%${MAX_SUBSCRIPTIONS}`)
      const refused = yield* Effect.flip(subscriptions.subscribe(last))
      expect(refused._tag).toBe("InvalidInput")
      expect(refused.message).toContain(`at most ${MAX_SUBSCRIPTIONS} subscriptions at once`)

      // One holder lets go: the shared URI is still watched, so still no room.
      yield* subscriptions.unsubscribe(shared, "subscriptions/listen number 1")
      expect((yield* Effect.flip(subscriptions.subscribe(last)))._tag).toBe("InvalidInput")
      // A holder joining a watched URI is no new subscription, even at the cap.
      yield* subscriptions.subscribe(shared, "subscriptions/listen number 3")

      yield* subscriptions.unsubscribe(shared, "subscriptions/listen number 2")
      yield* subscriptions.unsubscribe(shared, "subscriptions/listen number 3")
      yield* subscriptions.subscribe(last)
    }).pipe(Effect.provide(Layer.fresh(fake.layer)))
  })

  it.effect("the 2025 subscribe is one holder: subscribing twice then unsubscribing once ends it", () => {
    const fake = fakeOperations(world())
    return Effect.gen(function*() {
      const updates: Array<string> = []
      const subscriptions = yield* makeSubscriptions((uri) => void updates.push(uri))
      const uri = screen("%1")
      yield* subscriptions.subscribe(uri)
      yield* subscriptions.subscribe(uri, SUBSCRIBE_HOLDER)
      printInto(findPane(fake.state.world.get(DEFAULT)!, "%1")!.pane, "\nchanged")
      yield* poll
      expect(updates).toEqual([uri])

      yield* subscriptions.unsubscribe(uri)
      yield* expectNoRoundTrips(fake.state.invocations)
      printInto(findPane(fake.state.world.get(DEFAULT)!, "%1")!.pane, "\nagain")
      yield* poll
      expect(updates).toEqual([uri])
    }).pipe(Effect.provide(Layer.fresh(fake.layer)))
  })

  it.effect("a server that stops ends its subscriptions, each with one last update, and polling stops", () => {
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

  it.effect("two hosts' servers at the same path are polled apart, each pane on its own host", () => {
    const build = remoteView("build")
    const gpu = remoteView("gpu")
    const path = remoteSocketPath("default", build)
    const fakeWorld: FakeWorld = new Map([
      [remoteKey("build", path), FakeTmux.server({ sessions: [{ name: "s", windows: [{ panes: [{ lines: ["on build"] }] }] }] })],
      [remoteKey("gpu", path), FakeTmux.server({ sessions: [{ name: "s", windows: [{ panes: [{ lines: ["on gpu"] }] }] }] })]
    ])
    return Effect.gen(function*() {
      const state = yield* FakeTmuxState
      const updates: Array<string> = []
      const subscriptions = yield* makeSubscriptions((uri) => void updates.push(uri))
      const onBuild = `${screen("%0")}?host=build`
      const onGpu = `${screen("%0")}?host=gpu`
      yield* subscriptions.subscribe(onBuild)
      yield* subscriptions.subscribe(onGpu)
      const sent = state.invocations.length
      yield* poll
      // One round trip per host: neither took the other's place.
      expect(state.invocations.slice(sent).map((invocation) => invocation.host).sort()).toEqual(["build", "gpu"])

      printInto(findPane(fakeWorld.get(remoteKey("gpu", path))!, "%0")!.pane, "\nchanged")
      yield* poll
      expect(updates).toEqual([onGpu])
      yield* subscriptions.unsubscribe(onGpu)
      yield* subscriptions.unsubscribe(onBuild)
      yield* expectNoRoundTrips(state.invocations)
    }).pipe(Effect.provide(Layer.fresh(fakeHostsLayer(fakeWorld, [build, gpu]))))
  })

  it.effect("a server that does not answer holds up no other: each server is polled on its own, the wedged one said and skipped", () => {
    const OTHER = socketPathFor("other")
    const fakeWorld: FakeWorld = new Map([
      ...world(),
      [OTHER, FakeTmux.server({ sessions: [{ name: "t", windows: [{ panes: [{ lines: ["x"] }] }] }] })]
    ])
    // A server in `stopped` never answers, as one under SIGSTOP (the call waits until interrupted).
    const stopped = new Set<string>()
    const tmuxLayer = Layer.flatMap(FakeTmux.layer(fakeWorld), (context) => {
      const tmux = Context.get(context, Tmux)
      return Layer.succeedContext(Context.add(context, Tmux, {
        ...tmux,
        run: (socket, commands, options) => stopped.has(socket.path) ? Effect.never : tmux.run(socket, commands, options)
      }))
    })
    const layer = servicesLayer(fakeConfig(), tmuxLayer)
    return Effect.gen(function*() {
      const state = yield* FakeTmuxState
      const updates: Array<string> = []
      const all: Array<string> = []
      const subscriptions = yield* makeSubscriptions((uri) => {
        updates.push(uri)
        all.push(uri)
      })
      const onOther = `${screen("%0")}?socket_path=${encodeURIComponent(OTHER)}`
      yield* subscriptions.subscribe(screen("%0"))
      yield* subscriptions.subscribe(onOther)
      stopped.add(OTHER)

      // Every poll period, whatever the stopped server does.
      for (let round = 0; round < 12; round++) {
        printInto(findPane(state.world.get(DEFAULT)!, "%0")!.pane, `\nround ${round}`)
        updates.length = 0
        yield* poll
        expect(updates, `round ${round}`).toContain(screen("%0"))
      }
      // 12 polls = 3 s: past WEDGED_AFTER_MS, the stopped server's URI was told once, not ended.
      expect(12 * POLL_INTERVAL_MS).toBeGreaterThan(WEDGED_AFTER_MS)
      expect(all.filter((uri) => uri === onOther)).toHaveLength(1)
      updates.length = 0
      stopped.delete(OTHER)
      for (let i = 0; i < (2 * WEDGED_AFTER_MS) / POLL_INTERVAL_MS; i++) yield* poll
      // Answering again, it is told again (a read now succeeds), and its subscription is still there.
      expect(updates).toContain(onOther)
      updates.length = 0
      printInto(findPane(state.world.get(OTHER)!, "%0")!.pane, "\nback")
      yield* poll
      expect(updates).toEqual([onOther])
    }).pipe(Effect.provide(Layer.fresh(layer)))
  })
})
