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
