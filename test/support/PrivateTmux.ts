/**
 * A private tmux world per test: its own TMUX_TMPDIR and socket name, `-f /dev/null`, no $TMUX.
 * Nothing here can touch the developer's default server. `dispose` kills the server and removes
 * the directory (socket files included).
 *
 * Remote mode (ETM_TEST_HOST set, see testHost.ts; the vitest project `integration-remote`): the
 * world's tmux server lives in the remote world of a private sshd on loopback (PrivateSshd.ts),
 * one sshd per test file, started with the first world and stopped after the file (useWorlds'
 * afterAll) or at process exit. Then `env` is the remote world's (TMUX_TMPDIR and HOME of the
 * sshd's remote sessions), `socketPath` is the path on the remote side, `tmpdir` is a directory of
 * this world in the remote world (for files its panes read or write), and `config()` is the
 * product's on this machine: TMUX_TMPDIR and HOME are `productDir` (the world directory, as without
 * a host) and LIBTMUX_MCP_HOSTS names a hosts file with host ETM_TEST_HOST -> the sshd's alias,
 * its ssh_config, allow_server_start true. Same machine, same user, but no path of one side is a
 * path of the other.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Result from "effect/Result"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import {
  type ConfigFlags,
  loadConfig,
  TmuxMcpConfig,
  type TmuxMcpConfigShape,
  type Transport,
  TRANSPORTS
} from "../../src/context/TmuxMcpConfig.js"
import type { ServerServices } from "../../src/mcp/McpServer.js"
import { Audit } from "../../src/services/Audit.js"
import { ServerLive } from "../../src/services/ServerLive.js"
import type { Tmux } from "../../src/tmux/Tmux.js"
import { TmuxLive } from "../../src/tmux/TmuxLive.js"
import { type PrivateSshd, startPrivateSshd } from "./PrivateSshd.js"
import { endTmuxServers } from "./ServerTeardown.js"
import { testHost } from "./testHost.js"

export interface PrivateTmux {
  readonly socketName: string
  /** This world's directory on the server's side: TMUX_TMPDIR and HOME, or (remote mode) a directory in the remote world. */
  readonly tmpdir: string
  /** Where tmux puts the socket for `socketName`: inside `tmpdir`, or (remote mode) the path on the remote side. */
  readonly socketPath: string
  /** The environment for tmux in this world (and, without a host, for our server). */
  readonly env: Record<string, string>
  /** TMUX_TMPDIR and HOME of the product's configuration (`config()`): `tmpdir`, or in remote mode a local directory. */
  readonly productDir: string
  /** Remote mode: the host name tools get (ETM_TEST_HOST), the sshd and the hosts file; undefined otherwise. */
  readonly remote: RemoteWorld | undefined
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

const requestedTransport = process.env.ETM_TEST_TRANSPORT
if (requestedTransport !== undefined && !(TRANSPORTS as ReadonlyArray<string>).includes(requestedTransport)) {
  throw new Error(`ETM_TEST_TRANSPORT must be one of ${TRANSPORTS.join(", ")} (got ${requestedTransport})`)
}

/**
 * The live transport tests run on: ETM_TEST_TRANSPORT names one; unset, it is the server's own
 * default (what loadConfig picks when nothing asks), as in the version matrix's projects. The
 * integration suite runs once per transport and once per extra tmux version (see vitest.config.ts).
 */
export const testTransport: Transport = (requestedTransport as Transport | undefined) ??
  Result.getOrThrow(loadConfig({ env: {}, flags: {}, uid: 0 })).transport

/** The layer TmuxLive builds for `testTransport`, whatever transport the world's config names. */
export const defaultTmuxLayer: Layer.Layer<Tmux, never, TmuxMcpConfig> = Layer.unwrap(
  Effect.map(
    TmuxMcpConfig,
    (config) => TmuxLive.layer.pipe(Layer.provide(TmuxMcpConfig.layer({ ...config, transport: testTransport })))
  )
)

/** Every service a tool needs over a given tmux layer (audit silenced): main.ts's ServerLive. */
export const servicesLayer = <Extra = never>(
  config: TmuxMcpConfigShape,
  // Extra carries what a fake transport adds (e.g. FakeTmuxState) through to the test.
  tmuxLayer: Layer.Layer<Tmux | Extra, never, TmuxMcpConfig> = defaultTmuxLayer as Layer.Layer<Tmux | Extra, never, TmuxMcpConfig>
): Layer.Layer<ServerServices | Extra> => ServerLive.layer(config, { tmux: tmuxLayer, audit: Audit.silent })

let counter = 0

