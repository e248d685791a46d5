/**
 * doctor's hosts section (src/cli/DoctorHosts.ts) over stand-ins: a Connections that answers as a
 * reachable host and an unreachable one, a Tmux whose sockets fail as tmux refusing the login
 * user, a stale socket and a wedged server do, and an `ssh` on PATH that prints a chosen version.
 * What needs two users (`access not allowed`) or an old OpenSSH cannot run against the private
 * sshd; test/integration/host-views.test.ts covers the rest for real.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { hostsReport } from "../../src/cli/DoctorHosts.js"
import type { RemoteHostView } from "../../src/context/RemoteHosts.js"
import { makeSocketResolver, SocketResolver } from "../../src/context/SocketResolver.js"
import type { TmuxMcpConfigShape } from "../../src/context/TmuxMcpConfig.js"
import { Failed, NoServer } from "../../src/domain/Errors.js"
import type { ConnectionsShape } from "../../src/tmux/Connections.js"
import { Tmux } from "../../src/tmux/Tmux.js"
import { fakeConfig } from "../support/fakeWorld.js"

const dir = mkdtempSync(join(tmpdir(), "etm-doctor-hosts-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const hostsFile = join(dir, "hosts.json")
writeFileSync(
  hostsFile,
  JSON.stringify({
    hosts: {
      build: { ssh: "build-box", sockets: ["mine", "theirs", "stale", "ci"], safety: "readonly" },
      gone: { ssh: "ops@gone.example.net" }
    }
  })
)

let stands = 0
/** A directory, the whole PATH, with an `ssh` that prints `version` for -V (undefined: no ssh there). */
const sshPrinting = (version: string | undefined): string => {
  const bin = join(dir, `bin-${++stands}`)
  mkdirSync(bin)
  if (version === undefined) return bin
  writeFileSync(join(bin, "ssh"), `#!/bin/sh\n[ "$1" = -V ] && echo '${version}' >&2 && exit 0\nexit 255\n`)
  chmodSync(join(bin, "ssh"), 0o755)
  return bin
}

const buildView: RemoteHostView = {
  host: "build",
  uid: 1001,
  home: "/home/ops",
  socketDirectory: "/tmp/tmux-1001",
  runDirectory: "/tmp/effect-tmux-mcp-1001",
  allowedSockets: ["mine", "theirs", "stale", "ci"],
  allowServerStart: false
}

const connectionsFor = (config: TmuxMcpConfigShape): ConnectionsShape => {
  const settings = (host: string) => config.hosts?.hosts.find((entry) => entry.name === host)
  const unreachable = new Failed({
    command: "connect to host gone",
    reason: "host",
    exitCode: null,
    stderr: "host gone (ssh ops@gone.example.net): ssh could not connect: Host key verification failed."
  })
  return {
    names: ["build", "gone"],
    settings,
    view: (host) => host === "build" ? Effect.succeed(buildView) : Effect.fail(unreachable),
    forward: () => Effect.die("not used"),
    linkError: () => Effect.succeed(undefined),
    // "other" is listed there but not in the hosts file's sockets: not shown.
    sockets: (host) => host === "build" ? Effect.succeed(["mine", "other", "theirs", "stale"]) : Effect.fail(unreachable),
    runStarting: () => Effect.die("not used"),
    link: (host) =>
      host === "build"
        ? { host, ssh: "build-box", state: "up", cause: null, retryInMs: null, forwards: 3 }
        : { host, ssh: "ops@gone.example.net", state: "down", cause: "Host key verification failed.", retryInMs: 1000, forwards: 0 },
    endBackoff: Effect.die("not used")
  }
}

/** Each remote socket fails as its name says; nothing else is asked. */
const standInTmux = Tmux.of({
  run: (socket) => {
    switch (socket.name) {
      case "theirs":
        return Effect.fail(new Failed({ command: "display-message", reason: "access", exitCode: 0, stderr: "access not allowed" }))
      // A file nothing answers on, and a socket that is not there: the forward closes either way.
      case "stale":
      case "ci":
        return Effect.fail(new NoServer({ socket: socket.label, host: "build", startable: false }))
      default:
        return Effect.fail(
          new Failed({ command: "display-message", reason: "timeout", exitCode: null, stderr: "no answer in 2 s" })
        )
    }
  }
})

