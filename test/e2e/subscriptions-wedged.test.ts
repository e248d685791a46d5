/**
 * Issue 21 item 3 over stdio: subscriptions on two private tmux servers, one of them SIGSTOPped. The
 * stopped server must not delay the other's updates (each server is polled on its own), it is
 * reported on stderr and its subscriptions get an update when it stops and when it answers again,
 * and polling it spawns no process.
 */
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js"
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, expect, it } from "vitest"
import { childrenOf, makeWorld, serve, type Served, type World } from "./harness.js"

const SCREEN = new UriTemplate("tmux://pane/{pane_id}/screen{?socket_name}")

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Resolves once `check` holds, polling; rejects after `ms` (a bound for waiting, not a timing assertion). */
const eventually = async (check: () => boolean, ms: number, what: string): Promise<void> => {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > ms) throw new Error(`${what}: nothing after ${ms} ms`)
    await sleep(20)
  }
}

let world: World
let server: Served
let stoppedPid: number | undefined
const updates: Array<{ readonly uri: string; readonly at: number }> = []

beforeAll(async () => {
  world = makeWorld()
  server = await serve(world)
  server.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
    updates.push({ uri: notification.params.uri, at: Date.now() })
  })
})

afterAll(async () => {
  // Always continued, whatever failed: a stopped tmux server would outlive the test.
  if (stoppedPid !== undefined) process.kill(stoppedPid, "SIGCONT")
  await server?.close()
  world?.dispose()
})

it("a SIGSTOPped server delays no other server's subscription updates by more than 1 s, and is reported", async () => {
  const healthyName = `${world.socketName}-ok`
  const wedgedName = `${world.socketName}-stop`
  const healthy = world.startTmux(healthyName)
  const wedged = world.startTmux(wedgedName)
  const healthyUri = SCREEN.expand({ pane_id: healthy.paneId, socket_name: healthyName })
  const wedgedUri = SCREEN.expand({ pane_id: wedged.paneId, socket_name: wedgedName })
  await server.client.subscribeResource({ uri: healthyUri })
  await server.client.subscribeResource({ uri: wedgedUri })

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
