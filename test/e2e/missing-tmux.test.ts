/**
 * Issue 31 item 4: without a tmux binary (none on PATH, LIBTMUX_TMUX_BIN naming a missing file or
 * a program that is not tmux) the server still starts, warns once on stderr, where_am_i says what
 * is wrong with doctor's hint, and a call that needs tmux fails naming the tool, not the tmux
 * command list it would have sent.
 */
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, makeWorld, ok, serve, type World } from "./harness.js"

/** Internal command names a message must not show. */
const INTERNAL = /start-server|new-session|set-option|display-message| ; /

describe("a server without a usable tmux binary", () => {
  let world: World
  let emptyPath: string

  beforeAll(() => {
    world = makeWorld()
    // A PATH with nothing on it: no tmux (the server itself runs by node's absolute path).
    emptyPath = join(world.dir, "empty-bin")
    mkdirSync(emptyPath)
  })
  afterAll(() => world?.dispose())

  const cases = [
    {
      what: "LIBTMUX_TMUX_BIN names a missing file",
      env: { LIBTMUX_TMUX_BIN: "/nonexistent" },
      bin: "/nonexistent",
      says: "NOT FOUND",
      error: /^create_session could not run tmux: \/nonexistent: no such file/
    },
    {
      what: "no tmux on PATH",
      env: { LIBTMUX_TMUX_BIN: undefined },
      bin: "tmux",
      says: "NOT FOUND",
      error: /^create_session could not run tmux: tmux: no such file/
    },
    {
      what: "LIBTMUX_TMUX_BIN is not tmux",
      env: { LIBTMUX_TMUX_BIN: "/bin/true" },
      bin: "/bin/true",
      says: "is not tmux",
      error: /^create_session: tmux printed output this server could not read/
    }
  ]

  for (const c of cases) {
    it(`${c.what}: where_am_i says so with doctor's hint, stderr warns once, create_session names itself`, async () => {
      const server = await serve(world, { env: { ...c.env, PATH: emptyPath, LIBTMUX_ALLOW_SERVER_START: "1" } })
      try {
        const where = ok(await server.call("where_am_i"))
        expect(where.tmux_problem).toContain(c.bin)
        expect(where.tmux_problem).toContain(c.says)
        expect(where.tmux_problem).toContain("LIBTMUX_TMUX_BIN")

        const created = errorOf(await server.call("create_session", { session_name: "x" }))
        expect(created.code).toBe("failed")
        expect(created.text).toMatch(c.error)
        expect(created.text).not.toMatch(INTERNAL)
        expect(created.hint).toContain("LIBTMUX_TMUX_BIN")

        const warnings = server.stderr().split("\n").filter((line) => line.includes("tmux") && !line.startsWith("{"))
        expect(warnings).toHaveLength(1)
        expect(warnings[0]).toContain(c.bin)
      } finally {
        await server.close()
      }
    })
  }

  it("with a working tmux, where_am_i says nothing of the binary and stderr has no warning", async () => {
    const server = await serve(world)
    try {
      const where = ok(await server.call("where_am_i"))
      expect(where).not.toHaveProperty("tmux_problem")
      expect(server.stderr().split("\n").filter((line) => line !== "" && !line.startsWith("{"))).toEqual([])
    } finally {
      await server.close()
    }
  })
})
