/**
 * subscriptions/listen bridged onto the subscription engine (Listens.ts), with fake deps: each
 * engine call, delivery, send and log line is recorded in order, and an attach answers when the
 * test says so (a deferred per call).
 */
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/server"
import { describe, expect, it } from "vitest"
import { InvalidInput, NotFound, type ToolError } from "../../src/domain/Errors.js"
import { makeListens } from "../../src/mcp/Listens.js"
import { MAX_SUBSCRIPTIONS } from "../../src/mcp/Subscriptions.js"

const screen = (paneId: string) => `tmux://pane/${encodeURIComponent(paneId)}/screen`

type Event =
  | { readonly kind: "attach"; readonly uri: string; readonly holder: string }
  | { readonly kind: "detach"; readonly uri: string; readonly holder: string }
  | { readonly kind: "deliver"; readonly message: JSONRPCMessage }
  | { readonly kind: "send"; readonly message: JSONRPCMessage }
  | { readonly kind: "log"; readonly line: string }

interface PendingAttach {
  readonly uri: string
  readonly holder: string
  readonly resolve: (error: ToolError | undefined) => void
}

/**
 * The filter over recording deps. With `manual`, each attach waits for the test to resolve it
 * (`attaches`); otherwise it answers at once with `refuse(uri)` (undefined: subscribed).
 */
const setup = (
  options: {
    readonly manual?: boolean
    readonly legacy?: boolean
    readonly refuse?: (uri: string) => ToolError | undefined
  } = {}
) => {
  const events: Array<Event> = []
  const attaches: Array<PendingAttach> = []
  const filter = makeListens({
    attach: (uri, holder) => {
      events.push({ kind: "attach", uri, holder })
      if (options.manual === true) {
        return new Promise<ToolError | undefined>((resolve) => void attaches.push({ uri, holder, resolve }))
      }
      return Promise.resolve(options.refuse?.(uri))
    },
    detach: (uri, holder) => void events.push({ kind: "detach", uri, holder }),
    deliver: (message) => void events.push({ kind: "deliver", message }),
    send: (message) => void events.push({ kind: "send", message }),
    isLegacy: () => options.legacy === true,
    log: (line) => void events.push({ kind: "log", line })
  })
  const of = <K extends Event["kind"]>(kind: K) => events.filter((event): event is Extract<Event, { kind: K }> => event.kind === kind)
  return { filter, events, attaches, of }
}

const listen = (id: RequestId, uris: ReadonlyArray<unknown> | undefined): JSONRPCMessage =>
  ({
    jsonrpc: "2.0",
    id,
    method: "subscriptions/listen",
    params: {
      notifications: uris === undefined ? { toolsListChanged: true } : { resourceSubscriptions: uris },
      _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" }
    }
  }) as JSONRPCMessage

const cancel = (requestId: RequestId): JSONRPCMessage => ({
  jsonrpc: "2.0",
  method: "notifications/cancelled",
  params: { requestId, reason: "done" }
})

const holder = (id: RequestId) => `subscriptions/listen ${typeof id} ${String(id)}`

