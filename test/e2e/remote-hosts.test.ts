/**
 * Issue 22 over stdio, against a private sshd on loopback (test/support/PrivateSshd.ts) whose
 * sessions live in a "remote world" of their own (TMUX_TMPDIR and HOME), while the server runs in
 * a local world: the link's life (first use, SIGKILLed master, reconnect), a remote server that is
 * absent and then started there, the hosts file's caps, zero processes per call after connect, and
 * no ssh at all without a hosts file.
 */
import { spawnSync } from "node:child_process"
import { chmodSync, existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs"
import { userInfo } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { killHoldingExiting } from "../support/ExitingServer.js"
import { pendingHandle } from "../support/pendingHandle.js"
import { type PrivateSshd, startPrivateSshd } from "../support/PrivateSshd.js"
import { childPids, errorOf, makeWorld, ok, serve, type Served, textOf, type World } from "./harness.js"

let world: World
let sshd: PrivateSshd
let server: Served
let hostsPath: string
const remoteName = () => `${world.socketName}-r`

/** Runs tmux in the remote world (the test's own view of the "remote" host). */
const remoteTmux = (args: ReadonlyArray<string>, name = remoteName()) =>
  spawnSync("tmux", ["-f", "/dev/null", "-L", name, ...args], { env: sshd.remoteEnv, encoding: "utf8", timeout: 10_000 })

const commandLine = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ")
  } catch {
    return ""
  }
}

/** Host ci's ssh master among the server's children (`ControlMaster=yes`, its destination last), if one runs. */
const masterPid = (): number | undefined =>
  childPids(server.pid).find((pid) => {
    const line = commandLine(pid)
    return line.includes("ControlMaster=yes") && line.trimEnd().endsWith(`-- ${sshd.alias}`)
  })

/** The server's private ssh directory (forwards and control sockets) in the local world. */
const sshDirectory = () => join(world.dir, `effect-tmux-mcp-${process.getuid?.() ?? 0}`, "ssh")
/**
 * The Unix socket paths a process listens on (a master's forwards and control socket): its
 * socket descriptors' inodes, looked up in /proc/net/unix.
 */
const socketPathsOf = (pid: number): Array<string> => {
  const inodes = new Set<string>()
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
      if (match !== null) inodes.add(match[1]!)
    }
  } catch {
    return []
  }
  return readFileSync("/proc/net/unix", "utf8").split("\n").slice(1).flatMap((line) => {
    const fields = line.trim().split(/\s+/)
    return fields.length >= 8 && inodes.has(fields[6]!) ? [fields[7]!] : []
  })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

beforeAll(async () => {
  world = makeWorld()
  sshd = startPrivateSshd()
  const created = remoteTmux(["new-session", "-d", "-s", "far", "-x", "80", "-y", "24"])
  if (created.status !== 0) throw new Error(`remote tmux: ${created.stderr}`)
  hostsPath = join(world.dir, "hosts.json")
  writeFileSync(
    hostsPath,
    JSON.stringify({
      ssh_config: sshd.sshConfigPath,
      hosts: {
        ci: { ssh: sshd.alias, allow_server_start: true },
        // The same sshd as user@alias, so its master's command line tells it from ci's.
        ro: { ssh: `${userInfo().username}@${sshd.alias}`, safety: "readonly" }
      }
    })
  )
  server = await serve(world, { env: { LIBTMUX_MCP_HOSTS: hostsPath, LIBTMUX_SOCKET: remoteName() } })
})

afterAll(async () => {
  await server?.close()
  for (const name of [remoteName(), `${remoteName()}-started`]) remoteTmux(["kill-server"], name)
  sshd?.stop()
  world?.dispose()
})

