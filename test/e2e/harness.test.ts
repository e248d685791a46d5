/**
 * The e2e world's own clean-up, for every tmux version at hand: dispose ends the servers on the
 * world's sockets whatever tmux runs them (a client of another version cannot even ask a 3.8
 * server to exit), waits for the processes of their panes to end, and only then removes the
 * world's directory, which those processes may still write into as they exit (a Python REPL
 * writes its history into HOME).
 */
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { waitFor } from "../support/liveTmux.js"
import { descendantsOf, isRunning } from "../support/ProcessTree.js"
import { makeWorld } from "./harness.js"
import { tmuxVersions } from "./tmuxVersions.js"

describe.each(tmuxVersions)("an e2e world on tmux %s", (_version, tmuxBin) => {
  it("dispose ends its server and the panes' processes, then removes its directory", async () => {
    const world = makeWorld()
    try {
      const tmux = (...args: ReadonlyArray<string>) =>
        spawnSync(tmuxBin, ["-f", "/dev/null", "-L", world.socketName, ...args], { env: world.env, encoding: "utf8", timeout: 10_000 })
      expect(tmux("new-session", "-d", "-x", "80", "-y", "24", "python3 -q").status).toBe(0)
      await waitFor("the REPL's prompt", () => tmux("capture-pane", "-p").stdout.includes(">>>"))
      const serverPid = Number(tmux("display-message", "-p", "#{pid}").stdout.trim())
      const processes = [serverPid, ...descendantsOf(serverPid)]
      expect(processes.length).toBeGreaterThan(1)
      world.dispose()
      expect(processes.filter(isRunning)).toEqual([])
      expect(existsSync(world.dir)).toBe(false)
    } finally {
      // A test that failed before its dispose, or in it, leaves nothing behind either.
      if (existsSync(world.dir)) world.dispose()
    }
  })
})
