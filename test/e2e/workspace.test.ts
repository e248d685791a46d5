/**
 * A workspace in one call (issue 23): create_session and create_window take `panes`, each entry
 * splitting the pane made just before it, and answer with every pane in the order made (list_panes'
 * default fields, or `fields`). Through the built server over stdio on every tmux version at hand
 * (the system's, and ETM_TEST_TMUX_MATRIX's: 3.5a and 3.8, which .ci/run provides); every server is
 * started by create_session with the version's own tmux, and the layout is read back through the
 * tools, so client and server always speak the same version.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { errorOf, ok, poll, type Served, textOf } from "./harness.js"
import { servePerTest, tmuxVersions } from "./tmuxVersions.js"

const serveWith = servePerTest({ LIBTMUX_ALLOW_SERVER_START: "1" })

interface Placed {
  readonly pane_id: string
  readonly left: number
  readonly top: number
  readonly width: number
  readonly height: number
}

/** Every pane of a window with where it is, read through list_panes. */
const placesIn = async (server: Served, windowId: string): Promise<Map<string, Placed>> => {
  const listed = ok(await server.call("list_panes", { window_id: windowId, fields: ["left", "top", "width", "height"] }))
  return new Map((listed.items as Array<Placed>).map((pane) => [pane.pane_id, pane]))
}

const sessionIds = async (server: Served): Promise<Array<string>> =>
  (ok(await server.call("list_sessions")).items as Array<{ session_id: string }>).map((session) => session.session_id)

/** An argv of `items` strings (the most a command takes: 32) that writes its argument count and its $BIG's size to `file`, then stays. */
const reportingArgv = (file: string, items = 32, fillerBytes = 100): Array<string> => [
  "sh",
  "-c",
  "printf \"%s %s\" \"$#\" \"${#BIG}\" > \"$1\"; exec sleep 600",
  "sh",
  file,
  ...Array.from({ length: items - 5 }, (_, i) => `${i}`.padEnd(fillerBytes, "f"))
]

/** What a reportingArgv pane wrote: its argument count and its $BIG's size. */
const reported = (file: string) =>
  poll(`${file} to be written`, () => (existsSync(file) ? readFileSync(file, "utf8") || undefined : undefined))

const DEFAULT_PANE_KEYS = [
  "pane_id",
  "pane_index",
  "window_id",
  "window_index",
  "session_id",
  "active",
  "command",
  "is_caller",
  "is_attended"
]

