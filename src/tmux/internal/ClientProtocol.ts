/**
 * tmux's client protocol, as the `tmux` CLI speaks it to its server over the Unix socket: imsg
 * frames, the identify messages, the command message, and the payloads of the file messages the
 * server sends while a command runs. Read from tmux's own source (tmux-protocol.h, client.c,
 * server-client.c, file.c, proc.c, compat/imsg.c) at 3.3a, 3.5a and the 3.8 development tree.
 *
 * A frame is a 16-byte header, then the payload, at most 16384 bytes in all (MAX_IMSGSIZE), in the
 * host's byte order. Up to 3.5 the header is `{u32 type, u16 len, u16 flags, u32 peerid, u32 pid}`;
 * from 3.6 `{u32 type, u32 len, u32 peerid, u32 pid}`, a passed descriptor marked in len's top bit.
 * This client passes no descriptors, so its flags are 0, and on a little-endian host a u16 length
 * followed by zero flags is the same four bytes as a u32 length: one layout serves every version.
 * (On a big-endian host the two layouts differ: `hostSpeaksEveryVersion` is false there.)
 *
 * `peerid`'s low byte carries PROTOCOL_VERSION (8 from tmux 3.2 to 3.8); a server of another version
 * answers MSG_VERSION. Every payload's size is checked by tmux 3.3a with `fatalx`, which ends the
 * whole server, so the encoders here produce exactly the sizes tmux reads.
 */
import { endianness } from "node:os"

export const PROTOCOL_VERSION = 8
export const HEADER_BYTES = 16
/** MAX_IMSGSIZE: the most one frame carries, header included. */
export const MAX_MESSAGE_BYTES = 16_384
/** What a frame carries after its header. */
export const MAX_PAYLOAD_BYTES = MAX_MESSAGE_BYTES - HEADER_BYTES

/** The client flag that makes tmux send tabs and non-ASCII as they are (else `_`), as `tmux -u` does. */
export const CLIENT_UTF8 = 0x10000

/** Message types (tmux-protocol.h's `enum msgtype`; unchanged from 3.2, newer servers append 307 and 308). */
export const Message = {
  VERSION: 12,
  IDENTIFY_FLAGS: 100,
  IDENTIFY_TERM: 101,
  IDENTIFY_TTYNAME: 102,
  IDENTIFY_ENVIRON: 105,
  IDENTIFY_DONE: 106,
  IDENTIFY_CLIENTPID: 107,
  IDENTIFY_CWD: 108,
  COMMAND: 200,
  DETACH: 201,
  DETACHKILL: 202,
  EXIT: 203,
  EXITED: 204,
  EXITING: 205,
  SHUTDOWN: 210,
  FLAGS: 218,
  READ_OPEN: 300,
  READ: 301,
  READ_DONE: 302,
  WRITE_OPEN: 303,
  WRITE: 304,
  WRITE_READY: 305,
  WRITE_CLOSE: 306,
  READ_CANCEL: 307
} as const

/** The fixed part before a MSG_READ payload's data: `{int stream}`. */
const STREAM_BYTES = 4
/** The most data one MSG_READ (or MSG_WRITE) carries. */
export const MAX_DATA_BYTES = MAX_PAYLOAD_BYTES - STREAM_BYTES

/** Whether the one header layout written here reads the same to every tmux version on this host. */
export const hostSpeaksEveryVersion = endianness() === "LE"

/** One frame as written: its header (peerid the protocol version, our pid) and payload. */
export const frame = (type: number, payload: Buffer = Buffer.alloc(0), pid: number = process.pid): Buffer => {
  const message = Buffer.allocUnsafe(HEADER_BYTES + payload.length)
  message.writeUInt32LE(type, 0)
  // u16 len + u16 flags (0) up to tmux 3.5, u32 len from 3.6: the same bytes on a little-endian host.
  message.writeUInt32LE(HEADER_BYTES + payload.length, 4)
  message.writeUInt32LE(PROTOCOL_VERSION, 8)
  message.writeUInt32LE(pid >>> 0, 12)
  payload.copy(message, HEADER_BYTES)
  return message
}

