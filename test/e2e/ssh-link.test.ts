/**
 * Issue 30's link items over stdio, against private sshds on loopback (test/support/PrivateSshd.ts):
 * paths ssh would expand in a forward or a control path are refused (4), a SIGKILLed server's master
 * is ended by the next server's start-up sweep (5), a host's text is escaped on stderr and in doctor
 * (6), forwards stay bounded under a master's low fd limit (7), and shutdown right after a link drop
 * still releases the owned sessions, or says which it could not (8).
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs"
import { userInfo } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { type PrivateSshd, startPrivateSshd } from "../support/PrivateSshd.js"
import { listenersOf } from "../support/ProcessTree.js"
import { childPids, errorOf, isRunning, makeWorld, ok, runCli, serve, type Served, textOf, type World } from "./harness.js"

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits for `done` (a bound for a process to act, not a timing assertion); answers whether it held. */
const waitUntil = async (done: () => boolean, ms: number): Promise<boolean> => {
  const deadline = Date.now() + ms
  while (!done()) {
    if (Date.now() > deadline) return false
    await sleep(20)
  }
  return true
}

const newWorld = () => {
  const world = makeWorld()
  cleanups.push(() => world.dispose())
  return world
}

const newSshd = (alias: string) => {
  const sshd = startPrivateSshd({ alias })
  cleanups.push(() => sshd.stop())
  return sshd
}

/** tmux in a sshd's remote world (its TMUX_TMPDIR and HOME), without ssh; the server is killed after the test. */
const remoteTmux = (sshd: PrivateSshd, args: ReadonlyArray<string>) =>
  spawnSync("tmux", ["-f", "/dev/null", ...args], { env: { ...sshd.remoteEnv, TERM: "xterm-256color" }, encoding: "utf8", timeout: 10_000 })

const startRemote = (sshd: PrivateSshd, name: string, session = "far") => {
  const created = remoteTmux(sshd, ["-L", name, "new-session", "-d", "-s", session, "-x", "80", "-y", "24"])
  if (created.status !== 0) throw new Error(`remote tmux ${name}: ${created.stderr}`)
  cleanups.push(() => void remoteTmux(sshd, ["-L", name, "kill-server"]))
}

const remoteSessions = (sshd: PrivateSshd, name: string): Array<string> =>
  remoteTmux(sshd, ["-L", name, "list-sessions", "-F", "#{session_name}"]).stdout.split("\n").filter((line) => line !== "")

const hostsFile = (world: World, sshd: PrivateSshd, name: string, entry: Record<string, unknown> = {}) => {
  const file = join(world.dir, `hosts-${name}.json`)
  writeFileSync(file, JSON.stringify({ ssh_config: sshd.sshConfigPath, hosts: { [name]: { ssh: sshd.alias, ...entry } } }))
  return file
}

const served = async (world: World, env: Record<string, string>) => {
  const server = await serve(world, { env })
  cleanups.push(() => void server.close())
  return server
}

const commandLine = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ")
  } catch {
    return ""
  }
}

const masterOf = (server: Served): number | undefined => childPids(server.pid).find((pid) => commandLine(pid).includes("ControlMaster=yes"))

/** The server's private ssh directory in a world whose TMUX_TMPDIR is `tmpdir`. */
const sshDirectory = (tmpdir: string) => join(tmpdir, `effect-tmux-mcp-${process.getuid?.() ?? 0}`, "ssh")

// eslint-disable-next-line no-control-regex
const RAW_CONTROLS = /[\x07\x1b\x9b\x9d]/

describe("paths ssh would expand (item 4)", () => {
  it("a host whose socket directory holds %u is refused by name, and a decoy at the expanded path is never reached", async () => {
    const world = newWorld()
    const sshd = newSshd("etm-percent")
    // The host's TMUX_TMPDIR resolves (as tmux and discovery resolve it) into a directory named tmp%u.
    const hostile = join(sshd.dir, "tmp%u")
    renameSync(sshd.remote.tmpdir, hostile)
    symlinkSync(hostile, sshd.remote.tmpdir)
    const uid = process.getuid?.() ?? 0
    const name = `${world.socketName}-p`
    startRemote(sshd, name)
    const realPath = join(hostile, `tmux-${uid}`, name)
    expect(existsSync(realPath)).toBe(true)
    // What ssh makes of %u: this machine's user name. A decoy tmux waits there.
    const expanded = join(sshd.dir, `tmp${userInfo().username}`, `tmux-${uid}`)
    mkdirSync(expanded, { recursive: true, mode: 0o700 })
    const decoy = spawnSync("tmux", ["-f", "/dev/null", "-S", join(expanded, name), "new-session", "-d", "-s", "decoy"], {
      encoding: "utf8"
    })
    expect(decoy.status, decoy.stderr).toBe(0)
    cleanups.push(() => void spawnSync("tmux", ["-S", join(expanded, name), "kill-server"]))

    const server = await served(world, { LIBTMUX_MCP_HOSTS: hostsFile(world, sshd, "pct"), LIBTMUX_SOCKET: name })
    const result = await server.call("list_sessions", { host: "pct" })
    expect(textOf(result)).not.toContain("decoy")
    const error = errorOf(result)
    expect(error.code).toBe("failed")
    expect(error.text).toContain(realPath)
    expect(error.text).toContain("'%'")
  })

  it("a local TMUX_TMPDIR holding ${…} is refused by name before any ssh runs", async () => {
    const world = newWorld()
    const sshd = newSshd("etm-dollar")
    const tmpdir = join(world.dir, "t${HOME}")
    mkdirSync(tmpdir, { mode: 0o700 })
    const server = await served(world, {
      LIBTMUX_MCP_HOSTS: hostsFile(world, sshd, "dol", { connect_timeout_s: 1 }),
      TMUX_TMPDIR: tmpdir
    })
    const error = errorOf(await server.call("list_sessions", { host: "dol", socket_name: "x" }))
    expect(error.code).toBe("failed")
    expect(error.text).toContain(tmpdir)
    expect(error.text).toContain("'${'")
    expect(childPids(server.pid).filter((pid) => commandLine(pid).startsWith("ssh "))).toEqual([])
  })
})

