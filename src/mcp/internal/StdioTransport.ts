/**
 * MCP over stdin/stdout, one JSON-RPC message per line, with every line bounded. The SDK's
 * StdioServerTransport buffers up to 10 MiB and, past that, reports an error and closes itself: the
 * process then ran out of work and exited, status 0, owned sessions and all, on one oversized
 * request. Here a line over MAX_REQUEST_LINE_BYTES is never held: its bytes are counted and dropped
 * up to its newline (only its first and last few hundred bytes are kept, to find its id), it is
 * answered with a JSON-RPC error, and the next line is read as usual. A line that is not JSON, or
 * not a JSON-RPC request, is answered with a parse or invalid-request error, as JSON-RPC asks.
 *
 * JSON.parse keeps a `__proto__` key as an own key, but the SDK's parsing of tools/call drops it
 * from `arguments` without a trace, so a call with one would run as if it were not there. The
 * transport remembers which requests had one (`hadProtoKey`), for the bridge to refuse them.
 *
 * A `filter` sits between the wire and the SDK: it sees every inbound message first and may take
 * it (answering it itself, or handing it on later with `deliver`), and it sees every outbound one.
 * It is how the server adds what an MCP era asks and the SDK does not do (McpServer.ts).
 */
import {
  deserializeMessage,
  type JSONRPCMessage,
  ProtocolErrorCode as ErrorCode,
  type RequestId,
  serializeMessage,
  type Transport
} from "@modelcontextprotocol/server"

/**
 * The longest request line: the largest valid request is a 1 MiB text (paste_text, load_buffer),
 * which JSON-escaping can make six times longer (every control byte becomes `\u00XX`), plus its
 * envelope; 8 MiB holds that with room to spare.
 */
export const MAX_REQUEST_LINE_BYTES = 8 * 1024 * 1024

/** How much of an oversized line's start and end is kept to find its id. */
const EDGE_BYTES = 512

export type LineEvent =
  | { readonly _tag: "Line"; readonly line: Buffer }
  | { readonly _tag: "Oversized"; readonly bytes: number; readonly head: Buffer; readonly tail: Buffer }

/** A copy of the last `count` bytes (a copy: a view would keep a whole stdin chunk alive). */
const lastBytes = (bytes: Buffer, count: number): Buffer => Buffer.from(bytes.subarray(Math.max(0, bytes.length - count)))

/** Splits a byte stream into lines of at most `limit` bytes, holding at most `limit` bytes at any time. */
export class LineReader {
  private pending: Array<Buffer> = []
  private size = 0
  private dropping: { bytes: number; head: Buffer; tail: Buffer } | undefined

  constructor(readonly limit: number) {}

  /** Bytes held for the line being read (never more than `limit`). */
  get buffered(): number {
    return this.size + (this.dropping === undefined ? 0 : this.dropping.head.length + this.dropping.tail.length)
  }

  push(chunk: Buffer): Array<LineEvent> {
    const events: Array<LineEvent> = []
    let start = 0
    while (start <= chunk.length) {
      const newline = chunk.indexOf(0x0a, start)
      const piece = chunk.subarray(start, newline < 0 ? chunk.length : newline)
      if (this.dropping !== undefined) {
        this.dropping.bytes += piece.length
        this.dropping.tail = lastBytes(piece.length >= EDGE_BYTES ? piece : Buffer.concat([this.dropping.tail, piece]), EDGE_BYTES)
      } else if (this.size + piece.length > this.limit) {
        const line = Buffer.concat([...this.pending, piece])
        this.dropping = { bytes: line.length, head: Buffer.from(line.subarray(0, EDGE_BYTES)), tail: lastBytes(line, EDGE_BYTES) }
        this.pending = []
        this.size = 0
      } else if (piece.length > 0) {
        this.pending.push(piece)
        this.size += piece.length
      }
      if (newline < 0) break
      if (this.dropping !== undefined) {
        events.push({ _tag: "Oversized", ...this.dropping })
        this.dropping = undefined
      } else {
        events.push({ _tag: "Line", line: Buffer.concat(this.pending) })
        this.pending = []
        this.size = 0
      }
      start = newline + 1
    }
    return events
  }

  clear(): void {
    this.pending = []
    this.size = 0
    this.dropping = undefined
  }
}

const ID = String.raw`(-?\d{1,16}|"[^"\\\x00-\x1f]{0,256}")`
/** `{"jsonrpc":"2.0","id":…` or `{"id":…` at the start of a line. */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`)
/** `…,"id":…}` closing the line: where the SDK's client, which adds the id last, puts it. */
const ID_AT_END = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID}\s*\}\s*$`)

/** The id of a request seen only by its edges, when one of them plainly shows it. */
export const recoverId = (head: string, tail: string): RequestId | null => {
  const found = ID_AT_START.exec(head) ?? ID_AT_END.exec(tail)
  return found === null ? null : (JSON.parse(found[1]!) as RequestId)
}

