/**
 * The private sshd the remote-host tests stand on (test/support/PrivateSshd.ts): remote sessions
 * live in a world of their own, a remote tmux socket forwarded through a master answers tmux over
 * the local end, a host with `AllowTcpForwarding no` lets the forward bind but refuses what goes
 * through it, and stop() leaves no process and no directory behind. In remote mode (ETM_TEST_HOST,
 * the project integration-remote) also: a world's tmux server is the remote world's, the product's
 * configuration is local and names the hosts file.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import { type PrivateSshd, startPrivateSshd } from "../support/PrivateSshd.js"
import { isRunning } from "../support/ProcessTree.js"
import { testHost } from "../support/testHost.js"

const cleanups: Array<() => void> = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup()
})

/** A 0700 local directory for control sockets and forward ends, apart from the sshd's. */
const localDir = () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "etm-local-")))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const tmuxOn = (socketPath: string, ...args: Array<string>) =>
  spawnSync("tmux", ["-S", socketPath, ...args], { encoding: "utf8", timeout: 10_000 })

let counter = 0

/** A tmux server started by a remote command, so it is the remote world's; killed after the test. */
const remoteServer = (sshd: PrivateSshd) => {
  const name = `etm-sshd-${process.pid}-${++counter}`
  const started = sshd.ssh([], `tmux -f /dev/null -L ${name} new-session -d -s far -x 80 -y 24`)
  expect(started.stderr).toBe("")
  expect(started.status).toBe(0)
  const socketPath = sshd.remoteSocketPath(name)
  cleanups.push(() => void tmuxOn(socketPath, "kill-server"))
  return socketPath
}

/** `ssh -M -N` as a child, ready once `-O check` answers; ended (and awaited) after the test. */
const master = async (sshd: PrivateSshd, controlPath: string) => {
  const child: ChildProcess = spawn(
    "ssh",
    ["-F", sshd.sshConfigPath, "-M", "-N", "-S", controlPath, "-o", "ControlPersist=no", "--", sshd.alias],
    { stdio: ["ignore", "ignore", "pipe"] }
  )
  let stderr = ""
  child.stderr!.on("data", (chunk) => (stderr += String(chunk)))
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  })
  await waitFor(
    "the master to answer -O check",
    () => {
      if (child.exitCode !== null) throw new Error(`the master exited ${child.exitCode}: ${stderr}`)
      return sshd.ssh(["-S", controlPath, "-O", "check"]).status === 0
    },
    10_000
  )
  return { child, exited, stderr: () => stderr }
}

/** Forwards `remoteSocket` to a new local socket through the master at `controlPath`. */
const forward = (sshd: PrivateSshd, controlPath: string, localSocket: string, remoteSocket: string) => {
  const result = sshd.ssh(["-S", controlPath, "-O", "forward", "-L", `${localSocket}:${remoteSocket}`])
  expect(result.status, result.stderr).toBe(0)
}

describe("a private sshd with forwarding allowed", () => {
  let sshd: PrivateSshd
  beforeAll(() => {
    sshd = startPrivateSshd()
  })
  afterAll(() => sshd?.stop())

  it("gives remote sessions the remote world's HOME and TMUX_TMPDIR, not this process's", () => {
    const result = sshd.ssh([], `printf '%s\\n' "$HOME" "$TMUX_TMPDIR" "$HISTFILE"`)
    expect(result.status, result.stderr).toBe(0)
    expect(result.stdout).toBe(`${sshd.remote.home}\n${sshd.remote.tmpdir}\n/dev/null\n`)
    expect([sshd.remote.home, sshd.remote.tmpdir]).not.toContain(homedir())
    expect(sshd.remote.tmpdir.startsWith(`${sshd.dir}/`)).toBe(true)
  })

  it("answers tmux over a forward of a remote tmux socket made through a master", async () => {
    const remoteSocket = remoteServer(sshd)
    expect(existsSync(remoteSocket)).toBe(true)
    const local = localDir()
    const controlPath = join(local, "ctl")
    await master(sshd, controlPath)
    const localSocket = join(local, "forward.sock")
    forward(sshd, controlPath, localSocket, remoteSocket)
    const listed = tmuxOn(localSocket, "list-sessions", "-F", "#{session_name} #{socket_path}")
    expect(listed.stderr).toBe("")
    expect(listed.stdout).toBe(`far ${remoteSocket}\n`)
    // The pane's shell is the remote world's too.
    const pane = tmuxOn(localSocket, "display-message", "-p", "-t", "far", "#{pane_id}")
    expect(pane.status, pane.stderr).toBe(0)
    const environment = tmuxOn(localSocket, "show-environment", "-g", "TMUX_TMPDIR")
    expect(environment.stdout).toBe(`TMUX_TMPDIR=${sshd.remote.tmpdir}\n`)
  })
})

