/**
 * Issue 33: the 2026-07-28 era over raw JSON-RPC lines to the built server, as a careless or hostile
 * client would write them: an unknown protocol version (at the opening and after it), requests
 * without their `_meta` envelope, what that era removed (ping, logging/setLevel,
 * resources/subscribe, initialize), 100 listens at once, listens cancelled mid-stream and before
 * their acknowledgement. Each is answered as the spec says, and the server serves on. The 2025 era,
 * beside it: no listen, -32002 for a missing resource, invalid params for malformed ones.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually, MAIN, makeWorld, type World } from "./harness.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const VERSION = "2026-07-28"
const META = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "eras-hostile", version: "0" }
}
const SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"

type Line = Record<string, any>

interface Wire {
  readonly send: (message: Line) => void
  /** Every line the server wrote so far. */
  readonly lines: Array<Line>
  /** The answer to request `id` (a bound for waiting, not a timing assertion). */
  readonly answer: (id: string | number, ms?: number) => Promise<Line>
  /** Sends a request and waits for its answer. */
  readonly ask: (id: string | number, method: string, params?: Line) => Promise<Line>
  readonly stderr: () => string
  readonly end: () => Promise<void>
}

let world: World
let paneId: string
let screenUri: string
const wires: Array<Wire> = []

const open = (): Wire => {
  const child: ChildProcess = spawn(process.execPath, [MAIN], { env: world.env, cwd: world.dir, stdio: ["pipe", "pipe", "pipe"] })
  const lines: Array<Line> = []
  let pending = ""
  let stderr = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8")
    for (let end = pending.indexOf("\n"); end >= 0; end = pending.indexOf("\n")) {
      lines.push(JSON.parse(pending.slice(0, end)))
      pending = pending.slice(end + 1)
    }
  })
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()))
  const send = (message: Line) => void child.stdin!.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)
  const answer = async (id: string | number, ms = 10_000) => {
    for (let waited = 0; waited <= ms; waited += 20) {
      const found = lines.find((line) => line.id === id && ("result" in line || "error" in line))
      if (found !== undefined) return found
      await sleep(20)
    }
    throw new Error(`no answer to ${JSON.stringify(id)} after ${ms} ms`)
  }
  const wire: Wire = {
    send,
    lines,
    answer,
    ask: (id, method, params) => {
      send({ id, method, ...(params === undefined ? {} : { params }) })
      return answer(id)
    },
    stderr: () => stderr,
    end: async () => {
      child.stdin!.end()
      await exited
    }
  }
  wires.push(wire)
  return wire
}

/** The 2025-11-25 opening: initialize (request `id`), answered with that version, then initialized. */
const openLegacy = async (wire: Wire, id: number) => {
  const init = await wire.ask(id, "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "x", version: "0" }
  })
  expect(init.result.protocolVersion).toBe("2025-11-25")
  wire.send({ method: "notifications/initialized" })
}

const listen = (id: string, uris: ReadonlyArray<string>) => ({
  id,
  method: "subscriptions/listen",
  params: { notifications: { resourceSubscriptions: uris }, _meta: META }
})

const acknowledged = (wire: Wire) =>
  wire.lines.filter((line) => line.method === "notifications/subscriptions/acknowledged").map((line) => line.params._meta[SUBSCRIPTION_ID])

const updatedFor = (wire: Wire) =>
  wire.lines.filter((line) => line.method === "notifications/resources/updated").map((line) => line.params._meta[SUBSCRIPTION_ID])

/** Makes the pane's screen change, and waits until it has. */
const printInPane = async (text: string) => {
  const screen = () => world.tmux(["capture-pane", "-p", "-t", paneId]).stdout
  const before = screen()
  world.tmux(["send-keys", "-t", paneId, `echo ${text}`, "Enter"])
  await eventually(() => screen() !== before, 5_000, "the pane printing")
}

beforeAll(() => {
  world = makeWorld()
  paneId = world.startTmux().paneId
  screenUri = `tmux://pane/${encodeURIComponent(paneId)}/screen`
})

afterAll(async () => {
  for (const wire of wires.splice(0)) await wire.end()
  world?.dispose()
})

