/**
 * Sessions on a remote host (remote mode only: ETM_TEST_HOST, the project integration-remote; the
 * file is skipped elsewhere). What create_session says and where its panes start: the result names
 * the host and the socket's path there (never this machine's forward), a new pane starts in the
 * remote user's HOME, `~` and relative start directories are the remote HOME's, a directory that
 * does not exist there is an error that leaves nothing behind (tmux itself would silently start in
 * HOME), and owned sessions on the host are killed when the services shut down.
 */
import * as ManagedRuntime from "effect/ManagedRuntime"
import { mkdirSync, mkdtempSync } from "node:fs"
import { basename, join } from "node:path"
import { describe, expect, it } from "vitest"
import { callTool } from "../../src/mcp/CallTool.js"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool, toolNamed, withTestHost } from "../support/runTool.js"
import { handleFields, shellWorld } from "../support/shellWorld.js"
import { testHost } from "../support/testHost.js"

const { world } = useWorlds()

const lines = (text: string) => text.split("\n").filter((line) => line !== "")

/** The remote user's HOME (the sshd's remote world), which is not this machine's HOME. */
const remoteHome = (w: PrivateTmux) => w.remote!.sshd.remote.home

/** A pane's directory as tmux sees its process, once the process has set up. */
const paneDirectory = (w: PrivateTmux, paneId: string) =>
  waitFor(`${paneId}'s directory`, () => w.tmuxOk("display-message", "-p", "-t", paneId, "#{pane_current_path}").trim() || undefined)

describe.skipIf(testHost === undefined)("create_session on a remote host", () => {
  it("says the host and the socket's path there, and starts in the remote HOME whether it starts the server or not", async () => {
    const w = world()
    const layer = w.layer()
    const started = okResult(await runTool(layer, "create_session", { session_name: "first", allow_server_start: true }))
    expect(started).toMatchObject({ host: testHost, socket_name: w.socketName, socket_path: w.socketPath, server_started: true })
    expect(JSON.stringify(started)).not.toContain(w.productDir)
    expect(await paneDirectory(w, started.active_pane_id)).toBe(remoteHome(w))

    const joined = okResult(await runTool(layer, "create_session", { session_name: "second" }))
    expect(joined).toMatchObject({ host: testHost, socket_path: w.socketPath, server_started: false })
    expect(await paneDirectory(w, joined.active_pane_id)).toBe(remoteHome(w))
    const window = okResult(await runTool(layer, "create_window", { session_id: joined.session_id }))
    expect(await paneDirectory(w, window.pane.pane_id)).toBe(remoteHome(w))

    expect(okResult(await runTool(layer, "where_am_i"))).toMatchObject({
      effective_host: testHost,
      effective_socket_name: w.socketName,
      effective_socket_path: w.socketPath,
      server_running: true
    })
    expect(okResult(await runTool(layer, "get_server_info"))).toMatchObject({ host: testHost, socket_path: w.socketPath, is_alive: true })
  })

  it("reads ~, ~/… and relative start directories as the remote HOME's, and takes a directory only the host has", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "base")
    const layer = w.layer()
    // Under the remote HOME only: this machine's HOME (the product's) has no such directory.
    const only = basename(mkdtempSync(join(remoteHome(w), "only-there-")))
    mkdirSync(join(remoteHome(w), only, "deeper"))
    for (
      const [start_directory, expected] of [
        ["~", remoteHome(w)],
        [`~/${only}`, join(remoteHome(w), only)],
        [`${only}/deeper`, join(remoteHome(w), only, "deeper")],
        [w.tmpdir, w.tmpdir]
      ]
    ) {
      const created = okResult(await runTool(layer, "create_session", { start_directory }))
      expect(await paneDirectory(w, created.active_pane_id), start_directory).toBe(expected)
      const split = okResult(await runTool(layer, "split_window", { pane_id: created.active_pane_id, start_directory, fields: ["cwd"] }))
      expect(split.pane.cwd, start_directory).toBe(expected)
      expect(await paneDirectory(w, split.pane.pane_id), start_directory).toBe(expected)
    }
    // A workspace's panes: each its own directory there, or that of the pane it splits.
    const built = okResult(
      await runTool(layer, "create_session", {
        start_directory: `~/${only}`,
        panes: [{ direction: "right" }, { direction: "below", start_directory: "~" }],
        fields: ["cwd"]
      })
    )
    const expected = [join(remoteHome(w), only), join(remoteHome(w), only), remoteHome(w)]
    expect(built.panes.map((pane: { cwd: string }) => pane.cwd)).toEqual(expected)
    for (const [i, pane] of (built.panes as Array<{ pane_id: string }>).entries()) {
      expect(await paneDirectory(w, pane.pane_id), `panes[${i}]`).toBe(expected[i])
    }
  })

  it("refuses a start directory the host does not have, and leaves nothing behind", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "base")
    const layer = w.layer()
    const missing = join(w.tmpdir, "no-such-directory")
    const before = () => ({
      sessions: lines(w.tmuxOk("list-sessions", "-F", "#{session_name}")),
      panes: lines(w.tmuxOk("list-panes", "-a", "-F", "#{pane_id}"))
    })
    const was = before()
    for (
      const [name, args] of [
        ["create_session", { start_directory: missing }],
        ["create_session", { start_directory: "~/no-such-directory" }],
        ["create_window", { session_id: "$0", start_directory: missing }],
        ["split_window", { pane_id: "%0", start_directory: missing }],
        // The splits of a workspace are checked there too: the whole session or window is closed again.
        ["create_session", { panes: [{ direction: "right" }, { direction: "below", start_directory: missing }] }],
        ["create_window", { session_id: "$0", panes: [{ direction: "right", start_directory: missing }] }]
      ] as const
    ) {
      const error = errorMeta(await runTool(layer, name, args))
      expect(error.code, name).toBe("invalid_input")
      expect(error.text, name).toContain(`start_directory does not exist on host ${testHost}`)
      expect(error.text, name).not.toContain("no-such-directory")
      expect(before(), name).toEqual(was)
    }
  })

  it("gives run_command handles that name the host and its socket path; wait_for_command waits there", async () => {
    const { run, layer, w } = await shellWorld(world())
    const first = await run("echo begun; sleep 1; echo finished", { timeout: 0.3 })
    expect(first).toMatchObject({ outcome: "timed_out" })
    expect(handleFields(first.handle)).toMatchObject({ host: testHost, socket: w.socketPath })
    // wait_for_command takes no host: the handle's is used.
    const rest = okResult(await runTool(layer, "wait_for_command", { handle: first.handle, timeout: 10 }))
    expect(rest).toMatchObject({ outcome: "completed", exit_status: 0, output: "finished" })
  })

  it("kills owned sessions on the host when the services shut down", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "kept")
    const runtime = ManagedRuntime.make(w.layer())
    const call = (name: string, args: Record<string, unknown>) => runtime.runPromise(callTool(toolNamed(name), withTestHost(name, args)))
    okResult(await call("create_session", { session_name: "mine", owned: true }))
    expect(lines(w.tmuxOk("list-sessions", "-F", "#{session_name}")).sort()).toEqual(["kept", "mine"])
    await runtime.dispose()
    expect(lines(w.tmuxOk("list-sessions", "-F", "#{session_name}"))).toEqual(["kept"])
  })
})
