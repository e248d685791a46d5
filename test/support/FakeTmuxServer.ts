/**
 * A scripted stand-in for a tmux server on a Unix socket: it reads what a client sends (the
 * identify messages, the command, the answers to file opens) and sends what a script says, frame
 * by frame, in tmux's own framing. For what real tmux cannot be made to do on demand: answer
 * another protocol version, close without a word, send a message type no tmux has, never answer.
 * It can also relay a connection, byte for byte, to a real server behind it.
 *
 * It reads the header as tmux 3.3a writes it (u16 length, u16 flags), so the real tmux CLI can
 * talk to it too: the CLI passes descriptors (flagged in the header; the kernel drops them here).
 */
import { connect, createServer, type Server, type Socket } from "node:net"
import { type Frame, frame, HEADER_BYTES, Message } from "../../src/tmux/internal/ClientProtocol.js"

export interface FakeConnection {
  /** The frames the client sent before its command (the identify messages). */
  readonly identify: ReadonlyArray<Frame>
  /** The command's argv. */
  readonly argv: ReadonlyArray<string>
  /** The client's pid, from MSG_IDENTIFY_CLIENTPID. */
  readonly clientPid: number
  readonly send: (type: number, payload?: Buffer) => void
  /** Bytes as they are, a broken header included. */
  readonly sendRaw: (bytes: Buffer) => void
  /** The next frame the client sends after its command; rejects when the client goes. */
  readonly next: () => Promise<Frame>
  /** Opens stream `fd` (1 or 2) as tmux does for its first print, waits for the answer, then writes. */
  readonly print: (text: string, fd?: 1 | 2) => Promise<void>
  readonly exit: (code: number) => void
  /**
   * Writes `bytes` of stdout as fast as the client reads it (MSG_WRITE frames, the socket's
   * backpressure kept, so the flood costs this process no memory); resolves with what was sent
   * when done or when the client went away.
   */
  readonly flood: (bytes: number) => Promise<number>
  readonly close: () => void
  /** Resolves when the client closed its end (or the connection went). */
  readonly closed: Promise<void>
}

export interface FakeTmuxServer {
  readonly path: string
  /** Every connection that sent a command, in order. */
  readonly connections: ReadonlyArray<FakeConnection>
  /** Connections accepted, whether or not they sent a command. */
  readonly accepted: () => number
  readonly close: () => Promise<void>
}

/** What a client answered when asked to open files, as a server may ask (see `askForFiles`). */
export interface FileAnswers {
  /** The bytes the client sent of the file it was asked to read (none when it refused). */
  readonly read: Buffer
  /** The error of its MSG_READ_DONE (0: it read the file). */
  readonly readError: number | undefined
  /** The error of its MSG_WRITE_READY (0: it opened the file for writing, creating it). */
  readonly writeError: number | undefined
}

/**
 * Asks the client to read `secret` (MSG_READ_OPEN of a path) and to create and write `target`
 * (MSG_WRITE_OPEN of a path), as a hostile server would, then exits 0; the tmux CLI obeys both.
 */
export const askForFiles = async (c: FakeConnection, secret: string, target: string): Promise<FileAnswers> => {
  const path = (text: string) => Buffer.from(`${text}\0`)
  const read: Array<Buffer> = []
  let readError: number | undefined
  let writeError: number | undefined
  c.send(Message.READ_OPEN, Buffer.concat([ints(7, -1), path(secret)]))
  while (readError === undefined) {
    const answer = await c.next()
    if (answer.type === Message.READ) read.push(answer.payload.subarray(4))
    else if (answer.type === Message.READ_DONE) readError = answer.payload.readInt32LE(4)
  }
  c.send(Message.WRITE_OPEN, Buffer.concat([ints(8, -1, 0), path(target)]))
  while (writeError === undefined) {
    const answer = await c.next()
    if (answer.type === Message.WRITE_READY) writeError = answer.payload.readInt32LE(4)
  }
  if (writeError === 0) {
    c.send(Message.WRITE, Buffer.concat([ints(8), Buffer.from("written for a server\n")]))
    c.send(Message.WRITE_CLOSE, ints(8))
  }
  c.exit(0)
  return { read: Buffer.concat(read), readError, writeError }
}

export const ints = (...values: ReadonlyArray<number>): Buffer => Buffer.concat(values.map((v) => Buffer.from(new Int32Array([v]).buffer)))

const argvOf = (payload: Buffer): Array<string> => {
  const argc = payload.readInt32LE(0)
  return payload.subarray(4).toString("utf8").split("\0").slice(0, argc)
}