describe("a private sshd with AllowTcpForwarding no", () => {
  let sshd: PrivateSshd
  beforeAll(() => {
    sshd = startPrivateSshd({ allowTcpForwarding: "no" })
  })
  afterAll(() => sshd?.stop())

  it("lets the forward bind locally, then refuses the tmux call that goes through it", async () => {
    const remoteSocket = remoteServer(sshd)
    const local = localDir()
    const controlPath = join(local, "ctl")
    await master(sshd, controlPath)
    const localSocket = join(local, "forward.sock")
    forward(sshd, controlPath, localSocket, remoteSocket)
    const listed = tmuxOn(localSocket, "list-sessions")
    expect(listed.status).not.toBe(0)
    expect(listed.stdout).toBe("")
    expect(sshd.log()).toContain(`Received request to connect to path ${remoteSocket}, but the request was denied.`)
  })
})

describe("stopping a private sshd", () => {
  it("ends sshd and its session processes, and removes its directory", async () => {
    const sshd = startPrivateSshd()
    cleanups.push(() => sshd.stop())
    const local = localDir()
    const connected = await master(sshd, join(local, "ctl"))
    const running = sshd.processes()
    // The listener and at least the master's session process.
    expect(running.length).toBeGreaterThanOrEqual(2)
    sshd.stop()
    expect(running.filter(isRunning)).toEqual([])
    expect(sshd.processes()).toEqual([])
    expect(existsSync(sshd.dir)).toBe(false)
    // The master loses its connection and ends.
    await connected.exited
  })
})

describe.runIf(testHost !== undefined)("a world in remote mode", () => {
  const { world } = useWorlds()

  it("runs its tmux server in the sshd's remote world, and configures the product here with the hosts file", async () => {
    const w = world()
    const { sshd, hostsFile } = w.remote!
    w.tmuxOk("new-session", "-d", "-s", "far", "-x", "80", "-y", "24")
    expect(w.socketPath).toBe(sshd.remoteSocketPath(w.socketName))
    expect(w.tmuxOk("display-message", "-p", "#{socket_path}")).toBe(`${w.socketPath}\n`)
    expect(w.tmuxOk("show-environment", "-g", "HOME")).toBe(`HOME=${sshd.remote.home}\n`)
    expect(w.tmpdir.startsWith(`${sshd.remote.tmpdir}/`)).toBe(true)
    // The product's side: a local directory of this world, not inside the sshd's.
    expect(w.config().tmuxTmpdir).toBe(w.productDir)
    expect(w.productDir.startsWith(sshd.dir)).toBe(false)
    expect(JSON.parse(readFileSync(hostsFile, "utf8"))).toEqual({
      ssh_config: sshd.sshConfigPath,
      hosts: { [testHost!]: { ssh: sshd.alias, allow_server_start: true } }
    })
    // What the product will do with that host: the world's server answers through a forward.
    const local = localDir()
    const controlPath = join(local, "ctl")
    await master(sshd, controlPath)
    forward(sshd, controlPath, join(local, "forward.sock"), w.socketPath)
    expect(tmuxOn(join(local, "forward.sock"), "list-sessions", "-F", "#{session_name}").stdout).toBe("far\n")
  })
})
