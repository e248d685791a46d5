/**
 * What list_servers, where_am_i and doctor show of the hosts file's hosts, against private sshds on
 * loopback (test/support/PrivateSshd.ts): `ci`, whose remote world runs two tmux servers and holds
 * the socket file of a third that was killed; `refusing`, an sshd with `AllowTcpForwarding no`
 * (which refuses Unix-socket forwards too) in front of a live server; `dead`, a port nothing
 * listens on; `unknown-key`, the good sshd with an empty known_hosts; `wrong-key`, the good sshd
 * with a key it does not know. The product runs on this machine in a local world of its own.
 *
 * The file makes its own sshds, so it runs in every integration project (exec too: a remote
 * host's sockets are served over their forwards whatever the transport).
 */
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { doctor } from "../../src/cli/Doctor.js"
import { callTool } from "../../src/mcp/CallTool.js"
import { allTools } from "../../src/tools/registry.js"
import { type PrivateSshd, startPrivateSshd } from "../support/PrivateSshd.js"
import { makePrivateTmux, type PrivateTmux } from "../support/PrivateTmux.js"
import { descendantsOf } from "../support/ProcessTree.js"
import { errorMeta, okResult, toolNamed } from "../support/runTool.js"
import { testHost } from "../support/testHost.js"

const uid = process.getuid?.() ?? 0

/** A port nothing listens on (the kernel's pick, released at once). */
const closedPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 0))
    })
  })

interface RemoteServer {
  readonly name: string
  readonly path: string
  readonly pid: number
  readonly version: string
  readonly startTime: string
}

/** A tmux server in a sshd's remote world (its TMUX_TMPDIR and HOME), started without ssh. */
const remoteTmux = (sshd: PrivateSshd, name: string, ...args: Array<string>) =>
  spawnSync("tmux", ["-f", "/dev/null", "-L", name, ...args], {
    env: { ...sshd.remoteEnv, TERM: "xterm-256color" },
    encoding: "utf8",
    timeout: 10_000
  })

const startRemote = (sshd: PrivateSshd, name: string, sessions: number): RemoteServer => {
  for (let i = 0; i < sessions; i++) {
    const created = remoteTmux(sshd, name, "new-session", "-d", "-x", "80", "-y", "24")
    if (created.status !== 0) throw new Error(`remote tmux ${name}: ${created.stderr}`)
  }
  const [pid = "", version = "", startTime = ""] = remoteTmux(sshd, name, "display-message", "-p", "#{pid}\t#{version}\t#{start_time}")
    .stdout.trim().split("\t")
  return { name, path: sshd.remoteSocketPath(name), pid: Number(pid), version, startTime }
}

/** The ssh processes this test process runs (the product's masters, forwards and execs), with their argv. */
const sshProcesses = () =>
  descendantsOf(process.pid).flatMap((pid) => {
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1)
      return argv[0] === "ssh" ? [{ pid, argv }] : []
    } catch {
      return []
    }
  })

