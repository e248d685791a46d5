/**
 * Issue 10 item 10: starting a server must never destroy what is at the socket path. tmux unlinks
 * the path before it binds its socket (and unlinks `<path>.lock` after), so start_server or
 * create_session(allow_server_start) on a path naming a regular file replaced the file with a
 * socket. A path that exists and is not a socket is refused, and left as it was.
 */
import { spawnSync } from "node:child_process"
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { isSocket, useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"

const { world, defer } = useWorlds()

/** A path a test may start a server on (outside the world's socket directory, which dispose covers). */
const serverPath = (w: PrivateTmux, name: string): string => {
  const path = join(w.tmpdir, name)
  defer(() => void spawnSync("tmux", ["-S", path, "kill-server"], { env: w.env }))
  return path
}

/** No server answers on the path (and tmux -N starts none). */
const noServerAt = (w: PrivateTmux, path: string): boolean =>
  spawnSync("tmux", ["-N", "-S", path, "list-sessions"], { env: w.env, encoding: "utf8" }).status !== 0

interface Occupant {
  readonly label: string
  /** Puts something at `path`; returns a check that it is still there, unchanged. */
  readonly make: (w: PrivateTmux, path: string) => () => boolean
}

const OCCUPANTS: ReadonlyArray<Occupant> = [
  {
    label: "a regular file",
    make: (_w, path) => {
      writeFileSync(path, "precious notes\n")
      return () => lstatSync(path).isFile() && readFileSync(path, "utf8") === "precious notes\n"
    }
  },
  {
    label: "a directory",
    make: (_w, path) => {
      mkdirSync(path)
      writeFileSync(join(path, "inside"), "x")
      return () => lstatSync(path).isDirectory() && existsSync(join(path, "inside"))
    }
  },
  {
    label: "a symlink to a file",
    make: (w, path) => {
      const target = join(w.tmpdir, "target-file")
      writeFileSync(target, "kept")
      symlinkSync(target, path)
      return () => lstatSync(path).isSymbolicLink() && readlinkSync(path) === target && readFileSync(target, "utf8") === "kept"
    }
  },
  {
    label: "a fifo",
    make: (_w, path) => {
      expect(spawnSync("mkfifo", [path]).status).toBe(0)
      return () => lstatSync(path).isFIFO()
    }
  }
]

describe("starting a server refuses a path that is not a socket", () => {
  for (const occupant of OCCUPANTS) {
    it(`start_server and create_session(allow_server_start) leave ${occupant.label} intact`, async () => {
      const w = world()
      const path = serverPath(w, "occupied")
      const intact = occupant.make(w, path)
      const layer = w.layer()
      const started = errorMeta(await runTool(layer, "start_server", { socket_path: path }))
      expect(started).toMatchObject({ code: "invalid_input", effects: "none" })
      expect(started.text).toContain("not a socket")
      expect(intact()).toBe(true)
      const created = errorMeta(await runTool(layer, "create_session", { socket_path: path, allow_server_start: true }))
      expect(created.code).toBe("invalid_input")
      expect(intact()).toBe(true)
      expect(noServerAt(w, path)).toBe(true)
    })
  }

  it("by socket_name too: a regular file in tmux's socket directory stays", async () => {
    const w = world()
    mkdirSync(join(w.tmpdir, `tmux-${process.getuid?.() ?? 0}`), { mode: 0o700 })
    const path = w.socketPath
    writeFileSync(path, "not a socket")
    const refused = errorMeta(await runTool(w.layer(), "start_server", {}))
    expect(refused.code).toBe("invalid_input")
    expect(readFileSync(path, "utf8")).toBe("not a socket")
  })

  it("a lock file tmux did not make (not empty) is refused as well: tmux would unlink it", async () => {
    const w = world()
    const path = serverPath(w, "sock")
    writeFileSync(`${path}.lock`, "someone's data")
    const refused = errorMeta(await runTool(w.layer(), "start_server", { socket_path: path }))
    expect(refused.code).toBe("invalid_input")
    expect(refused.text).toContain(".lock")
    expect(readFileSync(`${path}.lock`, "utf8")).toBe("someone's data")
    expect(existsSync(path)).toBe(false)
  })

  it("still starts on a free path, a stale socket file, or next to an empty lock file left by tmux", async () => {
    const w = world()
    const layer = w.layer()
    const free = serverPath(w, "free")
    expect(okResult(await runTool(layer, "start_server", { socket_path: free })).started).toBe(true)
    expect(isSocket(free)).toBe(true)

    // A socket file nobody listens on any more: a server that crashed.
    const stale = serverPath(w, "stale")
    const crashed = spawnSync("tmux", ["-f", "/dev/null", "-S", stale, "new-session", "-d", ";", "display-message", "-p", "#{pid}"], {
      env: w.env,
      encoding: "utf8"
    })
    process.kill(Number(crashed.stdout.trim()), "SIGKILL")
    await waitFor("the crashed server to be gone", () => noServerAt(w, stale))
    expect(isSocket(stale)).toBe(true)
    const restarted = okResult(await runTool(layer, "create_session", { socket_path: stale, allow_server_start: true }))
    expect(restarted.server_started).toBe(true)

    const locked = serverPath(w, "locked")
    writeFileSync(`${locked}.lock`, "")
    expect(okResult(await runTool(layer, "start_server", { socket_path: locked })).started).toBe(true)
  })
})
