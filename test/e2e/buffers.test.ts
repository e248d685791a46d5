/**
 * Pasting and channel waits through a real MCP client over stdio, on real tmux: paste_text arrives
 * exactly and leaves no buffer; a cancelled wait_for_channel ends at once with no tmux process left
 * under the server; progress reaches a client that asked for it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { childrenOf, makeWorld, ok, serve, type Served, type World } from "./harness.js"

let world: World
let server: Served

beforeAll(async () => {
  world = makeWorld()
  world.startTmux()
  // exec: the cancelled wait is pinned by its tmux child here; the socket transport's wait is a
  // connection, which zero-spawn.test.ts and integration/channels.test.ts follow.
  server = await serve(world, { env: { LIBTMUX_MCP_TRANSPORT: "exec" } })
})

afterAll(async () => {
  await server?.close()
  world?.dispose()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const tmuxChildren = () => childrenOf(server.pid).filter((child) => child.args.includes("tmux"))

describe("paste_text over stdio", () => {
  it("pastes text with quotes, $ and ; exactly into a program, which capture_pane then shows, and leaves no buffer", async () => {
    const created = world.tmux(["new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", "cat"])
    expect(created.status).toBe(0)
    const paneId = created.stdout.trim()
    const text = `pasted "dq" 'sq' $HOME ; \`id\` \\ ünï`
    const pasted = ok(await server.call("paste_text", { pane_id: paneId, text, enter: true }))
    expect(pasted).toMatchObject({ pane_id: paneId, enter_sent: true, bracketed: true })
    let lines: Array<string> = []
    for (let i = 0; i < 100 && lines.filter((line) => line === text).length < 2; i++) {
      await sleep(50)
      lines = ok<{ content: string }>(await server.call("capture_pane", { pane_id: paneId })).content.split("\n")
    }
    // The terminal echoes the line, then cat prints it back.
    expect(lines.filter((line) => line === text)).toHaveLength(2)
    expect(world.tmux(["list-buffers", "-F", "#{buffer_name}"]).stdout).toBe("")
    const audit = (await server.audit()).find((record) => record.tool === "paste_text")
    expect(audit?.arguments.text).toEqual({ length: text.length, sha256: expect.any(String) })
  })
})

describe("wait_for_channel over stdio", () => {
  it("a cancelled wait ends at once and leaves no tmux child of the server", async () => {
    const controller = new AbortController()
    const call = server.client.callTool({ name: "wait_for_channel", arguments: { channel: "never-signalled", timeout: 20 } }, undefined, {
      signal: controller.signal
    })
    let waiting = tmuxChildren()
    for (let i = 0; i < 100 && !waiting.some((child) => child.args.includes("wait-for")); i++) {
      await sleep(20)
      waiting = tmuxChildren()
    }
    expect(waiting.filter((child) => child.args.includes("wait-for -- never-signalled"))).toHaveLength(1)
    const cancelledAt = Date.now()
    controller.abort("test cancels")
    await expect(call).rejects.toThrow()
    let children = tmuxChildren()
    for (let i = 0; i < 10 && children.length > 0; i++) {
      await sleep(50)
      children = tmuxChildren()
    }
    expect(children).toEqual([])
    expect(Date.now() - cancelledAt).toBeLessThan(500)
    // The server goes on answering, and a new wait on the channel is woken by a signal.
    const again = server.call("wait_for_channel", { channel: "never-signalled", timeout: 10 })
    for (let i = 0; i < 100 && !tmuxChildren().some((child) => child.args.includes("wait-for -- never-signalled")); i++) await sleep(20)
    ok(await server.call("signal_channel", { channel: "never-signalled" }))
    expect(ok(await again).outcome).toBe("signalled")
  })

  it("sends progress notifications to a client that asked for them", async () => {
    const progress: Array<number> = []
    const result = await server.client.callTool({ name: "wait_for_channel", arguments: { channel: "slow", timeout: 2.5 } }, undefined, {
      onprogress: (notification) => progress.push(notification.progress)
    })
    expect((result.structuredContent as Record<string, unknown>).outcome).toBe("timeout")
    expect(progress).toEqual([1, 2])
  })
})
