/**
 * Results say their host: with a hosts file every result that names a socket carries `host`
 * (`local` or the host's name) and its socket_path is the path on that host; without one, results
 * and tools/list are what they were before hosts existed.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { callTool } from "../../src/mcp/CallTool.js"
import { describeTool } from "../../src/mcp/ToolList.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { allTools } from "../../src/tools/registry.js"
import { fakeHostsLayer, remoteKey, remoteSocketPath, remoteView } from "../support/fakeHosts.js"
import { callerEnv, fakeLayer, type FakeServices, socketPathFor } from "../support/fakeWorld.js"
import { okResult, toolNamed } from "../support/runTool.js"

const build = remoteView("build", { allowServerStart: true })
const REMOTE = remoteSocketPath("default", build)
const LOCAL = socketPathFor()

const world = (): FakeWorld =>
  new Map([
    [remoteKey("build", REMOTE), FakeTmux.server({ pid: 77, sessions: [{ name: "far" }] })],
    [LOCAL, FakeTmux.server({ pid: 77, sessions: [{ name: "near" }] })]
  ])

const call = (layer: Layer.Layer<FakeServices>, name: string, args: Record<string, unknown> = {}): Effect.Effect<CallToolResult> =>
  callTool(toolNamed(name), args).pipe(Effect.provide(layer))

/** The names of a JSON schema's properties, at every depth. */
const propertyNames = (schema: unknown): Array<string> => {
  if (Array.isArray(schema)) return schema.flatMap(propertyNames)
  if (typeof schema !== "object" || schema === null) return []
  return Object.entries(schema).flatMap(([key, value]) =>
    key === "properties" && typeof value === "object" && value !== null
      ? [...Object.keys(value), ...Object.values(value).flatMap(propertyNames)]
      : propertyNames(value)
  )
}

describe("results with a hosts file", () => {
  // The caller's $TMUX names this machine's server at the same path as the host's, another pid.
  const options = { flags: { safety: "destructive" as const }, env: callerEnv(REMOTE, 78, "%0") }

  it.effect("create_session, start_server, get_server_info and kill_server say the host; socket_path is the path there", () =>
    Effect.gen(function*() {
      const layer = fakeHostsLayer(world(), [build], options)
      const created = okResult(yield* call(layer, "create_session", { session_name: "new", host: "build" }))
      expect(created).toMatchObject({ host: "build", socket_name: "default", socket_path: REMOTE })
      // (This machine's default socket would be the caller's, from $TMUX: named here.)
      const near = okResult(yield* call(layer, "create_session", { session_name: "new", host: "local", socket_name: "default" }))
      expect(near).toMatchObject({ host: "local", socket_name: "default", socket_path: LOCAL })

      const info = okResult(yield* call(layer, "get_server_info", { host: "build" }))
      // The same path as the caller's server, another pid: not the caller's.
      expect(info).toMatchObject({ host: "build", socket_path: REMOTE, is_alive: true, pid: 77, is_caller_server: false })
      expect(okResult(yield* call(layer, "get_server_info", { host: "build", socket_name: "none" }))).toMatchObject({
        host: "build",
        is_alive: false,
        socket_path: join(build.socketDirectory, "none")
      })
      expect(okResult(yield* call(layer, "start_server", { host: "build", socket_name: "other" }))).toMatchObject({
        host: "build",
        started: true,
        socket_path: join(build.socketDirectory, "other")
      })
      expect(okResult(yield* call(layer, "kill_server", { host: "build", socket_name: "other" }))).toMatchObject({
        host: "build",
        killed: true,
        socket_path: join(build.socketDirectory, "other")
      })
    }))

  it.effect("where_am_i names the effective socket's host, and a remote server is not the caller's", () =>
    Effect.gen(function*() {
      const layer = fakeHostsLayer(world(), [build], options)
      expect(okResult(yield* call(layer, "where_am_i", { host: "build" }))).toMatchObject({
        effective_host: "build",
        effective_socket_name: "default",
        effective_socket_path: REMOTE,
        server_running: true,
        targets_caller_server: false
      })
      expect(okResult(yield* call(layer, "where_am_i", { socket_name: "default" }))).toMatchObject({
        effective_host: "local",
        effective_socket_path: LOCAL,
        targets_caller_server: false
      })
    }))

  it("tools/list shows host in the results that carry it, with hosts only", () => {
    const hosted = ["create_session", "start_server", "kill_server", "get_server_info", "list_servers"]
    for (const tool of allTools) {
      const without = propertyNames(describeTool(tool).outputSchema)
      expect(without, tool.name).not.toContain("host")
      expect(without, tool.name).not.toContain("effective_host")
      const withHosts = propertyNames(describeTool(tool, "destructive", ["build"]).outputSchema)
      if (hosted.includes(tool.name)) expect(withHosts, tool.name).toContain("host")
      if (tool.name === "where_am_i") expect(withHosts).toContain("effective_host")
    }
  })
})

describe("results without a hosts file", () => {
  it.effect("carry no host", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(new Map([[LOCAL, FakeTmux.server({ sessions: [{ name: "near" }] })]]), { flags: { safety: "destructive" } })
      for (
        const [name, args] of [
          ["create_session", { session_name: "new" }],
          ["get_server_info", {}],
          ["start_server", { socket_name: "other" }],
          ["kill_server", { socket_name: "other" }]
        ] as const
      ) {
        const result = okResult(yield* call(layer, name, args))
        expect(result, name).not.toHaveProperty("host")
      }
      expect(okResult(yield* call(layer, "where_am_i"))).not.toHaveProperty("effective_host")
    }))
})

describe("list_servers with a hosts file", () => {
  let base: string
  let listener: Server
  beforeAll(async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), "etm-unit-")))
    mkdirSync(join(base, "tmux-4242"))
    listener = createServer()
    await new Promise<void>((resolve) => listener.listen(join(base, "tmux-4242", "alpha"), resolve))
  })
  afterAll(async () => {
    await new Promise((resolve) => listener.close(resolve))
    rmSync(base, { recursive: true, force: true })
  })

  it.effect("says each server's host", () =>
    Effect.gen(function*() {
      const alpha = join(base, "tmux-4242", "alpha")
      const layer = fakeHostsLayer(new Map([[alpha, FakeTmux.server({ pid: 1, sessions: [] })]]), [build], { tmpdir: base })
      expect(okResult(yield* call(layer, "list_servers")).items).toEqual([
        { host: "local", socket_name: "alpha", socket_path: alpha, pid: 1, version: "3.3a", generation: "1.1700000000", session_count: 0 }
      ])
      const plain = fakeLayer(new Map([[alpha, FakeTmux.server({ pid: 1, sessions: [] })]]), { tmpdir: base })
      expect(okResult(yield* call(plain, "list_servers")).items[0]).not.toHaveProperty("host")
    }))
})
