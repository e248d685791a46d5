/**
 * Issue 14 items 5 and 6 over stdio with the SDK client, on a private tmux world: the hierarchy
 * resource templates (listed and read, ids as the SDK's template expansion writes them), errors of
 * reads, screen subscriptions (an update when the pane prints, none after unsubscribe, one last when
 * the pane closes, a cap, no timer left when the client goes) and the prompts.
 */
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually, isRunning, makeWorld, ok, serve, type Served, within, type World } from "./harness.js"

const expand = (template: string, variables: Record<string, string>) => new UriTemplate(template).expand(variables)
const SCREEN = "tmux://pane/{pane_id}/screen{?socket_name,socket_path}"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const rpcError = <A>(promise: Promise<A>) =>
  promise.then(
    () => {
      throw new Error("expected a JSON-RPC error")
    },
    (error: unknown) => error as { code: number; message: string; data?: { code?: string } }
  )

let world: World
let server: Served
let paneId: string
const updates: Array<string> = []

beforeAll(async () => {
  world = makeWorld()
  paneId = world.startTmux().paneId
  server = await serve(world)
  server.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updates.push(notification.params.uri)
  })
})

afterAll(async () => {
  await server?.close()
  world?.dispose()
})

describe("resource templates", () => {
  it("resources/templates/list answers with the sessions, session, window, pane and screen templates", async () => {
    const { resourceTemplates } = await server.client.listResourceTemplates()
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      "tmux://sessions{?socket_name,socket_path}",
      "tmux://session/{session_id}{?socket_name,socket_path}",
      "tmux://window/{window_id}{?socket_name,socket_path}",
      "tmux://pane/{pane_id}{?socket_name,socket_path}",
      SCREEN
    ])
    const { resources } = await server.client.listResources()
    expect(resources.map((resource) => resource.uri)).toEqual(["tmux://self", "tmux://sessions"])
  })

  it("each template reads as its tool's value, ids round-tripped through the SDK's expansion", async () => {
    const json = async (uri: string) => {
      const { contents } = await server.client.readResource({ uri })
      expect(contents[0]).toMatchObject({ uri, mimeType: "application/json" })
      return JSON.parse((contents[0] as { text: string }).text)
    }
    const pane = ok(await server.call("get_pane_info", { pane_id: paneId }))
    const sessions = await json("tmux://sessions")
    expect(sessions).toEqual(ok(await server.call("list_sessions")))
    expect(await json(expand("tmux://sessions{?socket_name}", { socket_name: world.socketName }))).toEqual(sessions)

    const session = await json(expand("tmux://session/{session_id}", { session_id: pane.session_id }))
    expect(session).toMatchObject({ session_id: pane.session_id, session_name: "main" })
    expect(session.windows).toEqual(ok(await server.call("list_windows", { session_id: pane.session_id })))

    const window = await json(expand("tmux://window/{window_id}", { window_id: pane.window_id }))
    expect(window).toMatchObject({ window_id: pane.window_id })
    expect(window.panes).toEqual(ok(await server.call("list_panes", { window_id: pane.window_id })))

    expect(await json(expand("tmux://pane/{pane_id}", { pane_id: paneId }))).toEqual(pane)
    // The raw form works too.
    expect(await json(`tmux://pane/${paneId}`)).toEqual(pane)

    const uri = expand(SCREEN, { pane_id: paneId, socket_path: world.socketPath })
    const screen = await server.client.readResource({ uri })
    expect(screen.contents[0]).toMatchObject({ uri, mimeType: "text/plain" })
    expect((screen.contents[0] as { text: string }).text).toBe(ok(await server.call("capture_pane", { pane_id: paneId })).content)
  })

  it("a missing pane is 'resource not found' with the tool's message and hint, no stack; a hostile id is invalid params", async () => {
    const missing = await rpcError(server.client.readResource({ uri: expand(SCREEN, { pane_id: "%999" }) }))
    expect(missing.code).toBe(-32002)
    expect(missing.data?.code).toBe("not_found")
    expect(missing.message).toMatch(/%999/)
    expect(missing.message).toMatch(/Hint: /)
    expect(missing.message).not.toMatch(/\n\s+at /)
    for (const uri of ["tmux://pane/%250%2F..%2Fx/screen", "tmux://pane/%0?x", "tmux://pane/%0%3Bkill-server"]) {
      const bad = await rpcError(server.client.readResource({ uri }))
      expect(bad.code, uri).toBe(-32602)
      expect(bad.message).not.toContain("kill-server")
    }
    expect(ok(await server.call("list_sessions")).items).toHaveLength(1)
  })

  it("a dead socket is a clear no_server error", async () => {
    const dead = await rpcError(
      server.client.readResource({ uri: expand("tmux://sessions{?socket_name}", { socket_name: "nobody-here" }) })
    )
    expect(dead.data?.code).toBe("no_server")
    expect(dead.message).toMatch(/No tmux server is running on socket/)
    expect(dead.message).toMatch(/list_servers/)
  })
})

