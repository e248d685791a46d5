/**
 * Whose socket a path is (src/tmux/internal/SocketTrust.ts), on real files: this user's in a
 * directory no one else can change, a sticky shared one included; not in a directory others can
 * write; a symlink judged by its target; no socket at all is absent.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { socketTrust } from "../../src/tmux/internal/SocketTrust.js"

const uid = process.getuid?.() ?? 0
const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const root = () => {
  const dir = mkdtempSync(join(tmpdir(), "etm-trust-"))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const socketIn = async (dir: string, mode: number): Promise<string> => {
  mkdirSync(dir, { recursive: true })
  chmodSync(dir, mode)
  const path = join(dir, "tmux")
  const server: Server = createServer()
  await new Promise<void>((resolve) => server.listen(path, resolve))
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return path
}

describe("socketTrust", () => {
  it("this user's socket in a private or a sticky shared directory is its own", async () => {
    const base = root()
    const private_ = await socketIn(join(base, "private"), 0o700)
    expect(socketTrust(private_, uid)).toEqual({ _tag: "own", path: private_ })
    const sticky = await socketIn(join(base, "sticky"), 0o1777)
    expect(socketTrust(sticky, uid)).toEqual({ _tag: "own", path: sticky })
  })

  it("a socket in a directory others can write (not sticky) is foreign, whoever owns the socket", async () => {
    const base = root()
    for (const mode of [0o777, 0o770, 0o722]) {
      const path = await socketIn(join(base, `shared-${mode.toString(8)}`), mode)
      expect(socketTrust(path, uid)).toMatchObject({ _tag: "foreign", why: expect.stringMatching(/writable by other users/) })
    }
  })

  it("another uid's socket is foreign", async () => {
    const path = await socketIn(join(root(), "theirs"), 0o755)
    expect(socketTrust(path, uid + 1)).toMatchObject({
      _tag: "foreign",
      why: `it belongs to uid ${uid}, not to this process's uid ${uid + 1}`
    })
  })

  it.runIf(uid === 0)("a directory of another user (not root) makes this user's socket foreign", async () => {
    const dir = join(root(), "lent")
    const path = await socketIn(dir, 0o755)
    chownSync(dir, 65534, 65534)
    expect(socketTrust(path, uid)).toMatchObject({ _tag: "foreign", why: expect.stringMatching(/directory belongs to uid 65534/) })
  })

  it("a symlink is judged, and addressed, by its target", async () => {
    const base = root()
    const target = await socketIn(join(base, "private"), 0o700)
    const link = join(base, "link")
    symlinkSync(target, link)
    expect(socketTrust(link, uid)).toEqual({ _tag: "own", path: target })
    const shared = await socketIn(join(base, "shared"), 0o777)
    const toShared = join(base, "to-shared")
    symlinkSync(shared, toShared)
    expect(socketTrust(toShared, uid)).toMatchObject({ _tag: "foreign", path: shared })
  })

  it("no socket there (nothing, a regular file, a dangling symlink) is absent", () => {
    const base = root()
    expect(socketTrust(join(base, "none"), uid)).toEqual({ _tag: "absent" })
    writeFileSync(join(base, "file"), "x")
    expect(socketTrust(join(base, "file"), uid)).toEqual({ _tag: "absent" })
    symlinkSync(join(base, "gone"), join(base, "dangling"))
    expect(socketTrust(join(base, "dangling"), uid)).toEqual({ _tag: "absent" })
  })
})