/** Frames as tmux 3.3a reads them: whatever the flags say. */
const lenientReader = () => {
  let pending = Buffer.alloc(0)
  return (chunk: Buffer): Array<Frame> => {
    pending = Buffer.concat([pending, chunk])
    const frames: Array<Frame> = []
    while (pending.length >= HEADER_BYTES && pending.length >= pending.readUInt16LE(4)) {
      const length = pending.readUInt16LE(4)
      if (length < HEADER_BYTES) throw new Error("a broken header")
      frames.push({
        type: pending.readUInt32LE(0),
        version: pending.readUInt32LE(8) & 0xff,
        payload: pending.subarray(HEADER_BYTES, length)
      })
      pending = pending.subarray(length)
    }
    return frames
  }
}

const connection = (socket: Socket, script: (connection: FakeConnection) => void | Promise<void>, opened: Array<FakeConnection>) => {
  const read = lenientReader()
  const identify: Array<Frame> = []
  const after: Array<Frame> = []
  const waiting: Array<{ resolve: (frame: Frame) => void; reject: (error: Error) => void }> = []
  let gone = false
  let resolveClosed: () => void = () => undefined
  const closed = new Promise<void>((resolve) => (resolveClosed = resolve))
  const openStreams = new Set<number>()
  let commanded = false

  const next = () =>
    new Promise<Frame>((resolve, reject) => {
      const queued = after.shift()
      if (queued !== undefined) return resolve(queued)
      if (gone) return reject(new Error("the client went away"))
      waiting.push({ resolve, reject })
    })
  const send = (type: number, payload?: Buffer) => void (gone || socket.write(frame(type, payload, 1)))
  const self: Omit<FakeConnection, "argv" | "clientPid"> & { argv: Array<string>; clientPid: number } = {
    identify,
    argv: [],
    clientPid: 0,
    send,
    sendRaw: (bytes) => void (gone || socket.write(bytes)),
    next,
    print: async (text, fd = 1) => {
      if (!openStreams.has(fd)) {
        openStreams.add(fd)
        send(Message.WRITE_OPEN, ints(fd, fd, 0))
        const ready = await next()
        if (ready.type !== Message.WRITE_READY || ready.payload.readInt32LE(4) !== 0) throw new Error("the client refused its own stream")
      }
      send(Message.WRITE, Buffer.concat([ints(fd), Buffer.from(text)]))
    },
    exit: (code) => send(Message.EXIT, ints(code)),
    flood: async (bytes) => {
      await self.print("")
      const chunk = frame(Message.WRITE, Buffer.concat([ints(1), Buffer.alloc(16_384 - 20, 0x61)]), 1)
      const per = chunk.length - 20
      let sent = 0
      while (sent < bytes && !gone && !socket.destroyed) {
        sent += per
        if (!socket.write(chunk)) {
          await new Promise<void>((resolve) => {
            const done = () => {
              socket.off("drain", done)
              socket.off("close", done)
              resolve()
            }
            socket.on("drain", done)
            socket.on("close", done)
            // It may have closed before the listeners were there.
            if (socket.destroyed) done()
          })
        }
      }
      return sent
    },
    close: () => socket.destroy(),
    closed
  }

  socket.on("data", (chunk: Buffer) => {
    let frames: Array<Frame>
    try {
      frames = read(chunk)
    } catch {
      return void socket.destroy()
    }
    for (const received of frames) {
      if (!commanded && received.type === Message.COMMAND) {
        commanded = true
        self.argv = argvOf(received.payload)
        const pid = identify.find((f) => f.type === Message.IDENTIFY_CLIENTPID)
        self.clientPid = pid === undefined ? 0 : pid.payload.readInt32LE(0)
        opened.push(self)
        void Promise.resolve(script(self)).catch(() => socket.destroy())
      } else if (!commanded) {
        identify.push(received)
      } else {
        const waiter = waiting.shift()
        if (waiter !== undefined) waiter.resolve(received)
        else after.push(received)
      }
    }
  })
  const end = () => {
    gone = true
    for (const waiter of waiting.splice(0)) waiter.reject(new Error("the client went away"))
    resolveClosed()
  }
  socket.on("end", () => {
    end()
    socket.end()
  })
  socket.on("close", end)
  socket.on("error", () => undefined)
}

/**
 * Listens on `path`; `script` runs for each connection once its command arrived. While `relayTo`
 * returns a path, a new connection is relayed there instead, untouched.
 */
export const fakeTmuxServer = async (
  path: string,
  script: (connection: FakeConnection) => void | Promise<void>,
  relayTo: () => string | undefined = () => undefined
): Promise<FakeTmuxServer> => {
  const connections: Array<FakeConnection> = []
  const sockets = new Set<Socket>()
  let accepted = 0
  const server: Server = createServer((socket) => {
    accepted++
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    const target = relayTo()
    if (target === undefined) return connection(socket, script, connections)
    const upstream = connect(target)
    sockets.add(upstream)
    upstream.on("close", () => sockets.delete(upstream))
    socket.pipe(upstream).pipe(socket)
    for (const end of [socket, upstream]) end.on("error", () => [socket, upstream].forEach((s) => s.destroy()))
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(path, () => resolve())
  })
  return {
    path,
    connections,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