describe("remote hosts over the built server", () => {
  it("lists host on the tools that target a server, as an enum of local and the file's names", () => {
    const targeting = server.tools.filter((tool) => "socket_name" in (tool.inputSchema.properties ?? {}))
    expect(targeting.length).toBeGreaterThan(40)
    for (const tool of targeting) {
      expect((tool.inputSchema.properties as Record<string, unknown>).host).toEqual({ type: "string", enum: ["local", "ci", "ro"] })
    }
  })

  it("reads the remote server over its forward, whose socket_path is the host's, and spawns nothing per call once connected", async () => {
    const sessions = ok(await server.call("list_sessions", { host: "ci" }))
    expect(sessions.items.map((s: { session_name: string }) => s.session_name)).toEqual(["far"])
    const master = masterPid()
    expect(master).toBeDefined()
    const seen = new Set<number>()
    const timer = setInterval(() => childPids(server.pid).forEach((pid) => seen.add(pid)), 2)
    try {
      for (let round = 0; round < 5; round++) {
        ok(await server.call("list_panes", { host: "ci" }))
        ok(await server.call("capture_pane", { host: "ci", pane_id: "%0" }))
        ok(await server.call("get_pane_info", { host: "ci", pane_id: "%0" }))
      }
    } finally {
      clearInterval(timer)
    }
    expect([...seen]).toEqual([master])
    // The local forward's path never reaches the remote host's text.
    const screen = remoteTmux(["capture-pane", "-p", "-t", "far"]).stdout
    expect(screen).not.toContain(world.dir)
  })

  it("says no_server for an absent remote server, never falls back to a local tmux, and serves one started there over the socket", async () => {
    const absent = `${remoteName()}-started`
    const missing = errorOf(await server.call("list_sessions", { host: "ci", socket_name: absent }))
    expect(missing.code).toBe("no_server")
    expect(missing.text).toContain(`ci:${absent}`)
    // No server appeared on this machine at any path of the world.
    expect(world.socketFiles()).toEqual([])
    ok(await server.call("start_server", { host: "ci", socket_name: absent }))
    expect(remoteTmux(["list-sessions"], absent).status).toBe(0)
    expect(existsSync(sshd.remoteSocketPath(absent))).toBe(true)
    const created = ok(await server.call("create_session", { host: "ci", socket_name: absent, session_name: "made" }))
    expect(created.socket_path).toBe(sshd.remoteSocketPath(absent))
    const where = ok(await server.call("where_am_i", { host: "ci", socket_name: absent }))
    expect(where.transport).toBe("socket")
    expect(where.effective_socket_path).toBe(sshd.remoteSocketPath(absent))
    expect(world.socketFiles()).toEqual([])
  })

  it("keeps to the hosts file's caps: no server start where not allowed, no mutation above a host's safety, no other host", async () => {
    const start = errorOf(await server.call("start_server", { host: "ro", socket_name: `${remoteName()}-never` }))
    expect(start.code).toBe("denied")
    const mutate = errorOf(await server.call("send_keys", { host: "ro", pane_id: "%0", keys: "x" }))
    expect(mutate.code).toBe("denied")
    expect(mutate.text).toContain("host ro allows readonly tools only")
    ok(await server.call("list_sessions", { host: "ro" }))
    const other = errorOf(await server.call("list_sessions", { host: "evil.example.com" }))
    expect(other.code).toBe("invalid_input")
    expect(other.text).toContain("local, ci, ro")
  })

  it("wait_for_command keeps to the cap of its handle's host: a handle on ro gets no wait and no C-c (issue 30 item 9)", async () => {
    // A handle a server with ro uncapped would issue there (signed with this machine's key, its record kept).
    const { generation } = ok(await server.call("get_server_info", { host: "ro" }))
    const handle = pendingHandle(world.dir, sshd.remoteSocketPath(remoteName()), generation, "ro")
    const before = remoteTmux(["capture-pane", "-p", "-t", "far"]).stdout
    for (const args of [{ handle, interrupt_on_timeout: true, timeout: 1 }, { handle, timeout: 1 }]) {
      const denied = errorOf(await server.call("wait_for_command", args))
      expect(denied).toMatchObject({ code: "denied", effects: "none" })
      expect(denied.text).toContain("host ro allows readonly tools only")
    }
    expect(remoteTmux(["capture-pane", "-p", "-t", "far"]).stdout).toBe(before)
  })

  it("after the master is SIGKILLed: the host's error within 2 s, nothing at the forward path, then a later call reconnects", async () => {
    ok(await server.call("list_sessions", { host: "ci" }))
    const master = masterPid()!
    // The master's forwards: the sockets it listens on in the server's private directory, but its control socket.
    const forwards = socketPathsOf(master).filter((path) => path.startsWith(`${sshDirectory()}/f`))
    expect(forwards.length).toBeGreaterThan(0)
    process.kill(master, "SIGKILL")
    const started = performance.now()
    const failed = errorOf(await server.call("list_sessions", { host: "ci" }))
    expect(performance.now() - started).toBeLessThan(2_000)
    expect(failed.code).toBe("failed")
    expect(failed.text).toContain("host ci")
    // Following the old hint (start a server) cannot start one at the forward's path here.
    const start = errorOf(await server.call("create_session", { host: "ci", session_name: "oops", allow_server_start: true }))
    expect(start.code).toBe("failed")
    // ssh never unlinks a forward's socket: the server does as soon as it sees the master's end.
    const left = () => forwards.filter((path) => existsSync(path))
    while (left().length > 0 && performance.now() - started < 2_000) await sleep(10)
    expect(left()).toEqual([])
    expect(server.stderr().split("\n").filter((line) => line.includes("link down"))).toEqual([
      "effect-tmux-mcp: host ci: ssh link down: ssh ended by SIGKILL"
    ])
    // The back-off is 1 s after a first failure.
    await sleep(1_200)
    const again = ok(await server.call("list_sessions", { host: "ci" }))
    expect(again.items.map((s: { session_name: string }) => s.session_name)).toContain("far")
    expect(masterPid()).not.toBe(master)
    expect(textOf(await server.call("where_am_i", {}))).not.toContain("oops")
  }, 30_000)
})