describe.each(tmuxVersions)("a workspace in one call on tmux %s", (_version, tmuxBin) => {
  it("create_session with three panes (below, then right of the second) builds that layout and returns the ids in order", async () => {
    const { server } = await serveWith(tmuxBin)
    const result = await server.call("create_session", {
      session_name: "ws",
      x: 80,
      y: 24,
      panes: [{ direction: "below" }, { direction: "right" }]
    })
    const created = ok(result)
    const panes = created.panes as Array<Record<string, unknown>>
    expect(panes).toHaveLength(3)
    for (const pane of panes) expect(Object.keys(pane).sort()).toEqual([...DEFAULT_PANE_KEYS].sort())
    const [first, second, third] = panes.map((pane) => pane.pane_id as string)
    expect(new Set([first, second, third]).size).toBe(3)
    // One window holds them all; the last pane made is its active one, and the session says so.
    expect(created).toMatchObject({ window_count: 1, active_pane_id: third })
    expect(panes.map((pane) => pane.active)).toEqual([false, false, true])
    expect(new Set(panes.map((pane) => pane.window_id))).toEqual(new Set([created.active_window_id]))

    // A pane started with an argv is said to run its program, though tmux may read the command a
    // moment before the program has replaced the fork that starts it.
    const argv = ok(await server.call("create_session", { panes: [{ direction: "right", command: ["sleep", "600"] }] }))
    expect((argv.panes as Array<{ command: string }>).map((pane) => pane.command)).toEqual([expect.any(String), "sleep"])
    const split = ok(await server.call("split_window", { pane_id: argv.active_pane_id, command: ["sleep", "601"] }))
    expect(split.pane.command).toBe("sleep")

    const places = await placesIn(server, created.active_window_id)
    expect([...places.keys()].sort()).toEqual([first, second, third].sort())
    const [top, bottomLeft, bottomRight] = [places.get(first!)!, places.get(second!)!, places.get(third!)!]
    // The first pane spans the top; the second is below it; the third is right of the second.
    expect(top).toMatchObject({ left: 0, top: 0, width: 80 })
    expect(bottomLeft.top).toBeGreaterThan(top.top + top.height - 1)
    expect(bottomLeft.left).toBe(0)
    expect(bottomRight.top).toBe(bottomLeft.top)
    expect(bottomRight.left).toBeGreaterThan(bottomLeft.left + bottomLeft.width - 1)
    // The text block is the data: every pane, in order.
    expect(textOf(result)).toContain(`panes (3): ${DEFAULT_PANE_KEYS.join(" ")}`)
    expect(textOf(result).split("\n").slice(-3).map((line) => line.split(" ")[0])).toEqual([first, second, third])
  })

  it("each pane starts in its own directory or that of the pane it splits, runs its argv, and fields asks for more", async () => {
    const { server, world } = await serveWith(tmuxBin)
    // Names that would run something if tmux expanded them as formats or a shell read them.
    const hostile = join(world.dir, "#(touch owned) $(id) #{pane_id}")
    const plain = join(world.dir, "plain")
    mkdirSync(hostile)
    mkdirSync(plain)
    const created = ok(
      await server.call("create_session", {
        start_directory: plain,
        panes: [
          // Its argv says where it runs: its process's own directory, not only what tmux reports.
          { direction: "right", start_directory: hostile, command: ["sh", "-c", "pwd > ../ran-in; exec sleep 600"] },
          { direction: "below", size: "30%" },
          { direction: "left", size: 10, start_directory: plain }
        ],
        fields: ["cwd", "command", "width"]
      })
    )
    const panes = created.panes as Array<{ pane_id: string; cwd: string; command: string; width: number }>
    expect(panes.map((pane) => Object.keys(pane))).toEqual(panes.map(() => ["pane_id", "width", "command", "cwd"]))
    expect(panes.map((pane) => pane.cwd)).toEqual([plain, hostile, hostile, plain])
    await poll("the second pane's argv ran", () => (existsSync(join(world.dir, "ran-in")) ? true : undefined))
    expect(readFileSync(join(world.dir, "ran-in"), "utf8")).toBe(`${hostile}\n`)
    expect(panes[3]!.width).toBe(10)
    expect(existsSync(join(world.dir, "owned"))).toBe(false)
    expect(existsSync(join(hostile, "owned"))).toBe(false)
  })

  it("create_window with panes builds them in the new window and leaves the session's current window as it was", async () => {
    const { server } = await serveWith(tmuxBin)
    const session = ok(await server.call("create_session", { session_name: "host" }))
    const result = await server.call("create_window", {
      session_id: session.session_id,
      window_name: "work",
      panes: [{ direction: "right" }, { direction: "below" }]
    })
    const made = ok(result)
    expect(made).not.toHaveProperty("pane")
    const panes = made.panes as Array<{ pane_id: string; window_id: string }>
    expect(panes).toHaveLength(3)
    // The window as built, not as new-window printed it.
    expect(made.window).toMatchObject({ window_name: "work", pane_count: 3, active_pane_id: panes[2]!.pane_id })
    expect(new Set(panes.map((pane) => pane.window_id))).toEqual(new Set([made.window.window_id]))
    const places = await placesIn(server, made.window.window_id)
    const [left, right, below] = panes.map((pane) => places.get(pane.pane_id)!)
    expect(right!.left).toBeGreaterThan(left!.left)
    expect(below!.left).toBe(right!.left)
    expect(below!.top).toBeGreaterThan(right!.top)
    // detached by default: the session still shows its first window.
    const host = ok(await server.call("get_session_info", { session_id: session.session_id }))
    expect(host.active_window_id).toBe(session.active_window_id)
    // Without panes the result is as before: the window and its pane.
    const single = ok(await server.call("create_window", { session_id: session.session_id }))
    expect(single).not.toHaveProperty("panes")
    expect(Object.keys(single.pane).sort()).toEqual([...DEFAULT_PANE_KEYS].sort())
  })
  it("a command list too long for one tmux invocation (12 KiB environment, 3 panes; 8 panes with 32-item argvs) is built in several", async () => {
    const { server, world } = await serveWith(tmuxBin)
    const file = (name: string) => join(world.dir, name)
    const big = "b".repeat(12_000)
    const roomy = { x: 200, y: 60 }
    const created = ok(
      await server.call("create_session", {
        ...roomy,
        environment: { BIG: big },
        command: reportingArgv(file("s0"), 6),
        panes: [{ direction: "right", command: reportingArgv(file("s1"), 6) }, {
          direction: "below",
          command: reportingArgv(file("s2"), 6)
        }]
      })
    )
    const panes = created.panes as Array<{ pane_id: string; window_id: string; active: boolean }>
    expect(panes).toHaveLength(3)
    expect(created).toMatchObject({ window_count: 1, active_pane_id: panes[2]!.pane_id })
    for (const name of ["s0", "s1", "s2"]) expect(await reported(file(name))).toBe("2 12000")
    expect([...(await placesIn(server, created.active_window_id)).keys()].sort()).toEqual(panes.map((pane) => pane.pane_id).sort())

    // Eight splits of 32 items each, alternating sides so that they fit; in a new session, then in a new window.
    const eight = (prefix: string) =>
      Array.from(
        { length: 8 },
        (_, i) => ({ direction: i % 2 === 0 ? "right" : "below", command: reportingArgv(file(`${prefix}${i + 1}`)) })
      )
    const session = ok(await server.call("create_session", { ...roomy, command: reportingArgv(file("a0")), panes: eight("a") }))
    expect(session.panes).toHaveLength(9)
    expect(session.active_pane_id).toBe(session.panes[8].pane_id)
    const window = ok(
      await server.call("create_window", { session_id: session.session_id, command: reportingArgv(file("w0")), panes: eight("w") })
    )
    expect(window.panes).toHaveLength(9)
    expect(window.window).toMatchObject({ pane_count: 9, active_pane_id: window.panes[8].pane_id })
    for (const prefix of ["a", "w"]) {
      for (let i = 0; i <= 8; i++) expect(await reported(file(`${prefix}${i}`)), `${prefix}${i}`).toBe("28 0")
    }
    for (const built of [session.panes, window.panes] as Array<Array<{ pane_id: string; window_id: string }>>) {
      expect([...(await placesIn(server, built[0]!.window_id)).keys()].sort()).toEqual(built.map((pane) => pane.pane_id).sort())
    }
  })
})

