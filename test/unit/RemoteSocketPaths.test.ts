/**
 * A remote host's socket path is the host's: starting a server there never looks at this
 * machine's file system, even when something of this machine sits at the same path.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { callTool } from "../../src/mcp/CallTool.js"
import { fakeHostsLayer, remoteView } from "../support/fakeHosts.js"
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
