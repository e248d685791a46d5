/**
 * The socket transport's codec (src/tmux/internal/ClientProtocol.ts) against the sizes tmux reads:
 * tmux 3.3a ends the whole server (`fatalx`) on an identify message of the wrong size, so every
 * frame is checked byte for byte here, and the command message's limit is the one CommandBatches
 * plans by.
 */
import { describe, expect, it } from "vitest"
import { TMUX_ARGV_LIMIT } from "../../src/tmux/CommandBatches.js"
import {
  CLIENT_UTF8,
  commandMessage,
  exitStatus,
  type Frame,
  frame,
  FrameReader,
  HEADER_BYTES,
  identifyMessages,
  MalformedFrame,
  MAX_ARGV_BYTES,
  MAX_MESSAGE_BYTES,
  Message,
  PROTOCOL_VERSION,
  readOpen,
  readReply,
  writeOpen,
  writeReady
} from "../../src/tmux/internal/ClientProtocol.js"

const framesOf = (bytes: Buffer): Array<Frame> => new FrameReader().push(bytes)
const cString = (payload: Buffer) => {
  expect(payload.at(-1)).toBe(0)
  return payload.subarray(0, -1).toString("utf8")
}

describe("imsg frames", () => {
  it("write the 16-byte header in the host's order: type, length with the header, the protocol version, the pid", () => {
    const bytes = frame(Message.COMMAND, Buffer.from("abc"), 4242)
    expect(bytes.length).toBe(HEADER_BYTES + 3)
    expect(bytes.readUInt32LE(0)).toBe(200)
    // u16 length then u16 flags 0 (tmux up to 3.5), or a u32 length (3.6 on): the same bytes.
    expect(bytes.readUInt16LE(4)).toBe(19)
    expect(bytes.readUInt16LE(6)).toBe(0)
    expect(bytes.readUInt32LE(8)).toBe(PROTOCOL_VERSION)
    expect(bytes.readUInt32LE(12)).toBe(4242)
    expect(bytes.subarray(HEADER_BYTES).toString()).toBe("abc")
  })

  it("are read back whole however the stream is cut, several per read", () => {
    const stream = Buffer.concat([frame(Message.WRITE, Buffer.from("one")), frame(Message.EXIT, Buffer.alloc(4)), frame(Message.SHUTDOWN)])
    const reader = new FrameReader()
    const read: Array<Frame> = []
    for (const byte of stream) read.push(...reader.push(Buffer.from([byte])))
    expect(read.map((f) => [f.type, f.version, f.payload.length])).toEqual([[304, 8, 3], [203, 8, 4], [210, 8, 0]])
    expect(reader.buffered).toBe(0)
    expect(framesOf(stream).map((f) => f.type)).toEqual([304, 203, 210])
  })

  it("refuse a header no tmux writes: a length below the header, past 16 KiB, or flags set", () => {
    const bad = (length: number) => {
      const bytes = frame(Message.EXIT)
      bytes.writeUInt32LE(length, 4)
      return bytes
    }
    expect(() => framesOf(bad(15))).toThrow(MalformedFrame)
    expect(() => framesOf(bad(MAX_MESSAGE_BYTES + 1))).toThrow(MalformedFrame)
    // tmux 3.3a's IMSGF_HASFD in the flags half; 3.6's descriptor mark in the top bit.
    expect(() => framesOf(bad(16 | (1 << 16)))).toThrow(MalformedFrame)
    expect(() => framesOf(bad((16 | 0x80000000) >>> 0))).toThrow(MalformedFrame)
  })
})

describe("identify messages", () => {
  const identity = { environment: { PATH: "/usr/bin", TERM: "xterm-256color", LANG: "C.UTF-8" }, cwd: "/home/me/dir", pid: 77 }

  it("say what the CLI says, in its order, with the sizes tmux checks, and end with DONE", () => {
    const frames = framesOf(identifyMessages(identity))
    expect(frames.map((f) => f.type)).toEqual([100, 101, 102, 108, 107, 105, 105, 105, 106])
    const [flags, term, tty, cwd, pid, ...rest] = frames
    // An int, CLIENT_UTF8 alone: without it tmux sends tabs and non-ASCII as "_".
    expect(flags!.payload.length).toBe(4)
    expect(flags!.payload.readInt32LE(0)).toBe(CLIENT_UTF8)
    expect(cString(term!.payload)).toBe("xterm-256color")
    // Empty but present and NUL-terminated: tmux 3.3a reads it unchecked.
    expect(tty!.payload).toEqual(Buffer.from([0]))
    expect(cString(cwd!.payload)).toBe("/home/me/dir")
    expect(pid!.payload.length).toBe(4)
    expect(pid!.payload.readInt32LE(0)).toBe(77)
    expect(rest.slice(0, 3).map((f) => cString(f.payload))).toEqual(["PATH=/usr/bin", "TERM=xterm-256color", "LANG=C.UTF-8"])
    expect(rest[3]!.payload.length).toBe(0)
    for (const f of frames) expect(f.version).toBe(PROTOCOL_VERSION)
  })

  it("send an empty TERM as an empty string, and leave out a variable too long for one frame, as the CLI does", () => {
    const frames = framesOf(identifyMessages({ environment: { HUGE: "x".repeat(MAX_MESSAGE_BYTES) }, cwd: "/", pid: 1 }))
    expect(frames.map((f) => f.type)).toEqual([100, 101, 102, 108, 107, 106])
    expect(frames[1]!.payload).toEqual(Buffer.from([0]))
  })
})

