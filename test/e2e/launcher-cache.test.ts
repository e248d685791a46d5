/**
 * The launcher's V8 code cache (dist/main.js): the package ships none; a run that lasts writes one
 * into the user's cache directory, named by the bundle's hash and the Node version, and later runs
 * use it; a short run (--version) writes none; a directory that cannot be written, or a cache V8
 * refuses, never shows: the server runs as without a cache. No tmux server is started: the runs
 * only start the MCP server and end it with EOF.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { MAIN } from "./harness.js"

interface Ended {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

const dirs: Array<string> = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "etm-cache-"))
  dirs.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** Runs the launcher with `env` for `ms` (stdin open, then EOF), or with `args` until it exits. */
const launch = (env: Record<string, string>, options: { readonly args?: ReadonlyArray<string>; readonly ms?: number } = {}) =>
  new Promise<Ended>((resolve, reject) => {
    const home = tempDir()
    const child = spawn(process.execPath, [MAIN, ...(options.args ?? [])], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TMUX_TMPDIR: home, LIBTMUX_SOCKET: "etm-cache-test", ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    child.on("error", reject)
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
    if (options.ms !== undefined) setTimeout(() => child.stdin.end(), options.ms)
    const killer = setTimeout(() => child.kill("SIGKILL"), 20_000)
    child.on("exit", () => clearTimeout(killer))
  })

const CACHE_NAME = new RegExp(`^server\\.[0-9a-f]{16}\\.${process.version.replace(/\./g, "\\.")}-${process.arch}\\.cache$`)

describe("the launcher's code cache", () => {
  // 1.3 s ends before the launcher lowers V8's budget (1.5 s); 3 s after it: the cache must still
  // be the one the next start, under the default flags, takes (a cache made under the changed flags
  // would be refused there, and written again).
  it.each([1300, 3000])(
    "is written by a run of %i ms, into XDG_CACHE_HOME, privately, and used (not rewritten) by the next",
    async (ms) => {
      const cacheHome = tempDir()
      const first = await launch({ XDG_CACHE_HOME: cacheHome }, { ms })
      expect([first.code, first.stdout, first.stderr]).toEqual([0, "", ""])
      const dir = join(cacheHome, "effect-tmux-mcp")
      const files = readdirSync(dir)
      expect(files).toHaveLength(1)
      expect(files[0]).toMatch(CACHE_NAME)
      const file = join(dir, files[0]!)
      expect(statSync(dir).mode & 0o777).toBe(0o700)
      expect(statSync(file).mode & 0o777).toBe(0o600)
      expect(statSync(file).size).toBeGreaterThan(100_000)

      // V8 took the cache: the run does not write another.
      const before = statSync(file).mtimeMs
      const second = await launch({ XDG_CACHE_HOME: cacheHome }, { ms })
      expect([second.code, second.stderr]).toEqual([0, ""])
      expect(readdirSync(dir)).toEqual(files)
      expect(statSync(file).mtimeMs).toBe(before)
    },
    30_000
  )

  it("falls back to ~/.cache, and a short run (--version) writes none", async () => {
    const home = tempDir()
    const version = await launch({ HOME: home }, { args: ["--version"] })
    expect(version.code).toBe(0)
    expect(readdirSync(home)).toEqual([])
    const served = await launch({ HOME: home }, { ms: 1300 })
    expect(served.code).toBe(0)
    expect(readdirSync(join(home, ".cache", "effect-tmux-mcp"))).toEqual([expect.stringMatching(CACHE_NAME)])
  }, 30_000)

  it("replaces a cache V8 refuses, and skips a cache directory it cannot create, without a word", async () => {
    const cacheHome = tempDir()
    const seeded = await launch({ XDG_CACHE_HOME: cacheHome }, { ms: 1300 })
    expect(seeded.code).toBe(0)
    const dir = join(cacheHome, "effect-tmux-mcp")
    const [name] = readdirSync(dir)
    writeFileSync(join(dir, name!), "not a V8 code cache")
    const refused = await launch({ XDG_CACHE_HOME: cacheHome }, { ms: 1300 })
    expect([refused.code, refused.stdout, refused.stderr]).toEqual([0, "", ""])
    expect(statSync(join(dir, name!)).size).toBeGreaterThan(100_000)

    // XDG_CACHE_HOME is a file: no directory can be made under it (root ignores permission bits).
    const blocked = join(tempDir(), "a-file")
    writeFileSync(blocked, "")
    const skipped = await launch({ XDG_CACHE_HOME: blocked }, { ms: 1300 })
    expect([skipped.code, skipped.stdout, skipped.stderr]).toEqual([0, "", ""])
  }, 30_000)
})