describe("2026-07-28 over raw lines", () => {
  it("an unknown version is refused -32022 at the opening and after it; a request without _meta is invalid params", async () => {
    const wire = open()
    const opening = await wire.ask(1, "tools/list", { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } })
    expect(opening.error).toMatchObject({ code: -32022, data: { supported: expect.arrayContaining([VERSION]), requested: "2099-01-01" } })
    const listed = await wire.ask(2, "tools/list", { _meta: META })
    expect(listed.result.tools).toHaveLength(48)
    expect(listed.result).toMatchObject({ resultType: "complete", ttlMs: 3_600_000, cacheScope: "private" })
    for (const requested of ["2099-01-01", "2025-11-25"]) {
      const later = await wire.ask(`v-${requested}`, "tools/list", {
        _meta: { ...META, "io.modelcontextprotocol/protocolVersion": requested }
      })
      expect(later.error).toEqual({
        code: -32022,
        message: expect.stringContaining(requested),
        data: { supported: [VERSION], requested }
      })
    }
    // A client's long text is not said back whole.
    const long = await wire.ask("long", "tools/list", {
      _meta: { ...META, "io.modelcontextprotocol/protocolVersion": "9".repeat(100_000) }
    })
    expect(long.error).toMatchObject({ code: -32022, data: { requested: `${"9".repeat(64)}…` } })
    expect((await wire.ask(3, "tools/list", {})).error).toMatchObject({ code: -32602, message: expect.stringContaining("_meta") })
    expect((await wire.ask(4, "tools/list")).error).toMatchObject({ code: -32602 })
    // The same list, in the same order, every time.
    expect((await wire.ask(5, "tools/list", { _meta: META })).result.tools).toEqual(listed.result.tools)
    const discovered = await wire.ask(6, "server/discover", { _meta: META })
    expect(discovered.result.supportedVersions).toContain(VERSION)
    expect(discovered.result.capabilities).toEqual({ tools: { listChanged: false }, resources: { subscribe: true }, prompts: {} })
  })

  it("what the era removed is method not found, initialize is refused, and the server serves on", async () => {
    const wire = open()
    await wire.ask(1, "tools/list", { _meta: META })
    expect((await wire.ask(2, "ping", { _meta: META })).error.code).toBe(-32601)
    expect((await wire.ask(3, "logging/setLevel", { level: "debug", _meta: META })).error.code).toBe(-32601)
    expect((await wire.ask(4, "resources/subscribe", { uri: screenUri, _meta: META })).error.code).toBe(-32601)
    const initialize = await wire.ask(5, "initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "x", version: "0" }
    })
    expect(initialize.error.code).toBe(-32022)
    const missing = `tmux://pane/${encodeURIComponent("%999")}/screen`
    const notFound = await wire.ask(6, "resources/read", { uri: missing, _meta: META })
    expect(notFound.error).toMatchObject({ code: -32602, data: { code: "not_found", uri: missing } })
    const read = await wire.ask(7, "resources/read", { uri: screenUri, _meta: META })
    // A pane's screen changes any moment: no client may keep it.
    expect(read.result).toMatchObject({ resultType: "complete", ttlMs: 0, cacheScope: "private" })
    const called = await wire.ask(8, "tools/call", {
      name: "list_sessions",
      arguments: {},
      _meta: { ...META, "io.modelcontextprotocol/logLevel": "debug" }
    })
    expect(called.result.isError).toBeUndefined()
    // Logging is stderr's: no notifications/message, even when a request asks for a level.
    expect(wire.lines.filter((line) => line.method === "notifications/message")).toEqual([])
  })

  it("100 listens at once: the missing panes and those over the cap are refused and said on stderr; the rest get updates", async () => {
    const wire = open()
    await wire.ask(0, "tools/list", { _meta: META })
    const missing = Array.from({ length: 10 }, (_, i) => `tmux://pane/${encodeURIComponent(`%${900 + i}`)}/screen`)
    for (let i = 0; i < 100; i++) wire.send(listen(`L${i}`, i < 90 ? [screenUri] : [missing[i - 90]!]))
    await eventually(
      () => {
        const errors = wire.lines.filter((line) => typeof line.id === "string" && line.id.startsWith("L") && "error" in line).length
        return errors + acknowledged(wire).length >= 100
      },
      20_000,
      "an answer to every listen"
    )
    const errors = wire.lines.filter((line) => typeof line.id === "string" && line.id.startsWith("L") && "error" in line)
    const acks = acknowledged(wire)
    expect(acks).toHaveLength(32)
    expect(acks.every((id: string) => Number(id.slice(1)) < 90)).toBe(true)
    expect(errors.filter((line) => line.error.code === -32603 && line.error.message === "Subscription limit reached")).toHaveLength(58)
    const notFound = errors.filter((line) => line.error.code === -32602)
    expect(notFound.map((line) => line.error.data.uri).sort()).toEqual([...missing].sort())
    // Reported: every refusal is a line on stderr.
    await eventually(
      () => (wire.stderr().match(/subscriptions\/listen "L\d+" refused/g) ?? []).length >= 68,
      5_000,
      "the refusals on stderr"
    )
    expect(wire.stderr().match(/subscriptions\/listen "L\d+" refused/g)).toHaveLength(68)
    expect((await wire.ask(1, "tools/list", { _meta: META })).result.tools).toHaveLength(48)

    // Every open listen hears of a change in the pane.
    await printInPane("hundred-1")
    await eventually(() => new Set(updatedFor(wire)).size >= 32, 5_000, "an update on every listen")
    expect(new Set(updatedFor(wire))).toEqual(new Set(acks))

    // A listen cancelled mid-stream hears nothing more; the others do, and its slot is free again.
    const [cancelled, ...others] = acks as Array<string>
    wire.send({ method: "notifications/cancelled", params: { requestId: cancelled } })
    await sleep(600)
    wire.lines.length = 0
    await printInPane("hundred-2")
    await eventually(() => new Set(updatedFor(wire)).size >= 31, 5_000, "an update on every listen left")
    await sleep(600)
    expect(new Set(updatedFor(wire))).toEqual(new Set(others))
    wire.send(listen("again", [screenUri]))
    await eventually(() => acknowledged(wire).includes("again"), 5_000, "the new listen's acknowledgement")
  })

  it("a listen on what is no screen is refused; one cancelled before its acknowledgement is never answered", async () => {
    const wire = open()
    await wire.ask(0, "tools/list", { _meta: META })
    const sessions = await wire.ask("sessions", "subscriptions/listen", {
      notifications: { resourceSubscriptions: ["tmux://sessions"] },
      _meta: META
    })
    expect(sessions.error).toMatchObject({ code: -32602, message: expect.stringContaining("only tmux://pane/{pane_id}/screen") })
    const tooMany = await wire.ask("many", "subscriptions/listen", {
      notifications: { resourceSubscriptions: Array.from({ length: 33 }, (_, i) => `tmux://pane/%25${i}/screen`) },
      _meta: META
    })
    expect(tooMany.error.code).toBe(-32602)
    // The listen and its cancel in one write: the cancel arrives while the pane is being read.
    wire.send(listen("early", [screenUri]))
    wire.send({ method: "notifications/cancelled", params: { requestId: "early" } })
    await sleep(1_000)
    expect(wire.lines.filter((line) => line.id === "early" || line.params?._meta?.[SUBSCRIPTION_ID] === "early")).toEqual([])
    // Nothing of it is left: a change in the pane reaches no one, and the connection serves on.
    await printInPane("early-cancelled")
    await sleep(1_000)
    expect(updatedFor(wire)).toEqual([])
    wire.send(listen("late", [screenUri]))
    await eventually(() => acknowledged(wire).includes("late"), 5_000, "the next listen's acknowledgement")
  })

  it("progress and cancellation are as on 2025-11-25", async () => {
    const wire = open()
    await wire.ask(0, "tools/list", { _meta: META })
    const waited = await wire.ask(1, "tools/call", {
      name: "wait_for_channel",
      arguments: { channel: "eras-slow", timeout: 2.5 },
      _meta: { ...META, progressToken: "p1" }
    })
    expect(waited.result).toMatchObject({ resultType: "complete" })
    const progress = wire.lines.filter((line) => line.method === "notifications/progress")
    expect(progress.length).toBeGreaterThan(0)
    expect(progress.every((line) => line.params.progressToken === "p1")).toBe(true)
    // A cancelled call is never answered, and the connection serves on.
    wire.send({
      id: 2,
      method: "tools/call",
      params: { name: "wait_for_channel", arguments: { channel: "eras-never", timeout: 20 }, _meta: META }
    })
    await sleep(300)
    wire.send({ method: "notifications/cancelled", params: { requestId: 2, reason: "test" } })
    expect((await wire.ask(3, "tools/list", { _meta: META })).result.tools).toHaveLength(48)
    await sleep(500)
    expect(wire.lines.filter((line) => line.id === 2)).toEqual([])
  })

  it("a server/discover probe, then initialize: the connection falls back to 2025-11-25 on one engine", async () => {
    const wire = open()
    const discovered = await wire.ask(1, "server/discover", { _meta: META })
    expect(discovered.result.supportedVersions).toContain(VERSION)
    await openLegacy(wire, 2)
    expect(Object.keys((await wire.ask(3, "tools/list")).result)).toEqual(["tools"])
    const missing = `tmux://pane/${encodeURIComponent("%999")}/screen`
    expect((await wire.ask(4, "resources/read", { uri: missing })).error.code).toBe(-32002)
    // Subscriptions work on the fallback's instance.
    expect((await wire.ask(5, "resources/subscribe", { uri: screenUri })).result).toEqual({})
    await printInPane("fallback-1")
    await eventually(
      () => wire.lines.some((line) => line.method === "notifications/resources/updated" && line.params.uri === screenUri),
      5_000,
      "the update on the fallback's subscription"
    )
  })

  it("on 2025-11-25 a listen is method not found, and a missing resource is -32002", async () => {
    const wire = open()
    await openLegacy(wire, 1)
    expect((await wire.ask(2, "subscriptions/listen", { notifications: { resourceSubscriptions: [screenUri] } })).error.code).toBe(-32601)
    const missing = `tmux://pane/${encodeURIComponent("%999")}/screen`
    expect((await wire.ask(3, "resources/read", { uri: missing })).error).toMatchObject({
      code: -32002,
      data: { code: "not_found", uri: missing }
    })
    // Malformed params are invalid params, never an internal error.
    expect((await wire.ask(5, "resources/read", {})).error).toEqual({
      code: -32602,
      message: "Invalid params for resources/read: uri: Missing key"
    })
    expect((await wire.ask(6, "prompts/get", { name: 3 })).error).toMatchObject({ code: -32602 })
    // No 2026 fields on the 2025 wire.
    const listed = await wire.ask(4, "tools/list")
    expect(Object.keys(listed.result)).toEqual(["tools"])
  })
})
