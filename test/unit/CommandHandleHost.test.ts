/**
 * run_command's handle and its host: a handle of this machine is the string it was before hosts
 * existed, one of a remote host carries the host under the signature, and a handle's socket is
 * found again on the host it names (never on this machine).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createHmac } from "node:crypto"
import { RemoteHosts } from "../../src/context/RemoteHosts.js"
import { SocketResolver } from "../../src/context/SocketResolver.js"
import { TmuxMcpConfig } from "../../src/context/TmuxMcpConfig.js"
import { type CommandHandle, decodeHandle, encodeHandle, handleSocket } from "../../src/operations/commands/CommandHandle.js"
import { fakeHostsConfig, fixedRemoteHosts, remoteSocketPath, remoteView } from "../support/fakeHosts.js"
import { fakeConfig } from "../support/fakeWorld.js"

const KEY = Buffer.alloc(32, 5)

const handle: CommandHandle = {
  id: "0123456789abcdef",
  secret: "0123456789abcdef0123456789abcdef",
  socket: "/tmp/tmux-1000/default",
  generation: "12.34",
  pane_id: "%3",
  pane_pid: 99,
  shell: "bash",
  source: "pipe",
  offset: 10,
  started: true,
  fetched_by: null,
  returned_lines: 2,
  typed_at: 1
}

const build = remoteView("build")

/** A resolver with the host `build` configured (no ssh: a fixed view). */
const withHosts = Layer.provideMerge(
  SocketResolver.layer,
  Layer.merge(TmuxMcpConfig.layer(fakeHostsConfig([build])), Layer.succeed(RemoteHosts, fixedRemoteHosts([build])))
)
const withoutHosts = Layer.provideMerge(SocketResolver.layer, TmuxMcpConfig.layer(fakeConfig()))

describe("a handle's host", () => {
  it.effect("is left out on this machine: the handle is the string (and the signature) it was before hosts existed", () =>
    Effect.gen(function*() {
      const json = JSON.stringify(handle)
      const mac = createHmac("sha256", KEY).update(json).digest("base64url")
      const before = `cmd1.${Buffer.from(JSON.stringify({ ...handle, mac }), "utf8").toString("base64url")}`
      expect(encodeHandle(KEY, handle)).toBe(before)
      expect(yield* decodeHandle(KEY, before)).toEqual(handle)
    }))

  it.effect("is signed with the rest for a remote host: changing it makes the handle not ours", () =>
    Effect.gen(function*() {
      const remote = { ...handle, host: "build" }
      const text = encodeHandle(KEY, remote)
      expect(yield* decodeHandle(KEY, text)).toEqual(remote)
      const fields = JSON.parse(Buffer.from(text.slice(5), "base64url").toString("utf8"))
      const moved = `cmd1.${Buffer.from(JSON.stringify({ ...fields, host: "gpu" })).toString("base64url")}`
      expect((yield* Effect.flip(decodeHandle(KEY, moved))).reason).toContain("not a handle from run_command")
    }))

  it.effect("names the socket on its own host: this machine's by path, a remote host's in that host's socket directory", () =>
    Effect.gen(function*() {
      const local = yield* handleSocket(handle).pipe(Effect.provide(withoutHosts))
      expect(local).toMatchObject({ path: handle.socket, flags: ["-S", handle.socket] })
      expect(local).not.toHaveProperty("host")
      expect(yield* handleSocket(handle).pipe(Effect.provide(withHosts))).toMatchObject({ host: "local", path: handle.socket })

      const path = remoteSocketPath("default", build)
      const remote = yield* handleSocket({ ...handle, socket: path, host: "build" }).pipe(Effect.provide(withHosts))
      expect(remote).toMatchObject({ host: "build", name: "default", path, flags: ["-S", path] })
    }))

  it.effect("is refused clearly when the hosts file no longer names it", () =>
    Effect.gen(function*() {
      const gone = { ...handle, host: "gpu" }
      for (const layer of [withHosts, withoutHosts]) {
        const refused = yield* Effect.flip(handleSocket(gone).pipe(Effect.provide(layer)))
        expect(refused).toMatchObject({ _tag: "InvalidInput" })
        expect(refused.message).toContain("handle's command runs on host gpu, which the hosts file does not name")
      }
    }))
})
