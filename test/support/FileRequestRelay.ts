/**
 * A relay in front of a real tmux server that records every file its server asks the client to
 * open: MSG_READ_OPEN and MSG_WRITE_OPEN frames, read from the server's side of each connection as
 * they pass (byte for byte, nothing changed). A request of a path (fd -1, or a path after the
 * stream's descriptor) is a file opened on the server's behalf if the client obeys; the tmux CLI
 * does. Frames are read with the u32 length of tmux 3.6 and the u16 length and zero flags of
 * earlier versions alike (the same bytes on a little-endian host).
 */
import { connect, createServer, type Socket } from "node:net"
import { HEADER_BYTES, Message } from "../../src/tmux/internal/ClientProtocol.js"

export interface FileRequest {
  readonly type: "read" | "write"
  readonly fd: number
  readonly path: string
}

export interface FileRequestRelay {
  readonly path: string
  /** Every open the server asked for, in order. */
  readonly requests: ReadonlyArray<FileRequest>
  /** Connections relayed so far. */
  readonly relayed: () => number
  readonly close: () => Promise<void>
}

const recorder = (record: (request: FileRequest) => void) => {
  let pending = Buffer.alloc(0)
  return (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk])
    while (pending.length >= HEADER_BYTES) {
      const length = pending.readUInt16LE(4)
      if (length < HEADER_BYTES || pending.length < length) break
      const type = pending.readUInt32LE(0)
      const payload = pending.subarray(HEADER_BYTES, length)
      const fixed = type === Message.READ_OPEN ? 8 : type === Message.WRITE_OPEN ? 12 : undefined
      if (fixed !== undefined && payload.length >= 8) {
        const end = payload.indexOf(0, fixed)
        const path = payload.length > fixed ? payload.toString("utf8", fixed, end === -1 ? payload.length : end) : "-"
        record({ type: type === Message.READ_OPEN ? "read" : "write", fd: payload.readInt32LE(4), path })
      }
      pending = pending.subarray(length)
    }
  }
}

export const fileRequestRelay = async (path: string, upstreamPath: string): Promise<FileRequestRelay> => {
  const requests: Array<FileRequest> = []
  const sockets = new Set<Socket>()
  let relayed = 0
  const server = createServer((client) => {
    relayed++
    const upstream = connect(upstreamPath)
    const read = recorder((request) => requests.push(request))
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      socket.on("error", () => [client, upstream].forEach((s) => s.destroy()))
    }
    upstream.on("data", (chunk: Buffer) => {
      read(chunk)
      client.write(chunk)
    })
    upstream.on("end", () => client.end())
    client.pipe(upstream)
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(path, () => resolve())
  })
  return {
    path,
    requests,
    relayed: () => relayed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
