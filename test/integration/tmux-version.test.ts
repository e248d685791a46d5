/**
 * The version matrix (vitest.config.ts): a project that names a tmux (ETM_TEST_TMUX) runs every
 * tmux of the test on it, the servers' panes included, since run_command's typed line and its
 * recorders call `tmux` by name and a 3.3a client cannot talk to a 3.8 server.
 */
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { useWorlds, waitFor } from "../support/liveTmux.js"

const { world } = useWorlds()

const versionOf = (tmux: string) => spawnSync(tmux, ["-V"], { encoding: "utf8" }).stdout.trim()

describe("the tmux a test runs", () => {
  it("is the project's: the CLI, the server and the tmux a shell in a pane finds by name", async () => {
    const w = world()
    const cli = w.tmuxOk("-V").trim()
    const requested = process.env.ETM_TEST_TMUX
    if (requested !== undefined) expect(cli).toBe(versionOf(requested))
    expect(cli).toMatch(/^tmux \d+\.\d+[a-z]?$/)

    const file = join(w.tmpdir, "pane-tmux")
    w.tmuxOk("new-session", "-d", "-s", "v", `tmux -V > ${file}; tmux display-message -p '#{version}' >> ${file}; sleep 30`)
    const server = w.tmuxOk("display-message", "-p", "#{version}").trim()
    expect(cli).toBe(`tmux ${server}`)
    const seen = await waitFor(
      "the pane's tmux to answer",
      () => existsSync(file) && readFileSync(file, "utf8").split("\n").length >= 3 && readFileSync(file, "utf8")
    )
    // The pane's tmux is the same program and reaches its own server.
    expect(seen).toBe(`${cli}\n${server}\n`)

    // So does the tmux a login shell finds (its profile resets PATH): the shell run_command types into.
    const typed = join(w.tmpdir, "login-tmux")
    w.tmuxOk("new-session", "-d", "-s", "login")
    w.tmuxOk("send-keys", "-t", "login", "-l", `tmux -V > ${typed}; tmux display-message -p '#{version}' >> ${typed}`)
    w.tmuxOk("send-keys", "-t", "login", "Enter")
    const seenByLogin = await waitFor(
      "the login shell's tmux to answer",
      () => existsSync(typed) && readFileSync(typed, "utf8").split("\n").length >= 3 && readFileSync(typed, "utf8")
    )
    expect(seenByLogin).toBe(`${cli}\n${server}\n`)
  })
})
