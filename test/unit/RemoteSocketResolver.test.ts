/**
 * Sockets on a remote host (issue 22): names and paths are the host's, found in its socket
 * directory (RemoteHosts' discovery); this machine's settings that name a path never apply there.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { type HostsConfig, parseHostsFile } from "../../src/context/HostsConfig.js"
import { onHost, type RemoteHostsShape, type RemoteHostView } from "../../src/context/RemoteHosts.js"
import { makeSocketResolver } from "../../src/context/SocketResolver.js"
import { Failed } from "../../src/domain/Errors.js"
import { fakeConfig } from "../support/fakeWorld.js"

const hosts: HostsConfig = Result.getOrThrow(
  parseHostsFile(
    JSON.stringify({ hosts: { build: { ssh: "build-box" }, ci: { ssh: "me@ci.example.net", sockets: ["main", "ci"] } } }),
    "/h.json",
    "--hosts"
  )
)

const views: Record<string, RemoteHostView> = {
  build: {
    host: "build",
    uid: 1000,
    home: "/home/me",
    socketDirectory: "/tmp/tmux-1000",
    runDirectory: "/tmp/effect-tmux-mcp-1000",
    allowedSockets: undefined,
    allowServerStart: false
  },
  ci: {
    host: "ci",
    uid: 1001,
    home: "/home/ci",
    socketDirectory: "/run/t/tmux-1001",
    runDirectory: null,
    allowedSockets: ["main", "ci"],
    allowServerStart: true
  }
}

const remote: RemoteHostsShape = {
  names: ["build", "ci"],
  view: (host) =>
    host in views
      ? Effect.succeed(views[host]!)
      : Effect.fail(new Failed({ command: "connect", reason: "host", exitCode: null, stderr: "down" }))
}

const resolverWith = (env: Record<string, string> = {}) => makeSocketResolver({ ...fakeConfig({ env }), hosts }, remote)

describe("SocketResolver on a remote host", () => {
  it("resolves a name in the host's socket directory, addressed by its path there, labelled with the host", () =>
    Effect.gen(function*() {
      const socket = yield* resolverWith().resolve({ socket_name: "work" }).pipe(onHost("build"))
      expect(socket).toEqual({
        host: "build",
        name: "work",
        path: "/tmp/tmux-1000/work",
        rule: "socket_name argument",
        flags: ["-S", "/tmp/tmux-1000/work"],
        label: "build:work (/tmp/tmux-1000/work)"
      })
    }).pipe(Effect.runPromise))

  it("defaults to the hosts file's first socket, else the configured name, else default; never this machine's socket path or $TMUX", () =>
    Effect.gen(function*() {
      expect(yield* resolverWith().resolve().pipe(onHost("ci"))).toMatchObject({ name: "main", rule: "hosts file" })
      expect(yield* resolverWith({ LIBTMUX_SOCKET: "dev" }).resolve().pipe(onHost("build"))).toMatchObject({
        name: "dev",
        rule: "LIBTMUX_SOCKET"
      })
      const local = { LIBTMUX_SOCKET_PATH: "/home/local/sock", TMUX: "/tmp/tmux-0/x,1,0" }
      expect(yield* resolverWith(local).resolve().pipe(onHost("build"))).toMatchObject({
        name: "default",
        path: "/tmp/tmux-1000/default",
        rule: "tmux default"
      })
    }).pipe(Effect.runPromise))

  it("takes a socket_path only inside the host's socket directory, and only the hosts file's sockets where it lists them", () =>
    Effect.gen(function*() {
      expect(yield* resolverWith().resolve({ socket_path: "/tmp/tmux-1000/x" }).pipe(onHost("build"))).toMatchObject({
        name: "x",
        host: "build"
      })
      for (const socket_path of ["/etc/passwd", "/tmp/tmux-1000/../tmux-0/x", "relative", "/tmp/tmux-1000/a b"]) {
        const refused = yield* Effect.flip(resolverWith().resolve({ socket_path }).pipe(onHost("build")))
        expect(refused._tag).toBe("InvalidInput")
      }
      const unlisted = yield* Effect.flip(resolverWith().resolve({ socket_name: "other" }).pipe(onHost("ci")))
      expect(unlisted.message).toContain("main, ci")
      for (const socket_name of ["../x", "-L", "a b", "x;y"]) {
        expect((yield* Effect.flip(resolverWith().resolve({ socket_name }).pipe(onHost("build"))))._tag).toBe("InvalidInput")
      }
    }).pipe(Effect.runPromise))

  it("stays on this machine without a host, with host local when a hosts file exists", () =>
    Effect.gen(function*() {
      const socket = yield* resolverWith().resolve({ socket_name: "here" })
      expect(socket.host).toBe("local")
      expect(socket.flags).toEqual(["-L", "here"])
      const plain = yield* makeSocketResolver(fakeConfig({})).resolve({ socket_name: "here" })
      expect("host" in plain).toBe(false)
    }).pipe(Effect.runPromise))

  it("refuses a host the file does not name, and passes the host's own error on", () =>
    Effect.gen(function*() {
      expect((yield* Effect.flip(resolverWith().resolve().pipe(onHost("elsewhere"))))._tag).toBe("InvalidInput")
      const down = makeSocketResolver({ ...fakeConfig({}), hosts }, { names: ["build", "gone"], view: remote.view })
      expect((yield* Effect.flip(down.resolve().pipe(onHost("gone"))))._tag).toBe("Failed")
    }).pipe(Effect.runPromise))
})