describe("the command message", () => {
  it("is {int argc} and the NUL-terminated arguments", () => {
    const [command] = framesOf(commandMessage(["display-message", "-p", "ü\t;"], 5))
    expect(command!.type).toBe(200)
    expect(command!.payload.readInt32LE(0)).toBe(3)
    expect(command!.payload.subarray(4).toString("utf8")).toBe("display-message\0-p\0ü\t;\0")
  })

  it("carries as much argv as one tmux CLI invocation, the limit CommandBatches plans by, and not a byte more", () => {
    expect(MAX_ARGV_BYTES).toBe(TMUX_ARGV_LIMIT)
    const argv = (bytes: number) => ["display-message", "-p", "x".repeat(bytes - "display-message".length - 1 - 3 - 1)]
    expect(commandMessage(argv(MAX_ARGV_BYTES)).length).toBe(MAX_MESSAGE_BYTES)
    expect(() => commandMessage(argv(MAX_ARGV_BYTES + 1))).toThrow(/does not fit/)
  })

  it("is never empty (tmux would run new-session) and never holds a NUL (the argument would split)", () => {
    expect(() => commandMessage([])).toThrow(/default command/)
    expect(() => commandMessage(["set-buffer", "a\0b"])).toThrow(/NUL/)
  })
})

describe("the file messages", () => {
  it("read an open's stream, descriptor and path; no path is the stream's own descriptor", () => {
    const ints = (...values: Array<number>) => Buffer.concat(values.map((v) => Buffer.from(new Int32Array([v]).buffer)))
    expect(writeOpen(ints(1, 1, 0))).toEqual({ stream: 1, fd: 1, path: "-" })
    expect(writeOpen(Buffer.concat([ints(3, -1, 512), Buffer.from("/tmp/out\0")]))).toEqual({ stream: 3, fd: -1, path: "/tmp/out" })
    expect(readOpen(Buffer.concat([ints(4, 0), Buffer.from("-\0")]))).toEqual({ stream: 4, fd: 0, path: "-" })
    expect(readOpen(ints(4))).toBeUndefined()
    expect(writeOpen(ints(1, 1))).toBeUndefined()
  })

  it("answer a write open with {stream, error}, and a read with chunks that fit a frame, then {stream, error}", () => {
    const [ready] = framesOf(writeReady(2, 13))
    expect([ready!.type, ready!.payload.readInt32LE(0), ready!.payload.readInt32LE(4), ready!.payload.length]).toEqual([305, 2, 13, 8])
    const data = Buffer.alloc(40_000, 0x61)
    const frames = framesOf(readReply(5, data))
    expect(frames.map((f) => f.type)).toEqual([301, 301, 301, 302])
    for (const f of frames) expect(f.payload.length + HEADER_BYTES).toBeLessThanOrEqual(MAX_MESSAGE_BYTES)
    expect(Buffer.concat(frames.slice(0, 3).map((f) => f.payload.subarray(4)))).toEqual(data)
    expect(frames.slice(0, 3).map((f) => f.payload.readInt32LE(0))).toEqual([5, 5, 5])
    expect([frames[3]!.payload.readInt32LE(0), frames[3]!.payload.readInt32LE(4)]).toEqual([5, 0])
    expect(framesOf(readReply(6, Buffer.alloc(0), 9)).map((f) => [f.type, f.payload.readInt32LE(4)])).toEqual([[302, 9]])
  })

  it("read an exit as the CLI does: no payload exits 0, a status, a status and a message", () => {
    expect(exitStatus(Buffer.alloc(0))).toEqual({ code: 0, message: undefined })
    expect(exitStatus(Buffer.from(new Int32Array([1]).buffer))).toEqual({ code: 1, message: undefined })
    expect(exitStatus(Buffer.concat([Buffer.from(new Int32Array([0]).buffer), Buffer.from("access not allowed\0")]))).toEqual({
      code: 0,
      message: "access not allowed"
    })
    expect(exitStatus(Buffer.alloc(2))).toBeUndefined()
  })
})
