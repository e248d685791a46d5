/**
 * Issue 21 item 3 over stdio: subscriptions on two private tmux servers, one of them SIGSTOPped. The
 * stopped server must not delay the other's updates (each server is polled on its own), it is
 * reported on stderr and its subscriptions get an update when it stops and when it answers again,
 * and polling it spawns no process. In both MCP eras (issue 33): 2025-11-25's resources/subscribe
 * by the v1 client, and 2026-07-28's subscriptions/listen by the v2 client pinned to it.
 */
import { Client } from "@modelcontextprotocol/client"
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio"
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { childrenOf, eventually, MAIN, makeWorld, serve, type World } from "./harness.js"

const SCREEN = new UriTemplate("tmux://pane/{pane_id}/screen{?socket_name}")

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A connected client of either era: it subscribes to screens, and records their updates. */
interface Subscriber {
  readonly pid: number
  readonly stderr: () => string
  readonly subscribe: (uris: ReadonlyArray<string>) => Promise<void>
  readonly close: () => Promise<void>
}

let world: World
let subscriber: Subscriber | undefined
let stoppedPid: number | undefined
const updates: Array<{ readonly uri: string; readonly at: number }> = []

const record = (uri: string) => void updates.push({ uri, at: Date.now() })

const legacySubscriber = async (): Promise<Subscriber> => {
  const server = await serve(world)
  server.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => record(notification.params.uri))
  return {
    pid: server.pid,
    stderr: server.stderr,
    subscribe: async (uris) => {
      for (const uri of uris) await server.client.subscribeResource({ uri })
    },
    close: server.close
  }
}

const modernSubscriber = async (): Promise<Subscriber> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN],
    env: { ...world.env },
    cwd: world.dir,
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  const client = new Client({ name: "wedged-e2e", version: "0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } })
  client.setNotificationHandler("notifications/resources/updated", (notification) => record(notification.params.uri))
  await client.connect(transport)
  return {
    pid: transport.pid!,
    stderr: () => stderr,
    subscribe: async (uris) => {
      const listening = await client.listen({ resourceSubscriptions: [...uris] })
      expect(listening.honoredFilter.resourceSubscriptions).toEqual(uris)
    },
    close: () => client.close()
  }
}

beforeEach(() => {
  world = makeWorld()
  updates.length = 0
})

afterEach(async () => {
  // Always continued, whatever failed: a stopped tmux server would outlive the test.
  if (stoppedPid !== undefined) process.kill(stoppedPid, "SIGCONT")
  stoppedPid = undefined
  await subscriber?.close()
  subscriber = undefined
  world?.dispose()
})

describe.each([
  { era: "2025-11-25", connect: legacySubscriber },
  { era: "2026-07-28", connect: modernSubscriber }
])("$era", ({ connect }) => {
  it("a SIGSTOPped server delays no other server's subscription updates by more than 1 s, and is reported", async () => {
    const server = subscriber = await connect()
    const healthyName = `${world.socketName}-ok`
    const wedgedName = `${world.socketName}-stop`
    const healthy = world.startTmux(healthyName)
    const wedged = world.startTmux(wedgedName)
    const healthyUri = SCREEN.expand({ pane_id: healthy.paneId, socket_name: healthyName })
    const wedgedUri = SCREEN.expand({ pane_id: wedged.paneId, socket_name: wedgedName })
    await server.subscribe([healthyUri, wedgedUri])

    stoppedPid = wedged.pid
    process.kill(wedged.pid, "SIGSTOP")
    const stoppedAt = Date.now()
    const screen = () => world.tmux(["capture-pane", "-p", "-t", healthy.paneId], healthyName).stdout

    // Three changes over more than one tmux deadline (10 s): a poll that waited on the stopped
    // server would hold each of them back for most of it.
    for (let round = 1; round <= 3; round++) {
      const before = screen()
      const seen = updates.length
      world.tmux(["send-keys", "-t", healthy.paneId, `echo round-${round}`, "Enter"], healthyName)
      await eventually(() => screen() !== before, 5_000, "the healthy pane printing")
      const printed = Date.now()
      await eventually(() => updates.slice(seen).some((update) => update.uri === healthyUri), 15_000, `round ${round}'s update`)
      const delay = updates.slice(seen).find((update) => update.uri === healthyUri)!.at - printed
      expect(delay, `round ${round}`).toBeLessThan(1_000)
      // The subscription poll runs over the socket: no tmux process, not even for the stopped server.
      expect(childrenOf(server.pid)).toEqual([])
      await sleep(3_000)
    }

    // Reported, never silent: on stderr, and to the client as an update of the stopped server's screen.
    expect(server.stderr()).toMatch(new RegExp(`subscriptions: tmux server ${wedgedName}.* has not answered`))
    const wedgedUpdate = updates.find((update) => update.uri === wedgedUri)
    expect(wedgedUpdate).toBeDefined()
    expect(wedgedUpdate!.at - stoppedAt).toBeLessThan(5_000)

    // Continued, it answers again: said on stderr, its subscription is still there and gets an update.
    const wedgedUpdates = updates.filter((update) => update.uri === wedgedUri).length
    process.kill(wedged.pid, "SIGCONT")
    stoppedPid = undefined
    await eventually(() => /subscriptions: tmux server .* answers again/.test(server.stderr()), 10_000, "the recovery line")
    await eventually(() => updates.filter((update) => update.uri === wedgedUri).length > wedgedUpdates, 10_000, "the update on recovery")
    const before = world.tmux(["capture-pane", "-p", "-t", wedged.paneId], wedgedName).stdout
    const seen = updates.length
    world.tmux(["send-keys", "-t", wedged.paneId, "echo continued", "Enter"], wedgedName)
    await eventually(
      () => world.tmux(["capture-pane", "-p", "-t", wedged.paneId], wedgedName).stdout !== before,
      5_000,
      "the continued pane printing"
    )
    await eventually(() => updates.slice(seen).some((update) => update.uri === wedgedUri), 5_000, "an update from the continued server")
  }, 60_000)
})