export interface RemoteWorld {
  readonly host: string
  readonly sshd: PrivateSshd
  /** The product's hosts file (LIBTMUX_MCP_HOSTS): `host` -> the sshd's alias. */
  readonly hostsFile: string
}

let remoteWorld: RemoteWorld | undefined

/** This test file's remote world, its sshd started on first use. */
const theRemoteWorld = (host: string): RemoteWorld => {
  if (remoteWorld === undefined) {
    const sshd = startPrivateSshd()
    // Login shells in remote panes read the remote HOME's profile.
    writeMatrixProfile(sshd.remote.home)
    remoteWorld = { host, sshd, hostsFile: sshd.writeHostsFile(host, { allow_server_start: true }) }
    process.once("exit", stopRemoteWorld)
  }
  return remoteWorld
}

/**
 * Ends this file's remote world, if one was started: every tmux server in it (the worlds' and any
 * the product started there), then the sshd and its directory.
 */
export const stopRemoteWorld = (): void => {
  const world = remoteWorld
  remoteWorld = undefined
  if (world === undefined) return
  process.removeListener("exit", stopRemoteWorld)
  const left = endTmuxServers([world.sshd.remote.socketDir])
  if (left.length > 0) {
    process.stderr.write(`PrivateTmux: processes ${left.join(", ")} of the remote world's tmux servers survived SIGKILL\n`)
  }
  world.sshd.stop()
}

/**
 * A project of the version matrix names its tmux (ETM_TEST_TMUX, test/support/setup.ts puts it
 * first on PATH). A login shell in a pane resets PATH from /etc/profile, and would find the system
 * tmux, which cannot talk to another version's server: the world's HOME gets a profile that puts
 * the wrapper first again.
 */
const writeMatrixProfile = (home: string) => {
  const requested = process.env.ETM_TEST_TMUX
  if (requested === undefined || requested === "") return
  const line = `PATH='${dirname(requested).replaceAll("'", `'\\''`)}':"$PATH"; export PATH\n`
  for (const profile of [".profile", ".zprofile"]) writeFileSync(join(home, profile), line)
}

export const makePrivateTmux = (): PrivateTmux => {
  const dir = mkdtempSync(join(tmpdir(), "etm-test-"))
  writeMatrixProfile(dir)
  const socketName = `etm-test-${process.pid}-${++counter}`
  const localEnv: Record<string, string> = {
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
  const remote = testHost === undefined ? undefined : theRemoteWorld(testHost)
  // Remote mode: the server side is the sshd's remote world; this world's own directory is made there.
  const serverDir = remote === undefined ? dir : mkdtempSync(join(remote.sshd.remote.tmpdir, "world-"))
  const env: Record<string, string> = remote === undefined ? localEnv : { ...remote.sshd.remoteEnv, TERM: localEnv.TERM! }
  const productEnv: Record<string, string> = remote === undefined ? localEnv : { ...localEnv, LIBTMUX_MCP_HOSTS: remote.hostsFile }
  const tmux = (...args: Array<string>) => {
    const result = spawnSync("tmux", ["-f", "/dev/null", "-L", socketName, ...args], { env, encoding: "utf8", timeout: 10_000 })
    return { status: result.status ?? -1, stdout: result.stdout ?? "", stderr: result.stderr ?? "" }
  }
  const socketPath = remote === undefined ? join(dir, `tmux-${uid}`, socketName) : remote.sshd.remoteSocketPath(socketName)
  const config = (options: { readonly env?: Record<string, string>; readonly flags?: ConfigFlags } = {}) => {
    const loaded = loadConfig({
      env: { ...productEnv, ...options.env },
      flags: { socketName, tmuxConfigFile: "/dev/null", ...options.flags },
      uid
    })
    if (Result.isFailure(loaded)) throw new Error(loaded.failure.message)
    return loaded.success
  }
  return {
    socketName,
    tmpdir: serverDir,
    socketPath,
    env,
    productDir: dir,
    remote,
    tmux,
    tmuxOk: (...args) => {
      const result = tmux(...args)
      if (result.status !== 0) throw new Error(`tmux ${args.join(" ")} failed: ${result.stderr}`)
      return result.stdout
    },
    config,
    layer: (options, tmuxLayer) => servicesLayer(config(options), tmuxLayer),
    dispose: () => {
      // The world's server and any other in its directories, with their panes' processes, which
      // may write into HOME (this directory) as they exit.
      const left = endTmuxServers([socketPath, serverDir, dir])
      if (left.length > 0) throw new Error(`processes of this world's tmux servers did not end: ${left.join(", ")}`)
      for (const path of new Set([serverDir, dir])) rmSync(path, { recursive: true, force: true })
    }
  }
}
