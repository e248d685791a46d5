/**
 * The generation check lives in the operations (issue 11): a library caller passes `generation` to
 * any mutating operation and a restarted server (another generation) refuses it with NotFound (kind
 * server) after one probe, before any command of the operation is sent; the tools only pass it on.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ResolvedSocket } from "../../src/context/SocketResolver.js"
import { resolveSocket } from "../../src/context/SocketResolver.js"
import { runCommand } from "../../src/operations/commands/RunCommand.js"
import { setEnvironment, unsetEnvironment } from "../../src/operations/environment/Environment.js"
import { deleteBuffer, loadBuffer, pasteBuffer } from "../../src/operations/input/Buffers.js"
import { clearPane } from "../../src/operations/input/ClearPane.js"
import { sendKeys, sendKeysBatch } from "../../src/operations/input/Input.js"
import { pasteText } from "../../src/operations/input/Paste.js"
import {
  moveWindow,
  renameSession,
  renameWindow,
  resizePane,
  resizeWindow,
  selectLayout,
  selectPane,
  selectWindow,
  setPaneTitle,
  swapPanes,
  zoomPane
} from "../../src/operations/layout/Shape.js"
import { createSession, createWindow, respawnPane, splitWindow } from "../../src/operations/lifecycle/Create.js"
import { killPane, killSession, killWindow } from "../../src/operations/lifecycle/Teardown.js"
import { killServer, probeServer } from "../../src/operations/servers/Servers.js"
import { signalChannel, waitForChannel } from "../../src/operations/watching/Channels.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { fakeLayer, fakeState, socketPathFor } from "../support/fakeWorld.js"

const world = (): FakeWorld =>
  new Map([[socketPathFor(), FakeTmux.server({ pid: 4242, sessions: [{ name: "main", windows: [{ panes: [{}, {}] }] }] })]])

const STALE = "1.1"
const check = { generation: STALE }
const timeout = { seconds: 1, clamped: false }

type Mutation = (socket: ResolvedSocket) => Effect.Effect<unknown, unknown, any>

const MUTATIONS: ReadonlyArray<readonly [string, Mutation]> = [
  ["renameSession", (s) => renameSession(s, "$0", "new", check)],
  ["renameWindow", (s) => renameWindow(s, "@0", "new", check)],
  ["setPaneTitle", (s) => setPaneTitle(s, "%0", "title", check)],
  ["selectWindow", (s) => selectWindow(s, { window_id: "@0" }, check)],
  ["selectPane", (s) => selectPane(s, { pane_id: "%1" }, check)],
  ["selectLayout", (s) => selectLayout(s, "@0", "tiled", check)],
  ["resizePane", (s) => resizePane(s, "%0", { width: 20 }, check)],
  ["zoomPane", (s) => zoomPane(s, "%0", true, check)],
  ["resizeWindow", (s) => resizeWindow(s, "@0", { width: 100 }, check)],
  ["swapPanes", (s) => swapPanes(s, "%0", "%1", check)],
  ["moveWindow", (s) => moveWindow(s, "@0", { session_id: "$0" }, check)],
  ["createSession", (s) => createSession(s, { ...check })],
  ["createWindow", (s) => createWindow(s, "$0", { ...check })],
  ["splitWindow", (s) => splitWindow(s, "%0", { ...check })],
  ["respawnPane", (s) => respawnPane(s, "%0", { ...check })],
  ["killSession", (s) => killSession(s, "$0", check)],
  ["killWindow", (s) => killWindow(s, "@0", check)],
  ["killPane", (s) => killPane(s, "%0", check)],
  ["killServer", (s) => killServer(s, check)],
  ["sendKeys", (s) => sendKeys(s, "%0", { keys: "ls", ...check })],
  ["sendKeysBatch", (s) => sendKeysBatch(s, "%0", { operations: [{ keys: "ls" }], delayMs: 0, stopOnError: true, ...check })],
  ["pasteText", (s) => pasteText(s, "%0", { text: "hi", bracketed: true, enter: false, ...check })],
  ["clearPane", (s) => clearPane(s, "%0", { screen: true, ...check })],
  ["loadBuffer", (s) => loadBuffer(s, "b", "text", check)],
  ["pasteBuffer", (s) => pasteBuffer(s, "b", "%0", { bracketed: false, deleteAfter: false, ...check })],
  ["deleteBuffer", (s) => deleteBuffer(s, "b", check)],
  ["setEnvironment", (s) => setEnvironment(s, { global: true }, "NAME", "value", check)],
  ["unsetEnvironment", (s) => unsetEnvironment(s, { global: true }, "NAME", "unset", check)],
  [
    "runCommand",
    (s) =>
      runCommand(s, "%0", {
        command: "true",
        timeout,
        interruptOnTimeout: false,
        force: true,
        maxLines: 10,
        maxBytes: 1000,
        keepEscapes: false,
        ...check
      })
  ],
  ["signalChannel", (s) => signalChannel(s, "done", check)],
  ["waitForChannel", (s) => waitForChannel(s, "done", timeout, check)]
]

describe("the generation check of every mutating operation", () => {
  it.effect.each(MUTATIONS)(
    "%s: another generation is NotFound (server) after one probe, nothing else sent",
    ([, mutate]) =>
      Effect.gen(function*() {
        const layer = fakeLayer(world())
        // A failure (a defect would end the test), and this one.
        const error = yield* Effect.flip(Effect.flatMap(resolveSocket(), mutate)).pipe(Effect.provide(layer))
        expect(error).toMatchObject({ _tag: "NotFound", kind: "server", target: STALE })
        const sent = (yield* fakeState(layer)).invocations.map((invocation) => invocation.commands.map((command) => command[0]))
        expect(sent).toEqual([["display-message"]])
      })
  )

  it.effect("the server's own generation lets the operation go on to its commands", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(world())
      const socket = yield* Effect.provide(resolveSocket(), layer)
      const server = yield* Effect.provide(probeServer(socket), layer)
      const generation = server._tag === "Some" ? server.value.generation : "none"
      yield* Effect.exit(renameSession(socket, "$0", "new", { generation })).pipe(Effect.provide(layer))
      const sent = (yield* fakeState(layer)).invocations.map((invocation) => invocation.commands[0]?.[0])
      expect(sent).toEqual(["display-message", "display-message", "rename-session"])
    }))
})
