/**
 * wait_for_command and the safety cap of its handle's host (issue 30 item 9): the call names no
 * host, its handle does, and the cap of that host (the hosts file's "safety") applies, as it does
 * to a call's `host` argument. A cap at readonly denies the wait, and its C-c
 * (interrupt_on_timeout), before anything reaches tmux.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { RemoteHosts } from "../../src/context/RemoteHosts.js"
import type { SafetyLevel } from "../../src/context/TmuxMcpConfig.js"
import { Audit } from "../../src/services/Audit.js"
import { ServerLive } from "../../src/services/ServerLive.js"
import { FakeTmux } from "../../src/testing/FakeTmux.js"
import { fakeHostsConfig, fixedRemoteHosts, remoteKey, remoteSocketPath, remoteView } from "../support/fakeHosts.js"
import { call, fakeState } from "../support/fakeWorld.js"
import { pendingHandle } from "../support/pendingHandle.js"
import { errorMeta } from "../support/runTool.js"

const dir = mkdtempSync(join(tmpdir(), "etm-handle-cap-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const uid = process.getuid?.() ?? 0

const ci = remoteView("ci")
const CI_SOCKET = remoteSocketPath("default", ci)

/** This server's services with host `ci` capped at `cap` (the server itself at destructive). */
const layerWithCap = (cap: SafetyLevel) => {
  const config = fakeHostsConfig([ci], { tmpdir: dir, uid, flags: { safety: "destructive" } })
  const hosts = config.hosts!
  return ServerLive.layer({ ...config, hosts: { ...hosts, hosts: hosts.hosts.map((entry) => ({ ...entry, safety: cap })) } }, {
    tmux: FakeTmux.layer(new Map([[remoteKey("ci", CI_SOCKET), FakeTmux.server({ sessions: [{ name: "far" }] })]])),
    audit: Audit.silent,
    remoteHosts: Layer.succeed(RemoteHosts, fixedRemoteHosts([ci]))
  })
}

describe("wait_for_command keeps to the cap of its handle's host", () => {
  it.effect("a host capped at readonly: the wait and its C-c are denied as host_safety, with nothing sent to tmux", () =>
    Effect.gen(function*() {
      const layer = layerWithCap("readonly")
      const handle = pendingHandle(dir, CI_SOCKET, "1.2", "ci")
      for (const args of [{ handle, interrupt_on_timeout: true, timeout: 1 }, { handle, timeout: 1 }]) {
        const denied = errorMeta(yield* call(layer, "wait_for_command", args))
        expect(denied).toMatchObject({ code: "denied", effects: "none" })
        expect(denied.text).toContain("host ci allows readonly tools only")
      }
      expect((yield* fakeState(layer)).invocations).toEqual([])
    }))

  it.effect("a host capped at mutating: the wait goes to the host's tmux (no denial)", () =>
    Effect.gen(function*() {
      const layer = layerWithCap("mutating")
      const result = yield* call(layer, "wait_for_command", { handle: pendingHandle(dir, CI_SOCKET, "1.2", "ci"), timeout: 1 })
      if (result.isError === true) expect(errorMeta(result).code).not.toBe("denied")
      expect((yield* fakeState(layer)).invocations.length).toBeGreaterThan(0)
    }))
})
