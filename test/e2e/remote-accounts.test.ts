/**
 * Remote hosts whose login account is not bash in a plain HOME (issue 30, item 12), over stdio
 * against a private sshd on loopback whose account has another login shell, tcsh (csh) or fish,
 * and a HOME holding spaces, quotes, `#{…}`, `%` and `$`: sshd hands every remote command to that
 * shell, so discovery, the socket listing and a server start (a command list holding a newline,
 * `!`, `\` and quotes) must read the same there as in sh; `~` and new panes are in that HOME. The
 * hosts file names its ssh_config as `~/…` in a directory whose name holds what ssh expands
 * elsewhere (`%d`, `${…}`): ssh reads it as it is.
 *
 * A login account of its own needs root (PrivateSshd's `account`: a mount namespace over
 * /etc/passwd); .ci/run installs tcsh and fish.
 */
import { spawnSync } from "node:child_process"
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type PrivateSshd, startPrivateSshd } from "../support/PrivateSshd.js"
import { endTmuxServers } from "../support/ServerTeardown.js"
import { makeWorld, ok, poll, serve, type Served, type World } from "./harness.js"

const HOME_NAME = `home dir 'q" #{h} %u $x ~`
const SHELLS = ["/usr/bin/tcsh", "/usr/bin/fish"]
const isRoot = process.getuid?.() === 0

describe.each(SHELLS)("a host whose login shell is %s and whose HOME is odd", (shell) => {
  const runnable = isRoot && existsSync(shell) && existsSync("/usr/sbin/sshd")
  let world: World
  let sshd: PrivateSshd
  let server: Served
  const socketName = `etm-account-${process.pid}-${shell.split("/").pop()}`

  beforeAll(async () => {
    if (!runnable) return
    world = makeWorld()
    sshd = startPrivateSshd({ account: { shell, homeName: HOME_NAME } })
    // The server's HOME is the world's directory: its ssh_config sits under `~/`, in a directory ssh would expand elsewhere.
    const configDirectory = join(world.dir, "cfg %d ${HOME}")
    mkdirSync(configDirectory)
    copyFileSync(sshd.sshConfigPath, join(configDirectory, "ssh_config"))
    const hostsPath = join(world.dir, "hosts.json")
    writeFileSync(
      hostsPath,
      JSON.stringify({ ssh_config: "~/cfg %d ${HOME}/ssh_config", hosts: { ci: { ssh: sshd.alias, allow_server_start: true } } })
    )
    server = await serve(world, { env: { LIBTMUX_MCP_HOSTS: hostsPath } })
  })

  afterAll(async () => {
    await server?.close()
    if (sshd !== undefined) endTmuxServers([sshd.remote.socketDir])
    sshd?.stop()
    world?.dispose()
  })

  it.runIf(runnable)("is that account: its shell runs remote commands, in that HOME", () => {
    const seen = sshd.ssh([], "pwd")
    expect(seen.stdout).toBe(`${sshd.remote.home}\n`)
    expect(sshd.remote.home.endsWith(HOME_NAME)).toBe(true)
    expect(readFileSync(`/proc/${sshd.pid}/mountinfo`, "utf8")).toContain("/etc/passwd")
  })

  it.runIf(runnable)("discovers the host and lists its servers", async () => {
    const listed = ok(await server.call("list_servers", { host: "ci" }))
    expect(listed.host_errors ?? []).toEqual([])
    const where = ok(await server.call("where_am_i", { host: "ci", socket_name: socketName }))
    expect(where).toMatchObject({ effective_host: "ci", server_running: false })
    expect(where.hosts).toEqual(expect.arrayContaining([expect.objectContaining({ host: "ci", state: "up" })]))
  })

  it.runIf(runnable)(
    "starts a server there with a command list holding a newline, `!`, `\\` and quotes; its panes start in that HOME",
    async () => {
      // fish reads `\\` and `\'` inside single quotes as escapes: a value ending in `\` ended the quote early.
      const note = "line one\nline two! \\\\ 'q' \"d\" $x %u #{h} \u00e9 \\"
      const written = join(sshd.remote.tmpdir, "note")
      const created = ok(
        await server.call("create_session", {
          host: "ci",
          socket_name: socketName,
          allow_server_start: true,
          session_name: "far",
          environment: { NOTE: note },
          command: ["sh", "-c", "printf %s \"$NOTE\" > \"$1\"; exec sleep 600", "sh", written]
        })
      )
      expect(created).toMatchObject({ host: "ci", server_started: true, socket_path: sshd.remoteSocketPath(socketName) })
      expect(await poll("the pane's note", () => (existsSync(written) ? readFileSync(written, "utf8") || undefined : undefined))).toBe(note)
      const paneOf = async (args: Record<string, unknown>) =>
        ok(
          await server.call("create_window", {
            host: "ci",
            socket_name: socketName,
            session_id: created.session_id,
            fields: ["cwd"],
            ...args
          })
        ).pane
      // Where tmux itself says the new panes are: HOME, by default and as `~` (its `#{h}` stored, not expanded).
      for (const pane of [await paneOf({}), await paneOf({ start_directory: "~" })]) {
        expect(pane.cwd).toBe(sshd.remote.home)
        const shown = spawnSync("tmux", [
          "-S",
          sshd.remoteSocketPath(socketName),
          "display-message",
          "-p",
          "-t",
          pane.pane_id,
          "#{pane_current_path}"
        ], {
          encoding: "utf8"
        })
        expect(shown.stdout).toBe(`${sshd.remote.home}\n`)
      }
      // run_command frames POSIX shells only: a bash pane on that host runs a command in that HOME.
      const bash = await paneOf({ command: ["bash", "--norc", "--noprofile"] })
      const ran = ok(
        await server.call("run_command", {
          host: "ci",
          socket_name: socketName,
          pane_id: bash.pane_id,
          command: "pwd; printf '%s\\n' \"$HOME\"",
          timeout: 20
        })
      )
      expect(ran).toMatchObject({ outcome: "completed", exit_status: 0, output: `${sshd.remote.home}\n${sshd.remote.home}` })
    }
  )
})
