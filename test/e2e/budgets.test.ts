/**
 * Byte budgets over stdio, as issue 12 defines them (bytes = JSON.stringify of what the SDK client
 * received). tools/list is read into an agent's context at the start of every conversation and
 * list_panes is its usual first look at a server: both stay within these budgets for every tool
 * and field added later.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorld, ok, serve, type Served, textOf, type World } from "./harness.js"

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), "utf8")

/** What clients hand the model of tools/list: the sum over tools of `{ name, description, inputSchema }`. */
const modelPart = (tools: ReadonlyArray<{ name: string; description?: string | undefined; inputSchema: unknown }>): number =>
  tools.reduce((sum, { description, inputSchema, name }) => sum + bytes({ name, description, inputSchema }), 0)

const TOOLS_LIST_BUDGETS = {
  // Measured at 67c17a0: 66,033 B / 138,687 B (44 tools), 151,973 B (48 tools) whole; with issue 14's
  // tools: 24,681 B / 56,225 B (48 tools), 25,831 B / 60,759 B (52 tools).
  mutating: { model: 25_000, whole: 60_000 },
  destructive: { model: 28_000, whole: 68_000 }
} as const

describe("tools/list stays within its byte budget", () => {
  let world: World
  beforeAll(() => {
    world = makeWorld()
  })
  afterAll(() => world?.dispose())

  for (const [safety, budget] of Object.entries(TOOLS_LIST_BUDGETS)) {
    it(`at the ${safety} tier: at most ${budget.model} B for the model, ${budget.whole} B in all`, async () => {
      const server = await serve(world, { env: { LIBTMUX_SAFETY: safety } })
      try {
        const listed = await server.client.listTools()
        // No tool was dropped to fit.
        expect(listed.tools.length).toBe(safety === "destructive" ? 52 : 48)
        expect(modelPart(listed.tools)).toBeLessThanOrEqual(budget.model)
        expect(bytes(listed)).toBeLessThanOrEqual(budget.whole)
      } finally {
        await server.close()
      }
    })
  }
})

/**
 * where_am_i is an agent's first call: its text block (what most clients hand the model) stays
 * within 500 B at the default tier with its 48 tools, in the worst usual case: the server started
 * inside a tmux pane (TMUX / TMUX_PANE of a live pane, the effective socket the caller's from $TMUX,
 * a server answering there), which fills every caller field. Outside tmux it is smaller.
 *
 * A test world's socket is longer than a user's: `<mkdtemp dir>/tmux-<uid>/etm-e2e-<pid>-<n>-<hex>`
 * (some 48 B) against `/tmp/tmux-1000/default` (22 B), and its name (~21 B) against `default`. The
 * path is said once (caller_socket_path is left out when it is effective_socket_path), so the text
 * is measured with the world's path and name replaced by the usual ones; the raw text is bounded
 * too, by 500 B plus exactly that excess. test/unit/WhereAmIBudget.test.ts holds the same budget
 * with a long path, byte-exact.
 */
const WHERE_AM_I_TEXT_BUDGET = 500
const USUAL_SOCKET_PATH = "/tmp/tmux-1000/default"

