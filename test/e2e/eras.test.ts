/**
 * Issue 33: one stdio server, both MCP eras. The built server spawned as a client would spawn it,
 * by the MCP SDK's v2 client pinned to 2026-07-28, with automatic negotiation, with its legacy
 * default, and by the v1 client: each lists the same tools, calls one that succeeds and one that
 * fails, reads a pane's screen and gets a prompt. On 2026-07-28, subscriptions/listen on a pane's
 * screen is acknowledged and the pane's change arrives as notifications/resources/updated.
 */
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ERROR_META_KEY, eventually, MAIN, makeWorld, type World } from "./harness.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

type Mode = "legacy" | "auto" | { readonly pin: string }

/** What a client saw of the server, era by era the same. */
interface Seen {
  readonly protocol: string | undefined
  readonly tools: ReadonlyArray<unknown>
  readonly sessions: ReadonlyArray<string>
  readonly failed: { readonly isError: unknown; readonly code: unknown }
  readonly screen: string
  readonly prompts: ReadonlyArray<string>
  readonly prompt: string
}

let world: World
let paneId: string
let screenUri: string

beforeAll(() => {
  world = makeWorld()
  paneId = world.startTmux().paneId
  world.tmux(["send-keys", "-t", paneId, "echo eras-$((6*7))", "Enter"])
  screenUri = `tmux://pane/${encodeURIComponent(paneId)}/screen`
})

afterAll(() => world?.dispose())

const params = () => ({ command: process.execPath, args: [MAIN], env: { ...world.env }, cwd: world.dir, stderr: "pipe" as const })

/** Drives one connected client through the same requests; `client` is either SDK line's Client. */
const drive = async (client: Client | V1Client, protocol: string | undefined): Promise<Seen> => {
  const { tools } = await client.listTools()
  const listed = await client.callTool({ name: "list_sessions", arguments: {} })
  const failed = await client.callTool({ name: "capture_pane", arguments: { pane_id: "%999" } })
  const read = await client.readResource({ uri: screenUri })
  const { prompts } = await client.listPrompts()
  const got = await client.getPrompt({ name: "run_and_read", arguments: { command: "make test", pane_id: paneId } })
  const content = got.messages[0]!.content
  const structured = listed.structuredContent as { items: Array<{ session_name: string }> }
  return {
    protocol,
    tools,
    sessions: structured.items.map((session) => session.session_name),
    failed: {
      isError: failed.isError,
      code: ((failed._meta ?? {})[ERROR_META_KEY] as { code?: string } | undefined)?.code
    },
    screen: (read.contents[0] as { text?: string }).text ?? "",
    prompts: prompts.map((prompt) => prompt.name),
    prompt: content.type === "text" ? content.text : ""
  }
}

const withV2 = async <A>(mode: Mode | undefined, use: (client: Client) => Promise<A>): Promise<A> => {
  const client = new Client({ name: "eras-e2e", version: "0" }, mode === undefined ? {} : { versionNegotiation: { mode } })
  await client.connect(new StdioClientTransport(params()))
  try {
    return await use(client)
  } finally {
    await client.close()
  }
}

const seenByV2 = (mode: Mode | undefined) => withV2(mode, (client) => drive(client, client.getNegotiatedProtocolVersion()))

const seenByV1 = async (): Promise<Seen> => {
  const client = new V1Client({ name: "eras-e2e", version: "0" })
  await client.connect(new V1Transport(params()))
  try {
    return await drive(client, "(v1)")
  } finally {
    await client.close()
  }
}

describe("both eras on one stdio server", () => {
  it("v2 pinned, v2 auto, v2 legacy default and v1 see the same tools, calls, screen and prompts", async () => {
    const pinned = await seenByV2({ pin: "2026-07-28" })
    const auto = await seenByV2("auto")
    const legacy = await seenByV2(undefined)
    const v1 = await seenByV1()
    expect([pinned.protocol, auto.protocol, legacy.protocol, v1.protocol]).toEqual(["2026-07-28", "2026-07-28", "2025-11-25", "(v1)"])
    expect(pinned.tools.length).toBe(48)
    expect((pinned.tools[0] as { name: string }).name).toBe("where_am_i")
    expect(pinned.sessions).toEqual(["main"])
    expect(pinned.failed).toEqual({ isError: true, code: "not_found" })
    expect(pinned.screen).toContain("eras-42")
    expect(pinned.prompts).toEqual(["run_and_read", "watch_job", "find_error", "build_workspace", "stop_hung_command"])
    expect(pinned.prompt).toContain("run_command(pane_id, command)")
    // Whole tool entries, not just names: the 2026 wire carries what the 2025 one does.
    for (const other of [auto, legacy, v1]) expect({ ...other, protocol: "" }).toEqual({ ...pinned, protocol: "" })
  })

  it("on 2026-07-28 a listen on a pane's screen is acknowledged, and the pane's change arrives within 1 s", async () => {
    await withV2({ pin: "2026-07-28" }, async (client) => {
      const updates: Array<{ uri: string; meta: unknown }> = []
      client.setNotificationHandler("notifications/resources/updated", (notification) => {
        updates.push({ uri: notification.params.uri, meta: notification.params._meta })
      })
      // The lists never change while the server runs: their filters are not honored.
      const subscription = await client.listen({
        resourceSubscriptions: [screenUri],
        toolsListChanged: true,
        promptsListChanged: true,
        resourcesListChanged: true
      })
      expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [screenUri] })
      const screen = () => world.tmux(["capture-pane", "-p", "-t", paneId]).stdout
      const before = screen()
      world.tmux(["send-keys", "-t", paneId, "echo listened-1", "Enter"])
      // Within 1 s of the screen changing, however long the pane's shell took to print.
      await eventually(() => screen() !== before, 5_000, "the pane printing")
      const printed = Date.now()
      await eventually(() => updates.length > 0, 5_000, "resources/updated")
      expect(Date.now() - printed).toBeLessThan(1_000)
      expect(updates[0]!.uri).toBe(screenUri)
      expect(updates[0]!.meta).toMatchObject({ "io.modelcontextprotocol/subscriptionId": expect.any(String) })
      await subscription.close()
      expect(await subscription.closed).toBe("local")
      // Anything a poll found before the cancel has arrived after this.
      await sleep(600)
      updates.length = 0
      world.tmux(["send-keys", "-t", paneId, "echo after-close", "Enter"])
      // At least four poll periods.
      await sleep(1_000)
      expect(updates).toEqual([])
      // The connection serves on.
      expect((await client.listTools()).tools.length).toBe(48)
    })
  })
})
