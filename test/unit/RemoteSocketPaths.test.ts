/**
 * A remote host's socket path and pane ids are the host's: starting a server there never looks at
 * this machine's file system, and the caller's pane (this machine's $TMUX) is never one of the
 * host's, even when the path and the pane id are the same.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { callTool } from "../../src/mcp/CallTool.js"
import { FakeTmux } from "../../src/testing/FakeTmux.js"
import { fakeHostsLayer, remoteKey, remoteSocketPath, remoteView } from "../support/fakeHosts.js"
import { errorMeta, okResult, toolNamed } from "../support/runTool.js"

describe("a remote socket path", () => {
  let dir: string
  beforeAll(() => {
    dir = realpathSync(mkdtempSync(join(tmpdir(), "etm-unit-")))
    // On this machine, a regular file where the host's socket is: tmux there would not touch it.
    writeFileSync(join(dir, "default"), "not a socket")
    writeFileSync(join(dir, "default.lock"), "not a lock")
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it.effect("is not looked at here when a server is started on the host", () => {
    const build = remoteView("build", { socketDirectory: dir, allowServerStart: true })
    return Effect.gen(function*() {
      const call = (name: string, args: Record<string, unknown>) => callTool(toolNamed(name), args)
      expect(okResult(yield* call("start_server", { host: "build" }))).toMatchObject({ host: "build", started: true })
      expect(okResult(yield* call("create_session", { host: "build", socket_name: "other", allow_server_start: true })))
        .toMatchObject({ host: "build", server_started: true })
      // This machine's own path is still guarded.
      const local = errorMeta(yield* call("start_server", { host: "local", socket_path: join(dir, "default") }))
      expect(local.text).toContain("not a socket")
    }).pipe(Effect.provide(fakeHostsLayer(new Map(), [build])))
  })
})

describe("the caller's guards", () => {
  it.effect("are this machine's: a host's pane with the caller's path and id is not the caller's", () => {
    const build = remoteView("build")
    const path = remoteSocketPath("default", build)
    const world = new Map([[
      remoteKey("build", path),
      FakeTmux.server({ pid: 5, sessions: [{ name: "s", windows: [{ panes: [{}, {}] }] }] })
    ]])
    return Effect.gen(function*() {
      const call = (name: string, args: Record<string, unknown>) => callTool(toolNamed(name), { ...args, host: "build" })
      const panes = okResult(yield* call("list_panes", { fields: ["pane_id", "is_caller"] }))
      expect(panes.items).toEqual([{ pane_id: "%0", is_caller: false }, { pane_id: "%1", is_caller: false }])
      okResult(yield* call("send_keys", { pane_id: "%1", keys: "x", literal: true }))
      okResult(yield* call("kill_pane", { pane_id: "%1" }))
      // Own pane by default: there is none on another host.
      expect(errorMeta(yield* call("get_pane_info", {})).text).toContain("not the caller's server")
    }).pipe(
      Effect.provide(fakeHostsLayer(world, [build], { flags: { safety: "destructive" }, env: { TMUX: `${path},5,0`, TMUX_PANE: "%1" } }))
    )
  })

  it.effect("are this machine's when the caller is uncertain too", () => {
    const build = remoteView("build")
    const path = remoteSocketPath("default", build)
    const world = new Map([[remoteKey("build", path), FakeTmux.server({ sessions: [{ name: "s", windows: [{ panes: [{}, {}] }] }] })]])
    return Effect.gen(function*() {
      okResult(yield* callTool(toolNamed("kill_pane"), { pane_id: "%1", host: "build" }))
    }).pipe(Effect.provide(fakeHostsLayer(world, [build], { flags: { safety: "destructive" }, env: { TMUX_PANE: "%1" } })))
  })
})