/** Lets every settled attach run its continuation (a few microtask turns, then a macrotask). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve))

describe("subscriptions/listen", () => {
  it("takes a listen, attaches each URI once for the listen's holder, then delivers it unchanged", async () => {
    const { filter, events, of } = setup()
    const message = listen(7, [screen("%1"), screen("%2"), screen("%1")])
    expect(filter.inbound(message)).toBe(true)
    await flush()
    expect(events).toEqual([
      { kind: "attach", uri: screen("%1"), holder: "subscriptions/listen number 7" },
      { kind: "attach", uri: screen("%2"), holder: "subscriptions/listen number 7" },
      { kind: "deliver", message }
    ])
    // The very object, not a copy.
    expect(of("deliver")[0]!.message).toBe(message)
  })

  it("attaches one URI at a time: the next only after the previous answered, delivered only after the last", async () => {
    const { filter, attaches, of } = setup({ manual: true })
    expect(filter.inbound(listen("a", [screen("%1"), screen("%2")]))).toBe(true)
    await flush()
    expect(attaches.map((attach) => attach.uri)).toEqual([screen("%1")])
    attaches[0]!.resolve(undefined)
    await flush()
    expect(attaches.map((attach) => attach.uri)).toEqual([screen("%1"), screen("%2")])
    expect(of("deliver")).toEqual([])
    attaches[1]!.resolve(undefined)
    await flush()
    expect(of("deliver")).toHaveLength(1)
    expect(of("send")).toEqual([])
  })

  it("a missing pane refuses the listen: the URIs before it let go, one -32602 not_found error with the listen id, one log line, never delivered", async () => {
    const missing = screen("%9")
    const { filter, events, of } = setup({
      refuse: (uri) => uri === missing ? new NotFound({ kind: "pane", target: "%9", socket: "s" }) : undefined
    })
    expect(filter.inbound(listen(3, [screen("%1"), screen("%2"), missing, screen("%3")]))).toBe(true)
    await flush()
    // %3 is never asked for; %1 and %2 are let go before the answer is sent.
    expect(events.map((event) => event.kind === "attach" || event.kind === "detach" ? `${event.kind} ${event.uri}` : event.kind))
      .toEqual([
        `attach ${screen("%1")}`,
        `attach ${screen("%2")}`,
        `attach ${missing}`,
        `detach ${screen("%1")}`,
        `detach ${screen("%2")}`,
        "log",
        "send"
      ])
    expect(of("detach").map((event) => event.holder)).toEqual([holder(3), holder(3)])
    const [sent] = of("send")
    expect(sent!.message).toMatchObject({
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32602, data: { code: "not_found", uri: missing } }
    })
    const error = (sent!.message as { error: { message: string } }).error
    expect(error.message.split("\n")[0]).toBe("No pane %9 exists on the tmux server at socket s.")
    expect(error.message).toContain("\nHint: ")
    expect(of("log").map((event) => event.line)).toEqual([
      "subscriptions/listen 3 refused: No pane %9 exists on the tmux server at socket s."
    ])
    expect(of("deliver")).toEqual([])
  })

  it("a URI that is not a screen refuses the listen with -32602 invalid_input", async () => {
    const { filter, of } = setup({
      refuse: (uri) => uri.startsWith("tmux://") ? undefined : new InvalidInput({ reason: "only screens" })
    })
    expect(filter.inbound(listen("x", ["file:///etc/passwd"]))).toBe(true)
    await flush()
    expect(of("send").map((event) => event.message)).toEqual([{
      jsonrpc: "2.0",
      id: "x",
      error: {
        code: -32602,
        message: expect.stringMatching(/^Invalid arguments: only screens\nHint: /),
        data: { code: "invalid_input", uri: "file:///etc/passwd" }
      }
    }])
    expect(of("detach")).toEqual([])
    expect(of("log").map((event) => event.line)).toEqual([`subscriptions/listen "x" refused: Invalid arguments: only screens`])
    expect(of("deliver")).toEqual([])
  })

  it(`a listen naming more than ${MAX_SUBSCRIPTIONS} URIs is refused -32602 at once, nothing attached`, async () => {
    const { filter, events, of } = setup()
    const uris = Array.from({ length: MAX_SUBSCRIPTIONS + 1 }, (_, i) => screen(`%${i}`))
    expect(filter.inbound(listen(5, uris))).toBe(true)
    // Synchronously, before any attach could have run.
    expect(events.map((event) => event.kind)).toEqual(["log", "send"])
    expect(of("send")[0]!.message).toEqual({
      jsonrpc: "2.0",
      id: 5,
      error: { code: -32602, message: `A listen names at most 32 resources (this one names 33).` }
    })
    await flush()
    expect(of("attach")).toEqual([])
    expect(of("deliver")).toEqual([])
  })

  it(`${MAX_SUBSCRIPTIONS} distinct URIs with a repeat are not over the cap`, async () => {
    const { filter, of } = setup()
    const uris = Array.from({ length: MAX_SUBSCRIPTIONS }, (_, i) => screen(`%${i}`))
    expect(filter.inbound(listen(6, [...uris, uris[0]]))).toBe(true)
    await flush()
    expect(of("attach")).toHaveLength(MAX_SUBSCRIPTIONS)
    expect(of("send")).toEqual([])
    expect(of("deliver")).toHaveLength(1)
  })

  it("a cancel while an attach is pending: taken, nothing delivered or sent, every attached URI let go", async () => {
    const { filter, attaches, of } = setup({ manual: true })
    expect(filter.inbound(listen(4, [screen("%1"), screen("%2"), screen("%3")]))).toBe(true)
    await flush()
    attaches[0]!.resolve(undefined)
    await flush()
    expect(attaches).toHaveLength(2)
    expect(filter.inbound(cancel(4))).toBe(true)
    attaches[1]!.resolve(undefined)
    await flush()
    // %3 is never asked for; %1 and %2 (which answered after the cancel) are let go.
    expect(of("attach").map((event) => event.uri)).toEqual([screen("%1"), screen("%2")])
    expect(of("detach")).toEqual([
      { kind: "detach", uri: screen("%1"), holder: holder(4) },
      { kind: "detach", uri: screen("%2"), holder: holder(4) }
    ])
    expect(of("deliver")).toEqual([])
    expect(of("send")).toEqual([])
    expect(of("log")).toEqual([])
    // The listen is gone: a second cancel is the SDK's, and the id may be used again.
    expect(filter.inbound(cancel(4))).toBe(false)
    expect(filter.inbound(listen(4, [screen("%5")]))).toBe(true)
    await flush()
    expect(attaches.map((attach) => attach.uri)).toEqual([screen("%1"), screen("%2"), screen("%5")])
  })

  it("a cancel while the refusing attach is pending: the URIs before it let go, and no error is sent", async () => {
    const { filter, attaches, of } = setup({ manual: true })
    filter.inbound(listen(8, [screen("%1"), screen("%9")]))
    await flush()
    attaches[0]!.resolve(undefined)
    await flush()
    expect(filter.inbound(cancel(8))).toBe(true)
    attaches[1]!.resolve(new NotFound({ kind: "pane", target: "%9", socket: "s" }))
    await flush()
    expect(of("detach").map((event) => event.uri)).toEqual([screen("%1")])
    expect(of("send")).toEqual([])
    expect(of("log")).toEqual([])
    expect(of("deliver")).toEqual([])
  })

  it("a cancel of a delivered listen lets go of its URIs and is left to the SDK", async () => {
    const { filter, of } = setup()
    filter.inbound(listen(2, [screen("%1"), screen("%2")]))
    await flush()
    expect(of("deliver")).toHaveLength(1)
    expect(filter.inbound(cancel(2))).toBe(false)
    expect(of("detach")).toEqual([
      { kind: "detach", uri: screen("%1"), holder: holder(2) },
      { kind: "detach", uri: screen("%2"), holder: holder(2) }
    ])
    // Once only: the SDK's answer to the cancelled listen (if any) lets go of nothing more.
    expect(filter.inbound(cancel(2))).toBe(false)
    filter.outbound({ jsonrpc: "2.0", id: 2, result: {} })
    expect(of("detach")).toHaveLength(2)
    expect(of("log")).toEqual([])
  })

  it("a cancel of another request, or without a requestId, is left alone", async () => {
    const { filter, events } = setup()
    filter.inbound(listen(2, [screen("%1")]))
    await flush()
    const before = events.length
    expect(filter.inbound(cancel(99))).toBe(false)
    expect(filter.inbound(cancel("2"))).toBe(false)
    expect(filter.inbound({ jsonrpc: "2.0", method: "notifications/cancelled", params: {} } as JSONRPCMessage)).toBe(false)
    expect(events.length).toBe(before)
  })

  it("the SDK's error answer to a delivered listen lets go of its URIs and is logged; the answer goes out unchanged", async () => {
    const { filter, of } = setup()
    filter.inbound(listen(11, [screen("%1"), screen("%2")]))
    await flush()
    const answer: JSONRPCMessage = { jsonrpc: "2.0", id: 11, error: { code: -32603, message: "too many listens" } }
    expect(filter.outbound(answer)).toBe(answer)
    expect(of("detach")).toEqual([
      { kind: "detach", uri: screen("%1"), holder: holder(11) },
      { kind: "detach", uri: screen("%2"), holder: holder(11) }
    ])
    expect(of("log").map((event) => event.line)).toEqual(["subscriptions/listen 11 refused: too many listens"])
    // Gone: a cancel now is only the SDK's.
    expect(filter.inbound(cancel(11))).toBe(false)
    expect(of("detach")).toHaveLength(2)
  })

  it("the SDK's result for a delivered listen (the server closed it) lets go of its URIs without a log line", async () => {
    const { filter, of } = setup()
    filter.inbound(listen("L", [screen("%1")]))
    await flush()
    const answer: JSONRPCMessage = { jsonrpc: "2.0", id: "L", result: {} }
    expect(filter.outbound(answer)).toBe(answer)
    expect(of("detach")).toEqual([{ kind: "detach", uri: screen("%1"), holder: holder("L") }])
    expect(of("log")).toEqual([])
  })

  it("outbound messages pass unchanged, and other ids' answers let go of nothing", async () => {
    const { filter, of } = setup()
    filter.inbound(listen(1, [screen("%1")]))
    await flush()
    const messages: ReadonlyArray<JSONRPCMessage> = [
      { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri: screen("%1") } },
      { jsonrpc: "2.0", id: 2, result: {} },
      { jsonrpc: "2.0", id: "1", result: {} },
      { jsonrpc: "2.0", id: 3, error: { code: -32602, message: "bad" } },
      { jsonrpc: "2.0", id: 1, method: "ping" }
    ]
    for (const message of messages) expect(filter.outbound(message)).toBe(message)
    expect(of("detach")).toEqual([])
    expect(of("log")).toEqual([])
  })

  it("on a 2025-11-25 connection a listen is the SDK's: not taken, nothing attached", async () => {
    const { filter, events } = setup({ legacy: true })
    expect(filter.inbound(listen(1, [screen("%1")]))).toBe(false)
    await flush()
    expect(events).toEqual([])
  })

  it("a listen naming no resource (none, an empty list, a non-string) is the SDK's: not taken, nothing attached", async () => {
    const { filter, events } = setup()
    expect(filter.inbound(listen(1, undefined))).toBe(false)
    expect(filter.inbound(listen(2, []))).toBe(false)
    expect(filter.inbound(listen(3, [screen("%1"), 4]))).toBe(false)
    expect(filter.inbound({ jsonrpc: "2.0", id: 4, method: "subscriptions/listen" } as JSONRPCMessage)).toBe(false)
    await flush()
    expect(events).toEqual([])
  })

  it("other requests and notifications are not taken", async () => {
    const { filter, events } = setup()
    expect(filter.inbound({ jsonrpc: "2.0", id: 1, method: "resources/subscribe", params: { uri: screen("%1") } })).toBe(false)
    expect(filter.inbound({ jsonrpc: "2.0", method: "notifications/initialized" })).toBe(false)
    expect(filter.inbound({ jsonrpc: "2.0", id: 1, result: {} })).toBe(false)
    await flush()
    expect(events).toEqual([])
  })

  it("a listen reusing the id of a pending or delivered listen is the SDK's", async () => {
    const { filter, attaches, of } = setup({ manual: true })
    expect(filter.inbound(listen(1, [screen("%1")]))).toBe(true)
    expect(filter.inbound(listen(1, [screen("%2")]))).toBe(false)
    await flush()
    attaches[0]!.resolve(undefined)
    await flush()
    expect(of("deliver")).toHaveLength(1)
    expect(filter.inbound(listen(1, [screen("%3")]))).toBe(false)
    await flush()
    expect(of("attach").map((event) => event.uri)).toEqual([screen("%1")])
  })

  it("numeric id 1 and string id \"1\" are two listens, with two holders", async () => {
    const { filter, of } = setup()
    expect(filter.inbound(listen(1, [screen("%1")]))).toBe(true)
    expect(filter.inbound(listen("1", [screen("%1")]))).toBe(true)
    await flush()
    expect(of("attach").map((event) => event.holder)).toEqual(["subscriptions/listen number 1", "subscriptions/listen string 1"])
    expect(of("deliver")).toHaveLength(2)
    // Cancelling the string one lets go of its hold only.
    expect(filter.inbound(cancel("1"))).toBe(false)
    expect(of("detach")).toEqual([{ kind: "detach", uri: screen("%1"), holder: "subscriptions/listen string 1" }])
    filter.outbound({ jsonrpc: "2.0", id: 1, result: {} })
    expect(of("detach").map((event) => event.holder)).toEqual([
      "subscriptions/listen string 1",
      "subscriptions/listen number 1"
    ])
  })
})