describe("where_am_i's text stays within its byte budget", () => {
  let world: World
  let caller: ReturnType<World["startTmux"]>

  beforeAll(() => {
    world = makeWorld()
    caller = world.startTmux()
  })
  afterAll(() => world?.dispose())

  const measure = async (env: Record<string, string | undefined>) => {
    const server = await serve(world, { env })
    try {
      expect(server.tools.length).toBe(48)
      const result = await server.call("where_am_i")
      const raw = textOf(result)
      const usual = raw.split(world.socketPath).join(USUAL_SOCKET_PATH).split(world.socketName).join("default")
      const excess = Buffer.byteLength(raw, "utf8") - Buffer.byteLength(usual, "utf8")
      return { where: ok(result), raw: Buffer.byteLength(raw, "utf8"), usual: Buffer.byteLength(usual, "utf8"), excess }
    } finally {
      await server.close()
    }
  }

  it(`inside a tmux pane, the tools on the caller's live server: at most ${WHERE_AM_I_TEXT_BUDGET} B (1,265 B before issue 23)`, async () => {
    const { excess, raw, usual, where } = await measure({
      LIBTMUX_SOCKET: undefined,
      TMUX: `${caller.socketPath},${caller.pid},0`,
      TMUX_PANE: caller.paneId
    })
    // The worst usual case indeed: every caller field filled, the caller's socket the effective one (said once).
    expect(where).toMatchObject({ caller_status: "live", targets_caller_server: true, server_running: true, tool_count: 48 })
    expect(where).not.toHaveProperty("caller_socket_path")
    expect(where.effective_socket_path).toBe(world.socketPath)
    expect(where.effective_socket_name).toBe(world.socketName)
    expect(excess).toBe(world.socketPath.length - USUAL_SOCKET_PATH.length + world.socketName.length - "default".length)
    expect(usual).toBeLessThanOrEqual(WHERE_AM_I_TEXT_BUDGET)
    expect(raw).toBeLessThanOrEqual(WHERE_AM_I_TEXT_BUDGET + excess)
  })

  it(`outside tmux, a server running on the effective socket: at most ${WHERE_AM_I_TEXT_BUDGET} B`, async () => {
    const { excess, raw, usual, where } = await measure({ TMUX: undefined, TMUX_PANE: undefined })
    expect(where).toMatchObject({ inside_tmux: false, server_running: true, tool_count: 48 })
    expect(usual).toBeLessThanOrEqual(WHERE_AM_I_TEXT_BUDGET)
    expect(raw).toBeLessThanOrEqual(WHERE_AM_I_TEXT_BUDGET + excess)
  })
})

/** Grows the world's one session to `windows` windows of one pane each, in batches of `;`-joined commands. */
const growTo = (world: World, windows: number) => {
  const have = Number(world.tmux(["display-message", "-p", "-t", "main", "#{session_windows}"]).stdout)
  const commands: Array<Array<string>> = []
  for (let i = have; i < windows; i++) commands.push(["new-window", "-d", "-t", "main", "sleep 1000000"])
  // tmux refuses a command line over about 16 KiB.
  for (let i = 0; i < commands.length; i += 100) {
    const created = world.tmux(commands.slice(i, i + 100).flatMap((command, j) => (j === 0 ? command : [";", ...command])))
    if (created.status !== 0) throw new Error(`new-window failed: ${created.stderr}`)
  }
}

describe("list_panes of every pane stays within its byte budget", () => {
  let world: World
  let server: Served

  beforeAll(async () => {
    world = makeWorld()
    const created = world.tmux(["new-session", "-d", "-s", "main", "-x", "120", "-y", "40", "sleep 1000000"])
    if (created.status !== 0) throw new Error(created.stderr)
    server = await serve(world)
  })
  afterAll(async () => {
    await server?.close()
    world?.dispose()
  })

  const listAll = async (panes: number) => {
    const result = await server.call("list_panes", { limit: 1000 })
    const page = ok(result)
    expect(page).toMatchObject({ total: panes, truncated: false })
    expect(page.items).toHaveLength(panes)
    return { whole: bytes(result), text: Buffer.byteLength(textOf(result), "utf8") }
  }

  it("100 panes: at most 20,000 B in all and 8,000 B of text (68,740 B at 67c17a0)", async () => {
    growTo(world, 100)
    const { text, whole } = await listAll(100)
    expect(whole).toBeLessThanOrEqual(20_000)
    expect(text).toBeLessThanOrEqual(8_000)
  })

  it("500 panes: at most 100,000 B in all (346,252 B at 67c17a0)", async () => {
    growTo(world, 500)
    const { whole } = await listAll(500)
    expect(whole).toBeLessThanOrEqual(100_000)
  }, 120_000)
})
