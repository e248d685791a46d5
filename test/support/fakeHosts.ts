/**
 * Every service a tool needs with a hosts file, over `FakeTmux` and without ssh: ServerLive with a
 * `RemoteHosts` of fixed views in place of the Connections layer. A remote
 * host's servers are the fake world's entries under `remoteKey(host, path)` (FakeTmux keys its
 * world by socketKey), so two hosts may hold a server at the same path.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { join } from "node:path"
import type { HostsConfig } from "../../src/context/HostsConfig.js"
import { RemoteHosts, type RemoteHostsShape, type RemoteHostView } from "../../src/context/RemoteHosts.js"
import type { TmuxMcpConfigShape } from "../../src/context/TmuxMcpConfig.js"
import { Failed } from "../../src/domain/Errors.js"
import { Audit } from "../../src/services/Audit.js"
import { ServerLive } from "../../src/services/ServerLive.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { fakeConfig, type FakeOptions, type FakeServices } from "./fakeWorld.js"

/** A remote host as discovery would find it: HOME /home/<host>, sockets in /tmp/tmux-1000 there. */
export const remoteView = (host: string, view: Partial<RemoteHostView> = {}): RemoteHostView => ({
  host,
  uid: 1000,
  home: `/home/${host}`,
  socketDirectory: "/tmp/tmux-1000",
  runDirectory: null,
  allowedSockets: undefined,
  allowServerStart: false,
  ...view
})

/** The path of socket `name` on a remote host of `remoteView`. */
export const remoteSocketPath = (name = "default", view: RemoteHostView = remoteView("x")): string => join(view.socketDirectory, name)

/** The fake world's key for a remote host's server (FakeTmux keys by socketKey). */
export const remoteKey = (host: string, path: string): string => `${host}\u0000${path}`

/** A hosts file naming these hosts (nothing reads it: the views stand in for discovery). */
export const hostsConfigFor = (views: ReadonlyArray<RemoteHostView>): HostsConfig => ({
  file: "/nonexistent-etm-hosts.json",
  sshConfig: undefined,
  hosts: views.map((view) => ({
    name: view.host,
    destination: view.host,
    sockets: view.allowedSockets,
    allowServerStart: view.allowServerStart,
    safety: undefined,
    connectTimeoutS: 5
  })),
  environment: {}
})

/** A configuration with these hosts. */
export const fakeHostsConfig = (views: ReadonlyArray<RemoteHostView>, options: FakeOptions = {}): TmuxMcpConfigShape => ({
  ...fakeConfig(options),
  hosts: hostsConfigFor(views)
})

/** RemoteHosts with fixed views; a host not among them cannot be reached. */
export const fixedRemoteHosts = (views: ReadonlyArray<RemoteHostView>): RemoteHostsShape => ({
  names: views.map((view) => view.host),
  view: (host) => {
    const view = views.find((candidate) => candidate.host === host)
    return view === undefined
      ? Effect.fail(new Failed({ command: "ssh", reason: "host", exitCode: null, stderr: `host ${host} cannot be reached` }))
      : Effect.succeed(view)
  }
})

/** ServerLive's services over the fake, with these remote hosts configured (and fixed views of them). */
export const fakeHostsLayer = (
  world: FakeWorld,
  views: ReadonlyArray<RemoteHostView>,
  options: FakeOptions = {}
): Layer.Layer<FakeServices> =>
  ServerLive.layer(fakeHostsConfig(views, options), {
    tmux: FakeTmux.layer(world),
    audit: Audit.silent,
    remoteHosts: Layer.succeed(RemoteHosts, fixedRemoteHosts(views))
  })
