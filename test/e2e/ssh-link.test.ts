/**
 * Issue 30's link items over stdio, against private sshds on loopback (test/support/PrivateSshd.ts):
 * paths ssh would expand in a forward or a control path are refused (4), a SIGKILLed server's master
 * is ended by the next server's start-up sweep (5), and a host's text is escaped on stderr and in
 * doctor (6).
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs"
import { userInfo } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { type PrivateSshd, startPrivateSshd } from "../support/PrivateSshd.js"
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