describe("a SIGKILLed server's master (item 5)", () => {
  it("is ended by the next server's start-up sweep, and its files removed", async () => {
    const world = newWorld()
    const sshd = newSshd("etm-orphan")
    const name = `${world.socketName}-o`
    startRemote(sshd, name)
    const env = { LIBTMUX_MCP_HOSTS: hostsFile(world, sshd, "ci"), LIBTMUX_SOCKET: name }
    const first = await served(world, env)
    ok(await first.call("list_sessions", { host: "ci" }))
    const master = masterOf(first)!
    expect(master).toBeDefined()
    const leftovers = () => readdirSync(sshDirectory(world.dir)).filter((file) => /^[fm](\d+)-/.exec(file)?.[1] === String(first.pid))
    expect(leftovers().length).toBeGreaterThan(0)
    process.kill(first.pid, "SIGKILL")
    await first.exited
    // Orphaned, the master stays logged in (ServerAlive keeps it up).
    await sleep(300)
    expect(isRunning(master)).toBe(true)

    // The next server never calls the host: its start alone ends the master.
    await served(world, env)
    expect(await waitUntil(() => !isRunning(master), 10_000)).toBe(true)
    expect(await waitUntil(() => leftovers().length === 0, 5_000)).toBe(true)
  })
})

describe("a host's text on stderr and in doctor (item 6)", () => {
  let world: World
  let sshd: PrivateSshd
  let file: string
  beforeAll(() => {
    world = makeWorld()
    sshd = startPrivateSshd({ alias: "etm-osc" })
    // A forced command that answers every session with an OSC 52 clipboard write and a title, then fails.
    const key = readFileSync(`${sshd.identityFile}.pub`, "utf8").trim()
    writeFileSync(
      join(sshd.dir, "authorized_keys"),
      `command="printf '\\033]52;c;cHduZWQ=\\007\\033]0;owned-title\\007host says no\\n' >&2; exit 1" ${key}\n`,
      { mode: 0o600 }
    )
    file = hostsFile(world, sshd, "osc")
  })
  afterAll(() => {
    sshd?.stop()
    world?.dispose()
  })

  it("the server's 'ssh link down' line shows the host's escapes as \\xNN, never raw", async () => {
    const server = await served(world, { LIBTMUX_MCP_HOSTS: file })
    const error = errorOf(await server.call("list_sessions", { host: "osc", socket_name: "x" }))
    expect(error.code).toBe("failed")
    expect(await waitUntil(() => server.stderr().includes("ssh link down"), 5_000)).toBe(true)
    const line = server.stderr().split("\n").find((text) => text.includes("ssh link down"))!
    expect(line).toContain("\\x1b]52;c;cHduZWQ=\\x07")
    expect(line).toContain("host says no")
    expect(server.stderr()).not.toMatch(RAW_CONTROLS)
  })

  it("doctor prints the host's words escaped, on stdout and stderr", async () => {
    const run = await runCli(world, ["doctor"], { LIBTMUX_MCP_HOSTS: file })
    expect(run.status).toBe(0)
    expect(run.stdout).toMatch(/^host osc:\s+WARNING unreachable: .*\\x1b\]52;c;cHduZWQ=\\x07\\x1b\]0;owned-title\\x07host says no/m)
    expect(run.stdout).not.toMatch(RAW_CONTROLS)
    expect(run.stderr).not.toMatch(RAW_CONTROLS)
  })
})

