/**
 * Every service a tool needs, over `FakeTmux` instead of a real tmux: the same composition as
 * PrivateTmux's `layer`, with a configuration from `loadConfig`. By default TMUX_TMPDIR points at a
 * directory that does not exist, so nothing touches the disk and list_servers finds no socket files.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import { join } from "node:path"
import { type ResolvedSocket, SocketResolver } from "../../src/context/SocketResolver.js"
import { type ConfigFlags, loadConfig, type TmuxMcpConfigShape } from "../../src/context/TmuxMcpConfig.js"
import { callTool } from "../../src/mcp/CallTool.js"
import type { ServerServices } from "../../src/mcp/McpServer.js"
import { FakeTmux, FakeTmuxState, type FakeTmuxStateShape, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { servicesLayer } from "./PrivateTmux.js"
import { toolNamed } from "./runTool.js"

export const UID = 4242
export const FAKE_TMPDIR = "/nonexistent-etm-fake-tmpdir"

/** Where tmux would put the socket `name` for this test user. */
export const socketPathFor = (name = "default", tmpdir = FAKE_TMPDIR, uid = UID): string => join(tmpdir, `tmux-${uid}`, name)

export interface FakeOptions {
  /** Extra environment on top of a minimal one (e.g. TMUX / TMUX_PANE to fake a caller). */
  readonly env?: Record<string, string>
  readonly flags?: ConfigFlags
  readonly tmpdir?: string
  /** The user id (default UID): run_command's log directory must belong to the real user. */
  readonly uid?: number
}

export const fakeConfig = (options: FakeOptions = {}): TmuxMcpConfigShape => {
  const loaded = loadConfig({
    env: { PATH: "/usr/bin:/bin", HOME: "/home/fake", TMUX_TMPDIR: options.tmpdir ?? FAKE_TMPDIR, ...options.env },
    flags: options.flags ?? {},
    uid: options.uid ?? UID
  })
  if (Result.isFailure(loaded)) throw new Error(loaded.failure.message)
  return loaded.success
}

export type FakeServices = ServerServices | FakeTmuxState

export const fakeLayer = (world: FakeWorld, options: FakeOptions = {}): Layer.Layer<FakeServices> =>
  servicesLayer(fakeConfig(options), FakeTmux.layer(world))

/** `$TMUX` / `$TMUX_PANE` as tmux sets them for a pane of the server at `socketPath`. */
export const callerEnv = (socketPath: string, serverPid: number, paneId: string): Record<string, string> => ({
  TMUX: `${socketPath},${serverPid},0`,
  TMUX_PANE: paneId
})

/** Calls a tool the way the MCP bridge does. */
export const call = (layer: Layer.Layer<FakeServices>, name: string, args: unknown = {}): Effect.Effect<CallToolResult> =>
  callTool(toolNamed(name), args).pipe(Effect.provide(layer))

/** The fake's state behind a layer (the world and every command list received). */
export const fakeState = (layer: Layer.Layer<FakeServices>): Effect.Effect<FakeTmuxStateShape> => Effect.provide(FakeTmuxState, layer)

/** The JSON text of a result, for asserting that something never appears in it. */
export const resultText = (result: CallToolResult): string =>
  result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n")

/** The socket the tools target when a call names none (tmux's default socket, unless the options say otherwise). */
export const defaultSocket: Effect.Effect<ResolvedSocket, never, SocketResolver> = Effect.flatMap(
  SocketResolver,
  (resolver) => Effect.orDie(resolver.resolve())
)

/**
 * Operations over a fake world, as an embedder runs them: every service a tool has, the default
 * socket, and the fake's state (the world and every command list sent) to check what they did.
 */
export const fakeOperations = (world: FakeWorld, options: FakeOptions = {}) => {
  const layer = fakeLayer(world, options)
  const state = Effect.runSync(fakeState(layer))
  return {
    layer,
    state,
    /** Runs an operation on the default socket; the layer (and its Ownership finalizer) closes after it. */
    run: <A, E>(operation: (socket: ResolvedSocket) => Effect.Effect<A, E, FakeServices>): Effect.Effect<A, E> =>
      Effect.flatMap(defaultSocket, operation).pipe(Effect.provide(layer)),
    /** The commands (argv) of the invocations sent since `from`. */
    sentSince: (from: number) => state.invocations.slice(from).map((invocation) => invocation.commands)
  }
}
