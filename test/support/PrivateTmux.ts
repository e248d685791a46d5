/**
 * A private tmux world per test: its own TMUX_TMPDIR and socket name, `-f /dev/null`, no $TMUX.
 * Nothing here can touch the developer's default server. `dispose` kills the server and removes
 * the directory (socket files included).
 */
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  type ConfigFlags,
  loadConfig,
  type TmuxMcpConfig,
  type TmuxMcpConfigShape,
  type Transport,
  TRANSPORTS
} from "../../src/context/TmuxMcpConfig.js"
import type { ServerServices } from "../../src/mcp/McpServer.js"
import { Audit } from "../../src/services/Audit.js"
import { ServerLive } from "../../src/services/ServerLive.js"
import type { Tmux } from "../../src/tmux/Tmux.js"
import { TmuxExec } from "../../src/tmux/TmuxExec.js"
import { TmuxSocket } from "../../src/tmux/TmuxSocket.js"

export interface PrivateTmux {
  readonly socketName: string
  readonly tmpdir: string
  /** Where tmux puts the socket for `socketName` inside `tmpdir`. */
  readonly socketPath: string
  /** The environment for tmux (and our server) in this world. */
  readonly env: Record<string, string>
  /** Runs the real tmux CLI on this world's socket (for setting up and checking). */
  readonly tmux: (...args: Array<string>) => { readonly status: number; readonly stdout: string; readonly stderr: string }
  /** Like `tmux`, but throws on a non-zero exit. */
  readonly tmuxOk: (...args: Array<string>) => string
  /** Builds a configuration in this world; extra env (e.g. TMUX to fake a caller) and flags apply on top. */
  readonly config: (options?: { readonly env?: Record<string, string>; readonly flags?: ConfigFlags }) => TmuxMcpConfigShape
  /** Every service a tool needs, live, for this world (audit silenced). */
  readonly layer: (
    options?: { readonly env?: Record<string, string>; readonly flags?: ConfigFlags },
    tmuxLayer?: Layer.Layer<Tmux, never, TmuxMcpConfig>
  ) => Layer.Layer<ServerServices>
  readonly dispose: () => void
}

/**
 * The live transport tests run on: ETM_TEST_TRANSPORT=socket|exec (default socket, the
 * server's default). The integration suite runs once per transport (see vitest.config.ts).
 */
export const testTransport: Transport = (TRANSPORTS as ReadonlyArray<string>).includes(process.env.ETM_TEST_TRANSPORT ?? "")
  ? process.env.ETM_TEST_TRANSPORT as Transport
  : "socket"

const TRANSPORT_LAYERS: Record<Transport, Layer.Layer<Tmux, never, TmuxMcpConfig>> = {
  socket: TmuxSocket.layer,
  exec: TmuxExec.layer
}

export const defaultTmuxLayer: Layer.Layer<Tmux, never, TmuxMcpConfig> = TRANSPORT_LAYERS[testTransport]

/** Every service a tool needs over a given tmux layer (audit silenced): main.ts's ServerLive. */
export const servicesLayer = <Extra = never>(
  config: TmuxMcpConfigShape,
  // Extra carries what a fake transport adds (e.g. FakeTmuxState) through to the test.
  tmuxLayer: Layer.Layer<Tmux | Extra, never, TmuxMcpConfig> = defaultTmuxLayer as Layer.Layer<Tmux | Extra, never, TmuxMcpConfig>
): Layer.Layer<ServerServices | Extra> => ServerLive.layer(config, { tmux: tmuxLayer, audit: Audit.silent })

let counter = 0

export const makePrivateTmux = (): PrivateTmux => {
  const dir = mkdtempSync(join(tmpdir(), "etm-test-"))
  const socketName = `etm-test-${process.pid}-${++counter}`
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    TMUX_TMPDIR: dir,
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    // Shells that tests typed into would write their history into HOME (this directory) as the
    // server kills them, racing its removal.
    HISTFILE: "/dev/null"
  }
  const uid = process.getuid?.() ?? 0
  const tmux = (...args: Array<string>) => {
    const result = spawnSync("tmux", ["-f", "/dev/null", "-L", socketName, ...args], { env, encoding: "utf8", timeout: 10_000 })
    return { status: result.status ?? -1, stdout: result.stdout ?? "", stderr: result.stderr ?? "" }
  }
  const config = (options: { readonly env?: Record<string, string>; readonly flags?: ConfigFlags } = {}) => {
    const loaded = loadConfig({
      env: { ...env, ...options.env },
      flags: { socketName, tmuxConfigFile: "/dev/null", ...options.flags },
      uid
    })
    if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
    return loaded.right
  }
  return {
    socketName,
    tmpdir: dir,
    socketPath: join(dir, `tmux-${uid}`, socketName),
    env,
    tmux,
    tmuxOk: (...args) => {
      const result = tmux(...args)
      if (result.status !== 0) throw new Error(`tmux ${args.join(" ")} failed: ${result.stderr}`)
      return result.stdout
    },
    config,
    layer: (options, tmuxLayer) => servicesLayer(config(options), tmuxLayer),
    dispose: () => {
      tmux("kill-server")
      // Shells killed with the server may still be writing (e.g. history into HOME): retry.
      rmSync(dir, { recursive: true, force: true, maxRetries: 40, retryDelay: 50 })
    }
  }
}