describe("a workspace that cannot be built leaves nothing behind", () => {
  it("panes that do not fit: invalid_input, and the half-built session or window is closed again", async () => {
    const { server } = await serveWith("tmux")
    const keep = ok(await server.call("create_session", { session_name: "keep" }))
    const before = await sessionIds(server)
    const tooMany = Array.from({ length: 8 }, () => ({ direction: "right" as const }))
    const refused = errorOf(await server.call("create_session", { session_name: "cramped", x: 10, y: 5, panes: tooMany }))
    expect(refused.code).toBe("invalid_input")
    expect(refused.text).toContain("does not fit")
    expect(refused.text).toContain("the new session was closed again")
    expect(await sessionIds(server)).toEqual(before)

    const windowsBefore = ok(await server.call("list_windows", { session_id: keep.session_id })).items
    // tmux clamps a size that is too large; a window of 24 rows has no room for 8 halvings.
    const stacked = Array.from({ length: 8 }, () => ({ direction: "below" as const }))
    const sized = errorOf(await server.call("create_window", { session_id: keep.session_id, panes: stacked }))
    expect(sized.code).toBe("invalid_input")
    expect(sized.text).toContain("the new window was closed again")
    expect(ok(await server.call("list_windows", { session_id: keep.session_id })).items).toEqual(windowsBefore)
  })

  it("a pane whose own command is too long for one tmux invocation is invalid_input naming the limit, before anything is made", async () => {
    const { server, world } = await serveWith("tmux")
    const keep = ok(await server.call("create_session", { session_name: "keep" }))
    const before = await sessionIds(server)
    const windowsBefore = ok(await server.call("list_windows", { session_id: keep.session_id })).items
    // 32 items of 1000 bytes: within the argv limits, twice what one tmux command can carry.
    const huge = reportingArgv(join(world.dir, "ran"), 32, 1000)
    for (
      const [name, args, says] of [
        ["create_session", { panes: [{ direction: "right" }, { direction: "below", command: huge }] }, "panes[1]"],
        ["create_session", { command: huge, panes: [{ direction: "right" }] }, "the session's first pane"],
        ["create_session", { command: huge }, "the session's first pane"],
        ["create_window", { session_id: keep.session_id, panes: [{ direction: "right", command: huge }] }, "panes[0]"],
        ["create_window", { session_id: keep.session_id, command: huge }, "the window's first pane"],
        ["split_window", { pane_id: keep.active_pane_id, command: huge }, "the new pane"],
        ["respawn_pane", { pane_id: keep.active_pane_id, command: huge }, "the respawned pane"]
      ] as const
    ) {
      const refused = errorOf(await server.call(name, args))
      expect(refused, name).toMatchObject({ code: "invalid_input", effects: "none" })
      expect(refused.text, name).toContain(says)
      expect(refused.text, name).toMatch(/at most 15340 bytes/)
    }
    expect(await sessionIds(server)).toEqual(before)
    expect(ok(await server.call("list_windows", { session_id: keep.session_id })).items).toEqual(windowsBefore)
    expect(existsSync(join(world.dir, "ran"))).toBe(false)
  })

  it("a build in several invocations that fails part-way is closed again, session or window", async () => {
    const { server, world } = await serveWith("tmux")
    const keep = ok(await server.call("create_session", { session_name: "keep" }))
    const before = await sessionIds(server)
    const windowsBefore = ok(await server.call("list_windows", { session_id: keep.session_id })).items
    // Too long for one invocation, and eight halvings do not fit in 10x5 (nor in 80x24 below each other).
    const stacked = Array.from({ length: 8 }, (_, i) => ({ direction: "below" as const, command: reportingArgv(join(world.dir, `p${i}`)) }))
    const session = errorOf(await server.call("create_session", { x: 10, y: 5, panes: stacked }))
    expect(session.code).toBe("invalid_input")
    expect(session.text).toContain("the new session was closed again")
    expect(await sessionIds(server)).toEqual(before)
    const window = errorOf(await server.call("create_window", { session_id: keep.session_id, panes: stacked }))
    expect(window.code).toBe("invalid_input")
    expect(window.text).toContain("the new window was closed again")
    expect(ok(await server.call("list_windows", { session_id: keep.session_id })).items).toEqual(windowsBefore)
  })

  it("bad entries are refused before anything is made, naming the entry", async () => {
    const { server, world } = await serveWith("tmux")
    ok(await server.call("create_session", { session_name: "keep" }))
    const before = await sessionIds(server)
    const refusals: ReadonlyArray<readonly [unknown, RegExp]> = [
      [Array.from({ length: 9 }, () => ({ direction: "below" })), /panes/],
      [[{ direction: "sideways" }], /direction/],
      [[{}], /direction/],
      [[{ direction: "below", shell: "sh -c 'touch owned'" }], /shell/],
      [[{ direction: "below", size: "150%" }], /size|percentage/],
      [[{ direction: "below" }, { direction: "right", start_directory: join(world.dir, "missing") }], /panes\[1\]: start_directory/],
      [[{ direction: "below", command: [] }, { direction: "right", command: ["x".repeat(70_000)] }], /argv|bytes/]
    ]
    for (const [panes, says] of refusals) {
      const refused = errorOf(await server.call("create_session", { panes }))
      expect(refused.code, JSON.stringify(panes).slice(0, 80)).toBe("invalid_input")
      expect(refused.text).toMatch(says)
    }
    expect(await sessionIds(server)).toEqual(before)
    expect(existsSync(join(world.dir, "owned"))).toBe(false)
  })

  it("concurrent builds on one server each get their own panes", async () => {
    const { server } = await serveWith("tmux")
    ok(await server.call("create_session", { session_name: "first" }))
    const built = await Promise.all(
      Array.from(
        { length: 4 },
        (_, i) => server.call("create_session", { session_name: `ws${i}`, panes: [{ direction: "below" }, { direction: "right" }] })
      )
    )
    for (const result of built) {
      const created = ok(result)
      const ids = (created.panes as Array<{ pane_id: string }>).map((pane) => pane.pane_id)
      const places = await placesIn(server, created.active_window_id)
      expect([...places.keys()].sort()).toEqual([...ids].sort())
    }
  })

  it("split_window's text block is at most 250 B", async () => {
    const { server } = await serveWith("tmux")
    const session = ok(await server.call("create_session", { session_name: "s" }))
    const split = await server.call("split_window", { pane_id: session.active_pane_id, direction: "right" })
    expect(Object.keys(ok(split).pane).sort()).toEqual([...DEFAULT_PANE_KEYS].sort())
    expect(Buffer.byteLength(textOf(split), "utf8")).toBeLessThanOrEqual(250)
  })
})