const errorReply = (id: RequestId | null, code: number, message: string): JSONRPCMessage =>
  // JSON-RPC answers a request it could not read with id null; the SDK's types leave that case out.
  ({ jsonrpc: "2.0", id, error: { code, message } }) as unknown as JSONRPCMessage

/** A parsed value that is not a message: answered only if it was meant as a request (or is no object at all). */
const invalidRequestId = (value: unknown): RequestId | null | undefined => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null
  if (!("method" in value)) return undefined
  const id = (value as { id?: unknown }).id
  return typeof id === "string" || typeof id === "number" ? id : null
}

/** A JSON object (not an array): what a message's params and their members are checked with (here and by the filters). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The id of a tools/call request whose `arguments` has an own `__proto__` key, else undefined. */
const protoKeyCallId = (value: unknown): RequestId | undefined =>
  isRecord(value) &&
    value.method === "tools/call" &&
    (typeof value.id === "string" || typeof value.id === "number") &&
    isRecord(value.params) &&
    isRecord(value.params.arguments) &&
    Object.hasOwn(value.params.arguments, "__proto__")
    ? value.id
    : undefined

/** Between the wire and the SDK (see the header). */
export interface WireFilter {
  /** Sees an inbound message before the SDK; true when it took it (the SDK sees it only if it is handed on with `deliver`). */
  readonly inbound: (message: JSONRPCMessage) => boolean
  /** Sees an outbound message; what it returns is written. */
  readonly outbound: (message: JSONRPCMessage) => JSONRPCMessage
}

/** Requests remembered for `hadProtoKey` (one whose parameters the SDK then rejects is never asked about). */
const MAX_REMEMBERED = 64

export class BoundedStdioServerTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  filter?: WireFilter

  private readonly reader: LineReader
  private readonly protoKeyIds = new Set<RequestId>()
  private started = false

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    readonly limit: number = MAX_REQUEST_LINE_BYTES
  ) {
    this.reader = new LineReader(limit)
  }

  private readonly onData = (chunk: Buffer | string) => {
    for (const event of this.reader.push(typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk)) {
      try {
        this.handle(event)
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)))
      }
    }
  }

  private readonly onStreamError = (error: Error) => this.onerror?.(error)

  private reply(id: RequestId | null, code: number, message: string): void {
    this.onerror?.(new Error(message))
    void this.send(errorReply(id, code, message))
  }

  private handle(event: LineEvent): void {
    if (event._tag === "Oversized") {
      const id = recoverId(event.head.toString("utf8"), event.tail.toString("utf8"))
      this.reply(
        id,
        ErrorCode.InvalidRequest,
        `Request too large: ${event.bytes} bytes on one line, over the limit of ${this.limit} bytes (${
          this.limit / 1_048_576
        } MiB). The largest valid request (1 MiB of text, JSON-escaped) fits; split the payload.`
      )
      return
    }
    const text = event.line.toString("utf8").replace(/\r$/, "")
    if (text.trim() === "") return
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      this.reply(null, ErrorCode.ParseError, "Parse error: the line is not JSON.")
      return
    }
    const protoKeyId = protoKeyCallId(parsed)
    if (protoKeyId !== undefined) {
      this.protoKeyIds.add(protoKeyId)
      if (this.protoKeyIds.size > MAX_REMEMBERED) this.protoKeyIds.delete(this.protoKeyIds.values().next().value!)
    }
    let message: JSONRPCMessage
    try {
      message = deserializeMessage(text)
    } catch (error) {
      const id = invalidRequestId(parsed)
      if (id === undefined) this.onerror?.(error instanceof Error ? error : new Error(String(error)))
      else this.reply(id, ErrorCode.InvalidRequest, "Invalid Request: the line is not a JSON-RPC 2.0 message.")
      return
    }
    if (this.filter?.inbound(message) === true) return
    this.onmessage?.(message)
  }

  /** Hands a message the filter took on to the SDK. */
  deliver(message: JSONRPCMessage): void {
    this.onmessage?.(message)
  }

  /** Whether the tools/call request `id` had a `__proto__` key in its arguments (asked once per request). */
  hadProtoKey(id: RequestId): boolean {
    return this.protoKeyIds.delete(id)
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("BoundedStdioServerTransport already started")
    this.started = true
    this.stdin.on("data", this.onData)
    this.stdin.on("error", this.onStreamError)
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.onData)
    this.stdin.off("error", this.onStreamError)
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause()
    this.reader.clear()
    this.protoKeyIds.clear()
    this.onclose?.()
  }

  send(message: JSONRPCMessage): Promise<void> {
    const written = this.filter === undefined ? message : this.filter.outbound(message)
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(written))) resolve()
      else this.stdout.once("drain", resolve)
    })
  }
}