describe("forwards under a master's low fd limit (item 7)", () => {
  it("210 dead sockets named one after another, then a new server on that host is reached; list_servers over 60 stale files", async () => {
    const world = newWorld()
    const sshd = newSshd("etm-many")
    const name = `${world.socketName}-m`
    startRemote(sshd, name)
    const server = await served(world, { LIBTMUX_MCP_HOSTS: hostsFile(world, sshd, "ci"), LIBTMUX_SOCKET: name })
    ok(await server.call("list_sessions", { host: "ci" }))
    const master = masterOf(server)!
    // About 5 descriptors of its own, so 40 leaves room for some 30 listeners.
    const limited = spawnSync("prlimit", ["--pid", String(master), "--nofile=40:40"], { encoding: "utf8" })
    expect(limited.status, limited.stderr).toBe(0)
    const forwards = () => listenersOf(master).filter((path) => path.startsWith(`${sshDirectory(world.dir)}/f`))
    let most = 0
    for (let index = 0; index < 210; index++) {
      const error = errorOf(await server.call("list_sessions", { host: "ci", socket_name: `${name}-dead-${index}` }))
      expect(error.code, error.text).toBe("no_server")
      most = Math.max(most, forwards().length)
    }
    const later = `${name}-later`
    startRemote(sshd, later, "later")
    const sessions = ok(await server.call("list_sessions", { host: "ci", socket_name: later }))
    expect(sessions.items.map((session: { session_name: string }) => session.session_name)).toEqual(["later"])
    expect(masterOf(server)).toBe(master)
    expect(most).toBeLessThanOrEqual(16)
    expect(readdirSync(sshDirectory(world.dir)).filter((file) => file.startsWith("f")).length).toBeLessThanOrEqual(16)

    // 60 stale socket files beside it (a process that exits leaves its listener's file): list_servers
    // asks every socket there at once, and the master still holds 16 forwards at most.
    const stale = spawnSync(process.execPath, [
      "-e",
      `const net = require("node:net"); let n = 0
       for (let i = 0; i < 60; i++) net.createServer().listen(process.argv[1] + "/${name}-stale-" + i, () => { if (++n === 60) process.exit(0) })`,
      sshd.remote.socketDir
    ], { encoding: "utf8", timeout: 10_000 })
    expect(stale.status, stale.stderr).toBe(0)
    let sampled = 0
    const sampler = setInterval(() => (sampled = Math.max(sampled, forwards().length)), 5)
    try {
      const listed = ok(await server.call("list_servers", { host: "ci" }))
      expect(listed.items.map((item: { socket_name: string }) => item.socket_name).sort()).toEqual([name, later].sort())
      expect(JSON.stringify(listed.host_errors ?? [])).not.toContain("in use")
    } finally {
      clearInterval(sampler)
    }
    expect(sampled).toBeGreaterThan(1)
    expect(sampled).toBeLessThanOrEqual(16)
  }, 120_000)
})

describe("shutdown right after the link dropped (item 8)", () => {
  const dropLink = async (server: Served) => {
    const master = masterOf(server)!
    process.kill(master, "SIGKILL")
    expect(await waitUntil(() => server.stderr().includes("ssh link down"), 5_000)).toBe(true)
  }

  it("connects again, within the back-off, to kill the sessions it owns there", async () => {
    const world = newWorld()
    const sshd = newSshd("etm-release")
    const name = `${world.socketName}-r`
    startRemote(sshd, name, "kept")
    const server = await served(world, { LIBTMUX_MCP_HOSTS: hostsFile(world, sshd, "ci"), LIBTMUX_SOCKET: name })
    expect(ok(await server.call("create_session", { host: "ci", session_name: "mine", owned: true })).owned).toBe(true)
    expect(remoteSessions(sshd, name)).toEqual(["kept", "mine"])
    await dropLink(server)
    server.child.stdin?.end()
    expect(await server.exited).toEqual({ code: 0, signal: null })
    expect(remoteSessions(sshd, name)).toEqual(["kept"])
    expect(server.stderr()).not.toContain("releasing owned sessions")
  })

  it("says on stderr which owned sessions it could not release when the host refuses it again", async () => {
    const world = newWorld()
    const sshd = newSshd("etm-norelease")
    const name = `${world.socketName}-n`
    startRemote(sshd, name, "kept")
    const server = await served(world, {
      LIBTMUX_MCP_HOSTS: hostsFile(world, sshd, "ci", { connect_timeout_s: 2 }),
      LIBTMUX_SOCKET: name
    })
    ok(await server.call("create_session", { host: "ci", session_name: "mine", owned: true }))
    // New logins are refused from now on: the key is no longer authorized.
    writeFileSync(join(sshd.dir, "authorized_keys"), "")
    await dropLink(server)
    server.child.stdin?.end()
    await server.exited
    expect(remoteSessions(sshd, name)).toEqual(["kept", "mine"])
    const said = server.stderr().split("\n").filter((line) => line.includes("not released"))
    expect(said).toHaveLength(1)
    expect(said[0]).toContain(`ci:${name}`)
    expect(said[0]).toContain("Permission denied")
  })
})