describe.skipIf(testHost !== undefined)("hosts in list_servers, where_am_i and doctor", () => {
  let good: PrivateSshd
  let refusing: PrivateSshd
  let dir: string
  let w: PrivateTmux
  let hostsFile: string
  let a: RemoteServer
  let b: RemoteServer
  let refused: RemoteServer
  const gone = `etm-hv-${process.pid}-gone`

  beforeAll(async () => {
    good = startPrivateSshd({ alias: "etm-good" })
    refusing = startPrivateSshd({ alias: "etm-refusing", allowTcpForwarding: "no" })
    dir = realpathSync(mkdtempSync(join(tmpdir(), "etm-hv-")))
    const emptyKnownHosts = join(dir, "known_hosts_empty")
    writeFileSync(emptyKnownHosts, "")
    const user = userInfo().username
    const hostBlock = (alias: string, lines: ReadonlyArray<string>) => [`Host ${alias}`, ...lines.map((line) => `  ${line}`), ""].join("\n")
    const common = [
      "IdentitiesOnly yes",
      "IdentityAgent none",
      "GlobalKnownHostsFile /dev/null",
      "BatchMode yes",
      "StrictHostKeyChecking yes"
    ]
    const sshConfig = join(dir, "ssh_config")
    writeFileSync(
      sshConfig,
      [
        readFileSync(good.sshConfigPath, "utf8"),
        readFileSync(refusing.sshConfigPath, "utf8"),
        hostBlock("etm-dead", ["HostName 127.0.0.1", `Port ${await closedPort()}`, `User ${user}`, ...common]),
        hostBlock("etm-unknown-key", [
          "HostName 127.0.0.1",
          `Port ${good.port}`,
          `User ${user}`,
          `IdentityFile "${good.identityFile}"`,
          `UserKnownHostsFile "${emptyKnownHosts}"`,
          ...common
        ]),
        hostBlock("etm-wrong-key", [
          "HostName 127.0.0.1",
          `Port ${good.port}`,
          `User ${user}`,
          `IdentityFile "${refusing.identityFile}"`,
          `UserKnownHostsFile "${good.knownHostsPath}"`,
          ...common
        ])
      ].join("\n")
    )
    hostsFile = join(dir, "hosts.json")
    writeFileSync(
      hostsFile,
      JSON.stringify({
        ssh_config: sshConfig,
        hosts: {
          ci: { ssh: "etm-good" },
          refusing: { ssh: "etm-refusing" },
          dead: { ssh: "etm-dead", connect_timeout_s: 2 },
          "unknown-key": { ssh: "etm-unknown-key", connect_timeout_s: 2 },
          "wrong-key": { ssh: "etm-wrong-key", connect_timeout_s: 2 }
        }
      })
    )
    a = startRemote(good, `etm-hv-${process.pid}-a`, 1)
    b = startRemote(good, `etm-hv-${process.pid}-b`, 2)
    // Killed: tmux leaves its socket file, which discovery lists and nothing answers on.
    startRemote(good, gone, 1)
    remoteTmux(good, gone, "kill-server")
    refused = startRemote(refusing, `etm-hv-${process.pid}-r`, 1)
    w = makePrivateTmux()
    w.tmuxOk("new-session", "-d", "-x", "80", "-y", "24")
  })

  afterAll(() => {
    for (const [sshd, name] of [[good, a?.name], [good, b?.name], [good, gone], [refusing, refused?.name]] as const) {
      if (sshd !== undefined && name !== undefined) remoteTmux(sshd, name, "kill-server")
    }
    good?.stop()
    refusing?.stop()
    w?.dispose()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  /** A live server of the product with the hosts file, kept across calls (its links live as long as it does). */
  const product = (withHosts = true) => {
    const runtime = ManagedRuntime.make(w.layer(withHosts ? { env: { LIBTMUX_MCP_HOSTS: hostsFile } } : {}))
    return {
      runtime,
      call: (name: string, args: Record<string, unknown> = {}) => runtime.runPromise(callTool(toolNamed(name), args))
    }
  }

  const localServer = () => {
    const [pid = "", version = "", startTime = ""] = w.tmuxOk("display-message", "-p", "#{pid}\t#{version}\t#{start_time}").trim().split(
      "\t"
    )
    return { pid: Number(pid), version, generation: `${pid}.${startTime}` }
  }
  const item = (host: string, server: RemoteServer, sessions: number) => ({
    host,
    socket_name: server.name,
    socket_path: server.path,
    pid: server.pid,
    version: server.version,
    generation: `${server.pid}.${server.startTime}`,
    session_count: sessions
  })
  const privateDirectory = () => join(w.productDir, `effect-tmux-mcp-${uid}`, "ssh")

  it("list_servers lists every host's servers, each with its host, and each host it could not list with its error", async () => {
    const { call, runtime } = product()
    try {
      const started = Date.now()
      const servers = okResult(await call("list_servers"))
      const elapsed = Date.now() - started
      const local = localServer()
      expect(servers.items).toEqual([
        { host: "local", socket_name: w.socketName, socket_path: w.socketPath, ...local, session_count: 1 },
        item("ci", a, 1),
        item("ci", b, 2)
      ])
      expect(servers).toMatchObject({ total: 3, offset: 0, truncated: false, unresponsive: [] })
      const errors = new Map<string, string>(servers.host_errors.map((entry: any) => [entry.host, entry.error]))
      expect([...errors.keys()]).toEqual(["refusing", "dead", "unknown-key", "wrong-key"])
      // Forwarding refused: the one socket there closes before any answer; not an empty success.
      expect(errors.get("refusing")).toMatch(/none of its 1 socket answered/)
      expect(errors.get("refusing")).toMatch(/AllowTcpForwarding/)
      expect(errors.get("dead")).toMatch(/Connection refused/)
      expect(errors.get("unknown-key")).toMatch(/Host key verification failed/)
      expect(errors.get("wrong-key")).toMatch(/Permission denied/)
      // The killed server's socket file on ci is not a server, and forwarding works there: no error for ci.
      expect(JSON.stringify(servers)).not.toContain(gone)
      // Paths are the hosts' own: no local forward path shows.
      expect(JSON.stringify(servers)).not.toContain(privateDirectory())
      // Asked at once: five hosts, three that cannot be reached, in about the time of one.
      expect(elapsed).toBeLessThan(8_000)
    } finally {
      await runtime.dispose()
    }
  })

  it("list_servers with host lists that host only; an unknown host and extra paths on another host are refused", async () => {
    const { call, runtime } = product()
    try {
      const ci = okResult(await call("list_servers", { host: "ci" }))
      expect(ci.items).toEqual([item("ci", a, 1), item("ci", b, 2)])
      expect(ci.host_errors).toEqual([])
      const local = okResult(await call("list_servers", { host: "local" }))
      expect(local.items.map((server: any) => [server.host, server.socket_path])).toEqual([["local", w.socketPath]])
      expect(local.host_errors).toEqual([])
      const dead = okResult(await call("list_servers", { host: "dead" }))
      expect(dead.items).toEqual([])
      expect(dead.host_errors).toEqual([{ host: "dead", error: expect.stringMatching(/Connection refused/) }])
      const paged = okResult(await call("list_servers", { host: "ci", offset: 1, limit: 1 }))
      expect(paged).toMatchObject({ items: [item("ci", b, 2)], total: 2, truncated: false })

      const unknown = errorMeta(await call("list_servers", { host: "elsewhere" }))
      expect(unknown.code).toBe("invalid_input")
      expect(unknown.text).toContain("host: must be one of local, ci, refusing, dead, unknown-key, wrong-key")
      const extra = errorMeta(await call("list_servers", { host: "ci", extra_socket_paths: ["/tmp/x.sock"] }))
      expect(extra.code).toBe("invalid_input")
      expect(extra.text).toContain("extra_socket_paths")
    } finally {
      await runtime.dispose()
    }
  })

  it("list_servers without a hosts file is what it was: no host, no host_errors, host an unknown argument", async () => {
    const { call, runtime } = product(false)
    try {
      const servers = okResult(await call("list_servers"))
      expect(Object.keys(servers)).toEqual(["items", "total", "offset", "limit", "truncated", "unresponsive"])
      expect(Object.keys(servers.items[0])).toEqual(["socket_name", "socket_path", "pid", "version", "generation", "session_count"])
      expect(errorMeta(await call("list_servers", { host: "ci" })).code).toBe("invalid_input")
    } finally {
      await runtime.dispose()
    }
  })

  it("where_am_i shows each host's link: idle before use, then up, or down with ssh's last words and the retry", async () => {
    const { call, runtime } = product()
    try {
      const before = okResult(await call("where_am_i"))
      expect(before.effective_host).toBe("local")
      expect(before.effective_socket_path).toBe(w.socketPath)
      expect(before.hosts).toEqual(["ci", "refusing", "dead", "unknown-key", "wrong-key"].map((host) => ({ host, state: "idle" })))

      okResult(await call("list_servers"))
      const after = okResult(await call("where_am_i"))
      const byHost = new Map<string, any>(after.hosts.map((entry: any) => [entry.host, entry]))
      expect(byHost.get("ci")).toEqual({ host: "ci", state: "up" })
      expect(byHost.get("refusing")).toEqual({ host: "refusing", state: "up" })
      expect(byHost.get("dead")).toEqual({
        host: "dead",
        state: "down",
        cause: expect.stringMatching(/Connection refused/),
        retry_in_ms: expect.any(Number)
      })
      expect(byHost.get("dead").retry_in_ms).toBeLessThanOrEqual(1000)
      expect(byHost.get("wrong-key")).toMatchObject({ state: "down", cause: expect.stringMatching(/Permission denied/) })
    } finally {
      await runtime.dispose()
    }
  })

  it("where_am_i on a host: that host's socket, server and server count", async () => {
    const { call, runtime } = product()
    try {
      const there = okResult(await call("where_am_i", { host: "ci", socket_name: a.name }))
      expect(there).toMatchObject({
        effective_host: "ci",
        inside_tmux: false,
        effective_socket_name: a.name,
        effective_socket_path: a.path,
        socket_rule: "socket_name argument",
        targets_caller_server: null,
        server_running: true,
        server_pid: a.pid,
        server_version: a.version,
        generation: `${a.pid}.${a.startTime}`,
        // ci's servers, not this machine's.
        live_server_count: 2,
        transport: "socket"
      })
      // Said only when so: a server answered, and every one of ci's did.
      expect(there).not.toHaveProperty("server_unresponsive")
      expect(there).not.toHaveProperty("unresponsive_server_count")
      const missing = okResult(await call("where_am_i", { host: "ci", socket_name: "nothing-here" }))
      expect(missing).toMatchObject({ effective_host: "ci", server_running: false, server_pid: null, live_server_count: 2 })
      expect(JSON.stringify(there)).not.toContain(privateDirectory())

      const down = errorMeta(await call("where_am_i", { host: "dead" }))
      expect(down).toMatchObject({ code: "failed", retryable: true })
      expect(down.text).toMatch(/Connection refused/)
    } finally {
      await runtime.dispose()
    }
  })

  it("where_am_i without a hosts file has neither host nor hosts", async () => {
    const { call, runtime } = product(false)
    try {
      const where = okResult(await call("where_am_i"))
      expect(where).not.toHaveProperty("host")
      expect(where).not.toHaveProperty("hosts")
    } finally {
      await runtime.dispose()
    }
  })

  it("keeps every ssh in its private directory with the forced options, and leaves nothing when it ends", async () => {
    const { call, runtime } = product()
    let ended = false
    try {
      okResult(await call("list_servers", { host: "ci" }))
      const masters = sshProcesses().filter(({ argv }) => argv.includes("ControlMaster=yes"))
      expect(masters).toHaveLength(1)
      const { argv } = masters[0]!
      for (
        const option of [
          "BatchMode=yes",
          "StrictHostKeyChecking=yes",
          "ConnectTimeout=5",
          "ServerAliveInterval=5",
          "ServerAliveCountMax=2",
          "ExitOnForwardFailure=yes",
          "StreamLocalBindUnlink=yes",
          "StreamLocalBindMask=0177",
          "ClearAllForwardings=yes",
          "ForwardAgent=no",
          "ForwardX11=no",
          "PermitLocalCommand=no",
          "RequestTTY=no"
        ]
      ) {
        expect(argv).toContain(option)
      }
      expect(argv.slice(-2)).toEqual(["--", "etm-good"])
      const controlPath = argv.find((word) => word.startsWith("ControlPath="))!.slice("ControlPath=".length)
      expect(controlPath.startsWith(`${privateDirectory()}/`)).toBe(true)
      expect(statSync(privateDirectory()).mode & 0o777).toBe(0o700)
      const forwards = readdirSync(privateDirectory()).filter((name) => name.startsWith("f"))
      // One forward per socket asked: a, b and the killed server's file.
      expect(forwards).toHaveLength(3)
      for (const name of forwards) {
        const stat = statSync(join(privateDirectory(), name))
        expect(stat.isSocket()).toBe(true)
        expect(stat.mode & 0o777).toBe(0o600)
      }
      await runtime.dispose()
      ended = true
      expect(sshProcesses()).toEqual([])
      expect(readdirSync(privateDirectory())).toEqual([])
    } finally {
      if (!ended) await runtime.dispose()
    }
  })

  it("doctor shows ssh, each host's link, each socket's probe, and why a host cannot be used; unreachable hosts are warnings", async () => {
    const report = await Effect.runPromise(doctor(allTools).pipe(Effect.provide(w.layer({ env: { LIBTMUX_MCP_HOSTS: hostsFile } }))))
    const text = report.text
    const lineOf = (label: string) => {
      const found = text.split("\n").find((line) => line.startsWith(`${label}:`))
      if (found === undefined) throw new Error(`no line ${JSON.stringify(label)} in:\n${text}`)
      return found.slice(label.length + 1).trim()
    }
    const sshVersion = spawnSync("ssh", ["-V"], { encoding: "utf8" }).stderr.trim()
    expect(lineOf("ssh")).toContain(`ssh (${sshVersion})`)
    const [major = 0, minor = 0] = (/OpenSSH_(\d+)\.(\d+)/.exec(sshVersion) ?? []).slice(1).map(Number)
    if (major < 9 || (major === 9 && minor < 6)) expect(lineOf("ssh")).toMatch(/WARNING: below OpenSSH 9\.6/)

    expect(lineOf("host ci")).toMatch(/^up: ssh etm-good, uid \d+, sockets in \//)
    expect(lineOf(`  socket ${a.name}`)).toBe(`running (pid ${a.pid}, tmux ${a.version}, 1 sessions)`)
    expect(lineOf(`  socket ${b.name}`)).toBe(`running (pid ${b.pid}, tmux ${b.version}, 2 sessions)`)
    // Forwarding works on ci (its other sockets answered): the killed server's file is only that.
    expect(lineOf(`  socket ${gone}`)).toMatch(/^closed before any answer: no server behind this socket file/)

    expect(lineOf("host refusing")).toMatch(/^up: ssh etm-refusing/)
    const refusal = lineOf(`  socket ${refused.name}`)
    expect(refusal).toMatch(/^WARNING closed before any answer, right after the forward/)
    expect(refusal).toContain("AllowTcpForwarding local or yes")
    expect(refusal).toContain("AllowStreamLocalForwarding")

    expect(lineOf("host dead")).toMatch(/^WARNING unreachable: ssh etm-dead: .*Connection refused/)
    expect(lineOf("host unknown-key")).toMatch(/^WARNING unreachable: .*Host key verification failed.*known_hosts/)
    expect(lineOf("host wrong-key")).toMatch(/^WARNING unreachable: .*Permission denied.*BatchMode/)
    // A host that cannot be reached is a warning: tmux is there, the server can work.
    expect(report.healthy).toBe(true)
    expect(text).not.toContain(privateDirectory())
    // Everything it started has ended with the layer.
    expect(sshProcesses()).toEqual([])
  })

  it("doctor without a hosts file says nothing of ssh or hosts", async () => {
    const report = await Effect.runPromise(doctor(allTools).pipe(Effect.provide(w.layer())))
    expect(report.text).not.toMatch(/^ssh:|^host /m)
    expect(sshProcesses()).toEqual([])
  })
})