describe("subscriptions", () => {
  it("a pane that prints sends resources/updated; after unsubscribe none comes", async () => {
    const uri = expand(SCREEN, { pane_id: paneId })
    await server.client.subscribeResource({ uri })
    updates.length = 0
    const screen = () => world.tmux(["capture-pane", "-p", "-t", paneId]).stdout
    const before = screen()
    world.tmux(["send-keys", "-t", paneId, "echo subscribed-1", "Enter"])
    // Within 1 s of the screen changing (issue 14), however long the pane's shell took to print.
    await eventually(() => screen() !== before, 5_000, "the pane printing")
    const printed = Date.now()
    await eventually(() => updates.includes(uri), 5_000, "resources/updated")
    expect(Date.now() - printed).toBeLessThan(1_000)
    await server.client.unsubscribeResource({ uri })
    // Anything the last poll found before the unsubscribe has arrived after this.
    await sleep(600)
    updates.length = 0
    world.tmux(["send-keys", "-t", paneId, "echo unsubscribed-2", "Enter"])
    // At least four poll periods.
    await sleep(1_000)
    expect(updates).toEqual([])
  })

  it("a pane that closes gets one last update and its subscription ends", async () => {
    const other = world.tmux(["new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main", "sleep", "600"]).stdout.trim()
    const uri = expand(SCREEN, { pane_id: other })
    await server.client.subscribeResource({ uri })
    updates.length = 0
    world.tmux(["kill-pane", "-t", other])
    await eventually(() => updates.includes(uri), 3_000, "the last resources/updated")
    await sleep(1_000)
    expect(updates.filter((updated) => updated === uri)).toHaveLength(1)
  })

  it("only screens are subscribable, a missing pane is not found, and at most 32 subscriptions at once", async () => {
    expect((await rpcError(server.client.subscribeResource({ uri: "tmux://sessions" }))).code).toBe(-32602)
    expect((await rpcError(server.client.subscribeResource({ uri: expand(SCREEN, { pane_id: "%999" }) }))).code).toBe(-32002)
    const panes: Array<string> = []
    for (let i = 0; i < 33; i++) {
      panes.push(world.tmux(["new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main", "sleep", "600"]).stdout.trim())
    }
    const uris = panes.map((pane) => expand(SCREEN, { pane_id: pane }))
    for (const uri of uris.slice(0, 32)) await server.client.subscribeResource({ uri })
    const over = await rpcError(server.client.subscribeResource({ uri: uris[32]! }))
    expect(over.code).toBe(-32602)
    expect(over.message).toMatch(/at most 32 subscriptions/)
    // Subscribing again to one already watched is no new subscription.
    await server.client.subscribeResource({ uri: uris[0]! })
    await server.client.unsubscribeResource({ uri: uris[0]! })
    await server.client.subscribeResource({ uri: uris[32]! })
    for (const uri of uris) await server.client.unsubscribeResource({ uri })
    for (const pane of panes) world.tmux(["kill-pane", "-t", pane])
  })

  it("closing the connection with a subscription running ends the process promptly", async () => {
    const second = await serve(world)
    await second.client.subscribeResource({ uri: expand(SCREEN, { pane_id: paneId }) })
    await second.close()
    const exit = await within(second.exited, 10_000, "the server's exit")
    expect(exit.code ?? exit.signal).toBeDefined()
    expect(isRunning(second.pid)).toBe(false)
  })
})

describe("prompts", () => {
  it("prompts/list and prompts/get answer; a missing argument is invalid params", async () => {
    const { prompts } = await server.client.listPrompts()
    expect(prompts.map((prompt) => prompt.name)).toEqual([
      "run_and_read",
      "watch_job",
      "find_error",
      "build_workspace",
      "stop_hung_command"
    ])
    const got = await server.client.getPrompt({ name: "run_and_read", arguments: { command: "make test", pane_id: paneId } })
    const content = got.messages[0]!.content
    expect(content.type === "text" ? content.text : "").toContain("run_command(pane_id, command)")
    expect((await rpcError(server.client.getPrompt({ name: "watch_job", arguments: { pane_id: paneId } }))).code).toBe(-32602)
    expect((await rpcError(server.client.getPrompt({ name: "nothing" }))).code).toBe(-32602)
  })
})
