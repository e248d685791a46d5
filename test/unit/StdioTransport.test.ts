/**
 * Issue 10 item 14 in pure code: the request line reader never holds more than its limit, however
 * long a line is; an oversized line is answered (with its id when its edges show it) and the next
 * line is read as usual.
 */
import { describe, expect, it } from "@effect/vitest"
import { PassThrough } from "node:stream"
import { BoundedStdioServerTransport, LineReader, MAX_REQUEST_LINE_BYTES, recoverId } from "../../src/mcp/internal/StdioTransport.js"

const lines = (reader: LineReader, ...chunks: Array<string>) =>
  chunks.flatMap((chunk) => reader.push(Buffer.from(chunk))).map((
    event
  ) => (event._tag === "Line" ? event.line.toString() : `oversized ${event.bytes}`))

describe("LineReader", () => {
  it("splits lines across and within chunks", () => {
    const reader = new LineReader(100)
    expect(lines(reader, "a", "b\nc\n", "", "d")).toEqual(["ab", "c"])
    expect(lines(reader, "e\n\n")).toEqual(["de", ""])
    expect(reader.buffered).toBe(0)
  })

  it("drops a line over the limit as it arrives, holding at most the limit, and reads the next line", () => {
    const limit = 1024 * 1024
    const reader = new LineReader(limit)
    const chunk = Buffer.alloc(64 * 1024, "x")
    let most = 0
    const events = []
    // 100 MiB on one line, then a short one.
    for (let i = 0; i < 1600; i++) {
      events.push(...reader.push(chunk))
      most = Math.max(most, reader.buffered)
    }
    events.push(...reader.push(Buffer.from("\n{}\n")))
    expect(most).toBeLessThanOrEqual(limit)
    expect(events.map((event) => event._tag)).toEqual(["Oversized", "Line"])
    expect(events[0]).toMatchObject({ bytes: 1600 * 64 * 1024 })
    expect(events[1]!._tag === "Line" && events[1]!.line.toString()).toBe("{}")
  })

  it("a line of exactly the limit is a line", () => {
    const reader = new LineReader(10)
    expect(lines(reader, "0123456789\n", "0123456789x\n")).toEqual(["0123456789", "oversized 11"])
  })
})

describe("recoverId", () => {
  it("finds the id at the start, or closing the line (where the SDK's client puts it)", () => {
    expect(recoverId("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"x\":\"", "")).toBe(7)
    expect(recoverId("{\"id\":\"a-b\",\"method\"", "")).toBe("a-b")
    expect(recoverId("{\"method\":\"tools/call\",\"params\":{\"arguments\":{\"text\":\"", "yyyy\"}},\"jsonrpc\":\"2.0\",\"id\":42}")).toBe(
      42
    )
    expect(recoverId("{\"method\":\"tools/call\",\"params\":{\"arguments\":{\"text\":\"", "yyyy\"}},\"jsonrpc\":\"2.0\",\"id\":\"x\"}\r"))
      .toBe("x")
  })

  it("says null rather than guess: an id inside the parameters, or none", () => {
    expect(recoverId("{\"method\":\"x\",\"params\":{\"id\":5,", "\"}}")).toBe(null)
    expect(recoverId("{\"params\":{\"text\":\"", "a\",\"id\":5}}")).toBe(null)
    expect(recoverId("garbage", "garbage")).toBe(null)
  })
})

describe("BoundedStdioServerTransport", () => {
  const setup = (limit = MAX_REQUEST_LINE_BYTES) => {
    const stdin = new PassThrough()
    const stdout = new PassThrough()
    const transport = new BoundedStdioServerTransport(stdin, stdout, limit)
    const messages: Array<unknown> = []
    const errors: Array<Error> = []
    transport.onmessage = (message) => messages.push(message)
    transport.onerror = (error) => errors.push(error)
    let written = ""
    stdout.on("data", (chunk: Buffer) => (written += chunk.toString()))
    const replies = () =>
      written
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line))
    return { stdin, transport, messages, errors, replies }
  }

  it("answers an oversized line with its id, a non-JSON line with a parse error, and passes the rest on", async () => {
    const { stdin, transport, messages, replies } = setup(200)
    await transport.start()
    stdin.write(`{"method":"tools/call","params":{"text":"${"y".repeat(500)}"},"jsonrpc":"2.0","id":3}\n`)
    stdin.write("not json\n")
    stdin.write("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}\n")
    stdin.write("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":17}\n")
    stdin.write("\n")
    await new Promise((resolve) => setImmediate(resolve))
    expect(replies()).toMatchObject([
      { jsonrpc: "2.0", id: 3, error: { code: -32600 } },
      { jsonrpc: "2.0", id: null, error: { code: -32700 } },
      { jsonrpc: "2.0", id: 5, error: { code: -32600 } }
    ])
    expect(messages).toEqual([{ jsonrpc: "2.0", id: 4, method: "ping" }])
    await transport.close()
  })

  it("remembers, once, which tools/call requests had a __proto__ argument", async () => {
    const { stdin, transport, messages } = setup()
    await transport.start()
    stdin.write(
      "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"start_server\",\"arguments\":{\"__proto__\":{}}}}\n"
    )
    stdin.write("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"start_server\",\"arguments\":{}}}\n")
    await new Promise((resolve) => setImmediate(resolve))
    expect(messages).toHaveLength(2)
    expect(transport.hadProtoKey(9)).toBe(true)
    expect(transport.hadProtoKey(9)).toBe(false)
    expect(transport.hadProtoKey(10)).toBe(false)
    await transport.close()
  })
})