const int32 = (value: number): Buffer => {
  const bytes = Buffer.allocUnsafe(4)
  bytes.writeInt32LE(value, 0)
  return bytes
}

const ints = (...values: ReadonlyArray<number>): Buffer => Buffer.concat(values.map(int32))

const cString = (text: string): Buffer => Buffer.from(`${text}\0`, "utf8")

/** Who the client is, as the `tmux` CLI says it before its command. */
export interface Identity {
  /** The environment the server sees as the client's (`NAME=value` each). */
  readonly environment: Readonly<Record<string, string>>
  /** The client's working directory: where a new session or window starts without `-c`. */
  readonly cwd: string
  readonly pid: number
}

/**
 * The identify messages, in the CLI's order, ending with MSG_IDENTIFY_DONE. No MSG_IDENTIFY_STDIN /
 * _STDOUT (descriptors): tmux then treats the client as one whose stdin is not a terminal, as it
 * treats a spawned CLI with stdin on /dev/null. The tty name is sent, empty: tmux 3.3a reads it
 * unchecked once identifying is done. A variable too long for one frame is left out, as the CLI does.
 */
/** An identity with its messages encoded once: the same for every connection of a layer. */
export interface PreparedIdentity {
  readonly pid: number
  readonly messages: Buffer
}

export const prepareIdentity = (identity: Identity): PreparedIdentity => ({ pid: identity.pid, messages: identifyMessages(identity) })

export const identifyMessages = (identity: Identity): Buffer => {
  const messages = [
    frame(Message.IDENTIFY_FLAGS, int32(CLIENT_UTF8), identity.pid),
    frame(Message.IDENTIFY_TERM, cString(identity.environment.TERM ?? ""), identity.pid),
    frame(Message.IDENTIFY_TTYNAME, cString(""), identity.pid),
    frame(Message.IDENTIFY_CWD, cString(identity.cwd), identity.pid),
    frame(Message.IDENTIFY_CLIENTPID, int32(identity.pid), identity.pid)
  ]
  for (const [name, value] of Object.entries(identity.environment)) {
    const variable = cString(`${name}=${value}`)
    if (variable.length <= MAX_PAYLOAD_BYTES) messages.push(frame(Message.IDENTIFY_ENVIRON, variable, identity.pid))
  }
  messages.push(frame(Message.IDENTIFY_DONE, undefined, identity.pid))
  return Buffer.concat(messages)
}

/** The argv bytes of a command message: every argument with its NUL. */
export const packedArgvBytes = (argv: ReadonlyArray<string>): number =>
  argv.reduce((bytes, arg) => bytes + Buffer.byteLength(arg, "utf8") + 1, 0)

/** The most argv bytes one command message carries: a frame less its header and argc. */
export const MAX_ARGV_BYTES = MAX_PAYLOAD_BYTES - 4

/**
 * MSG_COMMAND: `{int argc}` and the NUL-terminated arguments. An empty argv would run tmux's default
 * command (`new-session`), so it is refused here, as is an argv over the frame (tmux drops the
 * client) and an argument holding NUL (it would split into two).
 */
export const commandMessage = (argv: ReadonlyArray<string>, pid: number = process.pid): Buffer => {
  if (argv.length === 0) throw new Error("an empty command would run tmux's default command")
  if (argv.some((arg) => arg.includes("\0"))) throw new Error("an argument holds a NUL character")
  if (packedArgvBytes(argv) > MAX_ARGV_BYTES) throw new Error("the command does not fit in one message")
  return frame(Message.COMMAND, Buffer.concat([int32(argv.length), ...argv.map(cString)]), pid)
}

/** MSG_WRITE_READY: the answer to a write open, `error` 0 to accept. */
export const writeReady = (stream: number, error: number): Buffer => frame(Message.WRITE_READY, ints(stream, error))

