/**
 * Issue 30's link items over stdio, against private sshds on loopback (test/support/PrivateSshd.ts):
 * paths ssh would expand in a forward or a control path are refused (4).
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs"
import { userInfo } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type PrivateSshd, startPrivateSshd } from "../support/PrivateSshd.js"
import { childPids, errorOf, makeWorld, serve, textOf, type World } from "./harness.js"

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

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
