/**
 * Byte budgets over stdio, as issue 12 defines them (bytes = JSON.stringify of what the SDK client
 * received). list_panes is an agent's usual first look at a server: it stays within these budgets
 * for every field added later.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorld, ok, serve, type Served, textOf, type World } from "./harness.js"

const bytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value), "utf8")

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