describe("create_session(allow_server_start) on a host racing a kill-server (issue 30 item 11)", () => {
  it("the host's server still exiting when the call comes: the call waits it out and starts a new one there", async () => {
    const name = `${remoteName()}-exiting`
    expect(remoteTmux(["new-session", "-d", "-s", "old"], name).status).toBe(0)
    const oldPid = remoteTmux(["display-message", "-p", "#{pid}"], name).stdout.trim()
    // The forward to that socket is up before the kill.
    ok(await server.call("list_sessions", { host: "ci", socket_name: name }))
    const exiting = await killHoldingExiting(sshd.remoteSocketPath(name), (args) => remoteTmux(args, name))
    const timer = setTimeout(exiting.release, 500)
    try {
      const created = ok(
        await server.call("create_session", { host: "ci", socket_name: name, session_name: "new", allow_server_start: true })
      )
      expect(created).toMatchObject({ session_name: "new", server_started: true })
      expect(remoteTmux(["list-sessions", "-F", "#{session_name}"], name).stdout.trim()).toBe("new")
      expect(remoteTmux(["display-message", "-p", "#{pid}"], name).stdout.trim()).not.toBe(oldPid)
      // Nothing started on this machine instead.
      expect(world.socketFiles()).toEqual([])
    } finally {
      clearTimeout(timer)
      exiting.release()
      remoteTmux(["kill-server"], name)
    }
  }, 30_000)
})

describe("first use of a host", () => {
  it("40 calls at once share one master and one forward, and all answer", async () => {
    const fresh = await serve(world, { env: { LIBTMUX_MCP_HOSTS: hostsPath, LIBTMUX_SOCKET: remoteName() } })
    try {
      const results = await Promise.all(Array.from({ length: 40 }, () => fresh.call("list_panes", { host: "ci" })))
      for (const result of results) expect(ok(result).total).toBeGreaterThan(0)
      const masters = childPids(fresh.pid).filter((pid) => commandLine(pid).includes("ControlMaster=yes"))
      expect(masters).toHaveLength(1)
      // Shutdown ends the master and removes what ssh leaves behind (its sockets are the server's to remove).
      await fresh.close()
      await fresh.exited
      expect(existsSync(`/proc/${masters[0]}/cmdline`) && commandLine(masters[0]!).includes("ControlMaster=yes")).toBe(false)
      expect(readdirSync(sshDirectory()).filter((name) => name.startsWith(`f${fresh.pid}-`) || name.startsWith(`m${fresh.pid}-`))).toEqual(
        []
      )
    } finally {
      await fresh.close()
    }
  })
})

describe("a host whose sshd refuses forwarding", () => {
  it("no_server for the call (it looks the same as a dead server's socket), and list_servers says what sshd must allow", async () => {
    const local = makeWorld()
    const refusing = startPrivateSshd({ allowTcpForwarding: "no", alias: "etm-refusing" })
    const name = `${local.socketName}-r`
    const started = spawnSync("tmux", ["-f", "/dev/null", "-L", name, "new-session", "-d", "-s", "x"], {
      env: refusing.remoteEnv,
      encoding: "utf8"
    })
    expect(started.status).toBe(0)
    const served = await serve(local, { env: { LIBTMUX_MCP_HOSTS: refusing.writeHostsFile("shut"), LIBTMUX_SOCKET: name } })
    try {
      expect(errorOf(await served.call("list_sessions", { host: "shut" })).code).toBe("no_server")
      const listed = ok(await served.call("list_servers", { host: "shut" }))
      expect(listed.items).toEqual([])
      expect(JSON.stringify(listed.host_errors)).toContain("AllowTcpForwarding")
      // Nothing ran on this machine instead.
      expect(local.socketFiles()).toEqual([])
    } finally {
      await served.close()
      spawnSync("tmux", ["-f", "/dev/null", "-L", name, "kill-server"], { env: refusing.remoteEnv })
      refusing.stop()
      local.dispose()
    }
  })
})

describe("without a hosts file", () => {
  it("no tool takes host and no ssh ever runs", async () => {
    const local = makeWorld()
    const log = join(local.dir, "ssh-runs")
    const bin = join(local.dir, "bin")
    spawnSync("mkdir", ["-p", bin])
    writeFileSync(join(bin, "ssh"), `#!/bin/sh\necho "$*" >> '${log}'\nexec /usr/bin/ssh "$@"\n`)
    chmodSync(join(bin, "ssh"), 0o755)
    local.startTmux()
    const plain = await serve(local, { env: { PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}` } })
    try {
      for (const tool of plain.tools) expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain("host")
      ok(await plain.call("list_sessions"))
      ok(await plain.call("list_servers"))
      ok(await plain.call("where_am_i"))
      expect(errorOf(await plain.call("list_sessions", { host: "local" })).code).toBe("invalid_input")
      expect(existsSync(log)).toBe(false)
    } finally {
      await plain.close()
      local.dispose()
    }
  })
})