const report = (version: string | undefined) =>
  Effect.gen(function*() {
    const config = fakeConfig({ env: { PATH: sshPrinting(version), LIBTMUX_MCP_HOSTS: hostsFile } })
    const connections = connectionsFor(config)
    const lines = yield* hostsReport(config, Option.some(connections)).pipe(
      Effect.provideService(Tmux, standInTmux),
      Effect.provideService(SocketResolver, makeSocketResolver(config, connections))
    )
    return new Map(lines.map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()]))
  })

describe("doctor's hosts section", () => {
  it.effect("names the hosts file and each host's link, and says why each socket cannot be used", () =>
    Effect.gen(function*() {
      const lines = yield* report("OpenSSH_9.6p1, OpenSSL 3.0.15")
      expect(lines.get("hosts")).toBe(`2 in ${hostsFile}`)
      expect(lines.get("ssh")).toBe("ssh (OpenSSH_9.6p1, OpenSSL 3.0.15)")
      expect(lines.get("host build")).toBe(
        "up: ssh build-box, uid 1001, sockets in /tmp/tmux-1001; run logs in /tmp/effect-tmux-mcp-1001; server start off; safety at most readonly"
      )
      expect(lines.get("  socket theirs")).toBe(
        "WARNING tmux there refuses the ssh login user (access not allowed): log in as the server's owner, or have its owner run `tmux server-access -a <user>` in it"
      )
      expect(lines.get("  socket mine")).toBe("WARNING did not answer within 2 s (a stopped or wedged tmux): calls there will time out")
      // No socket of the host answered: forwarding may be what is refused.
      expect(lines.get("  socket stale")).toMatch(
        /^WARNING closed before any answer, right after the forward: the host's sshd must allow AllowTcpForwarding/
      )
      // Configured, not there.
      expect(lines.get("  socket ci")).toBe("not running (no socket file in /tmp/tmux-1001)")
      expect(lines.has("  socket other")).toBe(false)
      expect(lines.get("host gone")).toBe(
        "WARNING unreachable: ssh ops@gone.example.net: ssh could not connect: Host key verification failed. ssh runs with StrictHostKeyChecking=yes: put the host's key in known_hosts first (ssh to it once by hand and check the fingerprint)."
      )
    }))

  it.effect("warns below OpenSSH 9.6, for another ssh, and when there is none", () =>
    Effect.gen(function*() {
      expect((yield* report("OpenSSH_9.5p1, LibreSSL 3.3.6")).get("ssh")).toMatch(
        /^ssh \(OpenSSH_9\.5p1, LibreSSL 3\.3\.6\); WARNING: below OpenSSH 9\.6, ssh does not refuse shell characters/
      )
      expect((yield* report("OpenSSH_8.9p1 Ubuntu-3ubuntu0.10")).get("ssh")).toMatch(/WARNING: below OpenSSH 9\.6/)
      expect((yield* report("OpenSSH_10.0p2")).get("ssh")).toBe("ssh (OpenSSH_10.0p2)")
      expect((yield* report("Dropbear v2022.83")).get("ssh")).toMatch(/^ssh \(Dropbear v2022\.83\); WARNING: not OpenSSH\?/)
      expect((yield* report(undefined)).get("ssh")).toBe("ssh: NOT FOUND or not runnable: install OpenSSH's client; no host can be reached")
    }))

  it.effect("is empty without a hosts file", () =>
    Effect.gen(function*() {
      const config = fakeConfig()
      expect(
        yield* hostsReport(config, Option.none()).pipe(
          Effect.provideService(Tmux, standInTmux),
          Effect.provideService(SocketResolver, makeSocketResolver(config))
        )
      ).toEqual([])
    }))
})