/** MSG_READ frames carrying `data` for a read stream (as many as it takes), then MSG_READ_DONE. */
export const readReply = (stream: number, data: Buffer, error = 0): Buffer => {
  const frames: Array<Buffer> = []
  for (let offset = 0; offset < data.length; offset += MAX_DATA_BYTES) {
    frames.push(frame(Message.READ, Buffer.concat([int32(stream), data.subarray(offset, offset + MAX_DATA_BYTES)])))
  }
  frames.push(frame(Message.READ_DONE, ints(stream, error)))
  return Buffer.concat(frames)
}

/** MSG_EXITING: the client's answer to being detached. */
export const exiting = (): Buffer => frame(Message.EXITING)

/** One frame as read. */
export interface Frame {
  readonly type: number
  /** The version in the sender's peerid (its low byte). */
  readonly version: number
  readonly payload: Buffer
}

/** A header that no tmux this client speaks to writes: a length out of bounds, flags or a descriptor. */
export class MalformedFrame extends Error {}

/** Cuts the server's byte stream into frames, however the reads split it. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0)

  /** The frames completed by `chunk`; throws `MalformedFrame` on a header tmux would not write. */
  push(chunk: Buffer): Array<Frame> {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
    const frames: Array<Frame> = []
    while (this.pending.length >= HEADER_BYTES) {
      // A u32 here: a u16 length and zero flags (up to 3.5), or a length without the descriptor mark.
      const length = this.pending.readUInt32LE(4)
      if (length < HEADER_BYTES || length > MAX_MESSAGE_BYTES) {
        throw new MalformedFrame(`a frame header of length field ${length}`)
      }
      if (this.pending.length < length) break
      frames.push({
        type: this.pending.readUInt32LE(0),
        version: this.pending.readUInt32LE(8) & 0xff,
        payload: Buffer.from(this.pending.subarray(HEADER_BYTES, length))
      })
      this.pending = this.pending.subarray(length)
    }
    return frames
  }

  /** Bytes of a frame begun but not finished. */
  get buffered(): number {
    return this.pending.length
  }
}

/** The payloads the server sends while a command runs, read with tmux's own size rules. */
export interface StreamOpen {
  readonly stream: number
  /** The client's descriptor asked for (0 stdin, 1 stdout, 2 stderr) or -1 for a path. */
  readonly fd: number
  /** The path to open; "-" when none follows (the stream's own descriptor). */
  readonly path: string
}

const stringAfter = (payload: Buffer, offset: number): string => {
  if (payload.length <= offset) return "-"
  const end = payload.indexOf(0, offset)
  return payload.toString("utf8", offset, end === -1 ? payload.length : end)
}

/** MSG_READ_OPEN `{int stream, int fd}` + path, or undefined when shorter than tmux writes it. */
export const readOpen = (payload: Buffer): StreamOpen | undefined =>
  payload.length < 8 ? undefined : { stream: payload.readInt32LE(0), fd: payload.readInt32LE(4), path: stringAfter(payload, 8) }

/** MSG_WRITE_OPEN `{int stream, int fd, int flags}` + path. */
export const writeOpen = (payload: Buffer): StreamOpen | undefined =>
  payload.length < 12 ? undefined : { stream: payload.readInt32LE(0), fd: payload.readInt32LE(4), path: stringAfter(payload, 12) }

/** MSG_WRITE `{int stream}` + data. */
export const writeData = (payload: Buffer): { readonly stream: number; readonly data: Buffer } | undefined =>
  payload.length < STREAM_BYTES ? undefined : { stream: payload.readInt32LE(0), data: payload.subarray(STREAM_BYTES) }

/** MSG_EXIT: `[int retval [message]]`; an empty payload exits 0, as the CLI reads it. */
export const exitStatus = (payload: Buffer): { readonly code: number; readonly message: string | undefined } | undefined => {
  if (payload.length === 0) return { code: 0, message: undefined }
  if (payload.length < 4) return undefined
  return { code: payload.readInt32LE(0), message: payload.length > 4 ? stringAfter(payload, 4) : undefined }
}
