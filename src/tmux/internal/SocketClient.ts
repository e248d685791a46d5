/**
 * One tmux command list over the server's Unix socket, as the `tmux` CLI runs it once it has
 * started: connect, identify, send MSG_COMMAND, serve the file messages the server sends, read
 * MSG_EXIT. One connection per list, nothing kept between lists.
 *
 * The server asks its command client to open files on its behalf (MSG_READ_OPEN / MSG_WRITE_OPEN).
 * This client serves only its own streams: stdout and stderr (descriptors 1 and 2), and stdin
 * (descriptor 0) once, with the call's payload or nothing. Every open of a path is refused with
 * EACCES, so no tmux command (`load-buffer /path`, `save-buffer /path`, …) can make this process
 * read or write a file.
 *
 * Plain Node (node:net, callbacks): one socket whose bytes are read as they come and which must be
 * closable from any state; `TmuxSocket` wraps it in Effect (deadline, interruption, fallback).
 * Effect 4's `effect/socket` Socket is not used: its channel adds work on the hot path and start-up
 * time for nothing this needs.
 */
import { createConnection, type Socket } from "node:net"
import { constants } from "node:os"
import { getSystemErrorMap } from "node:util"
import {
  commandMessage,
  exiting,
  exitStatus,
  type Frame,
  FrameReader,
  Message,
  type PreparedIdentity,
  PROTOCOL_VERSION,
  readOpen,
  readReply,
  writeData,
  writeOpen,
  writeReady
} from "./ClientProtocol.js"
import { MAX_OUTPUT_BYTES, type OutputAllowance, type Overflow } from "./OutputLimit.js"

/** What became of one command list. */
export type SocketOutcome =
  /**
   * tmux ran the list and said how it ended; stdout and stderr as the CLI would print them.
   * `shutdown`: the word was MSG_SHUTDOWN (the server is exiting: kill-server), which the CLI takes
   * as exit 0 without a word, though the list may not have run (only a list that killed the server
   * itself is answered that way on purpose).
   */
  | {
    readonly _tag: "Exited"
    readonly stdout: string
    readonly stderr: string
    readonly exitCode: number
    readonly shutdown?: boolean
  }
  /** No connection: the CLI's own words for it ("no server running on …", "error connecting to … (…)"). */
  | { readonly _tag: "Unreachable"; readonly stderr: string }
  /**
   * A tmux of another protocol version: MSG_VERSION, its first and only word (it ran nothing). The
   * one answer after which a tmux CLI of that version may serve the server.
   */
  | { readonly _tag: "OtherVersion"; readonly version: number }
  /**
   * What answers does not speak tmux's protocol (garbage, a header tmux never writes, an unknown
   * message, a message of another version). `answered`: the list may have run in part.
   */
  | { readonly _tag: "Garbled"; readonly reason: string; readonly answered: boolean }
  /**
   * The connection closed before MSG_EXIT: after tmux had started answering (`answered`: the
   * server went away mid-list), or before any word (a server exiting, or not a tmux at all).
   */
  | { readonly _tag: "Lost"; readonly answered: boolean }
  /** The output passed `maxOutputBytes`, or the allowance: the connection was closed and the output dropped. */
  | { readonly _tag: "Overflowed"; readonly overflow: Overflow }

export interface SocketRequest {
  readonly path: string
  /** The client's identify messages (prepareIdentity), sent before the command. */
  readonly identity: PreparedIdentity
  /** The command list's argv, `;` separators included, as the CLI sends it. */
  readonly argv: ReadonlyArray<string>
  /** The payload a `load-buffer -` of the list reads. */
  readonly stdin?: string | undefined
  /** The most stdout and stderr bytes kept, together (OutputLimit.MAX_OUTPUT_BYTES by default). */
  readonly maxOutputBytes?: number | undefined
  /** What this exchange's output is held against, with the other calls in flight (none: no shared bound). */
  readonly allowance?: OutputAllowance | undefined
}

const STDIN = 0
const STDOUT = 1
const STDERR = 2

const systemErrors = getSystemErrorMap()

/**
 * A connect the server's listen backlog refuses (EAGAIN: a burst of connections it has not
 * accepted yet) is tried again after this long, doubling up to MAX_BACKOFF_MS, with jitter: the
 * CLI's blocking connect waits there, it never means that no server runs.
 */
const FIRST_BACKOFF_MS = 1
const MAX_BACKOFF_MS = 20

/** The CLI's message for a failed connect (client.c): ECONNREFUSED is "no server running". */
const unreachable = (path: string, error: NodeJS.ErrnoException): string => {
  if (error.code === "ECONNREFUSED") return `no server running on ${path}\n`
  const described = error.errno === undefined ? undefined : systemErrors.get(error.errno)?.[1]
  return `error connecting to ${path} (${described ?? error.code ?? "unknown error"})\n`
}

/**
 * Runs one command list; `done` is called exactly once. Returns a function that closes the
 * connection at once (a deadline, an interruption), after which `done` is not called. The identify
 * messages and the command are written at once: the socket queues them until it is connected, which
 * saves a turn of the event loop.
 */
export const runOverSocket = (request: SocketRequest, done: (outcome: SocketOutcome) => void): () => void => {
  // Throws on a list no message can carry: callers refuse those first (CommandList.markList).
  const command = commandMessage(request.argv, request.identity.pid)
  const reader = new FrameReader()
  const stdout: Array<Buffer> = []
  const stderr: Array<Buffer> = []
  const maxOutputBytes = request.maxOutputBytes ?? MAX_OUTPUT_BYTES
  let outputBytes = 0
  /** Open write streams: tmux's stream number -> our descriptor (1 or 2). */
  const streams = new Map<number, number>()
  let connected = false
  let answered = false
  let stdinServed = false
  let settled = false
  /** The connection being made or used; undefined while waiting to try the connect again. */
  let socket: Socket | undefined
  let retry: ReturnType<typeof setTimeout> | undefined
  let backoffMs = FIRST_BACKOFF_MS

  const end = () => {
    settled = true
    clearTimeout(retry)
    socket?.destroy()
    request.allowance?.give(outputBytes)
    outputBytes = 0
  }
  const settle = (outcome: SocketOutcome) => {
    if (settled) return
    end()
    done(outcome)
  }
  const send = (bytes: Buffer) => void socket?.write(bytes)
  const garbled = (reason: string) => settle({ _tag: "Garbled", reason, answered })

  const exited = (code: number, message: string | undefined, shutdown = false) => {
    if (message !== undefined) stderr.push(Buffer.from(`${message}\n`))
    settle({
      _tag: "Exited",
      stdout: Buffer.concat(stdout).toString("utf8"),
      stderr: Buffer.concat(stderr).toString("utf8"),
      exitCode: code,
      ...(shutdown ? { shutdown } : {})
    })
  }

  /** Handles one frame; false when it ended the exchange. */
  const handle = ({ type, version, payload }: Frame): boolean => {
    if (type === Message.VERSION && !answered) {
      settle({ _tag: "OtherVersion", version })
      return false
    }
    if (version !== PROTOCOL_VERSION) {
      garbled(`a message of protocol version ${version}`)
      return false
    }
    // From here tmux may have run (part of) the list: a failure can no longer be retried elsewhere.
    answered = true
    switch (type) {
      case Message.WRITE_OPEN: {
        const open = writeOpen(payload)
        if (open === undefined) return (garbled("a short MSG_WRITE_OPEN"), false)
        // Only our own stdout and stderr, never a path, and a stream once.
        const ours = (open.fd === STDOUT || open.fd === STDERR) && open.path === "-" && !streams.has(open.stream)
        if (ours) streams.set(open.stream, open.fd)
        send(writeReady(open.stream, ours ? 0 : constants.errno.EACCES))
        return true
      }
      case Message.WRITE: {
        const write = writeData(payload)
        const fd = write === undefined ? undefined : streams.get(write.stream)
        if (write === undefined || fd === undefined) return (garbled("a MSG_WRITE to a stream that is not open"), false)
        if (outputBytes + write.data.length > maxOutputBytes) return (settle({ _tag: "Overflowed", overflow: "call" }), false)
        if (request.allowance?.take(write.data.length) === false) return (settle({ _tag: "Overflowed", overflow: "in_flight" }), false)
        outputBytes += write.data.length
        ;(fd === STDOUT ? stdout : stderr).push(write.data)
        return true
      }
      case Message.WRITE_CLOSE:
        if (payload.length !== 4) return (garbled("a MSG_WRITE_CLOSE of the wrong size"), false)
        streams.delete(payload.readInt32LE(0))
        return true
      case Message.READ_OPEN: {
        const open = readOpen(payload)
        if (open === undefined) return (garbled("a short MSG_READ_OPEN"), false)
        if (open.fd === STDIN && open.path === "-" && !stdinServed) {
          stdinServed = true
          send(readReply(open.stream, Buffer.from(request.stdin ?? "", "utf8")))
        } else {
          // A path, or stdin a second time (the CLI's stdin can be read once too).
          send(readReply(open.stream, Buffer.alloc(0), open.fd === STDIN ? constants.errno.EBADF : constants.errno.EACCES))
        }
        return true
      }
      case Message.READ_CANCEL:
        // Everything was sent with the open's answer.
        return true
      case Message.FLAGS:
        return true
      case Message.EXIT: {
        const status = exitStatus(payload)
        if (status === undefined) return (garbled("a short MSG_EXIT"), false)
        exited(status.code, status.message)
        return false
      }
      case Message.SHUTDOWN:
        // The server is exiting (kill-server): the CLI exits 0.
        exited(0, undefined, true)
        return false
      case Message.EXITED:
        // The server let a detached client go: the CLI exits 0.
        exited(0, undefined)
        return false
      case Message.DETACH:
      case Message.DETACHKILL:
        send(exiting())
        return true
      default:
        garbled(`an unknown message type ${type}`)
        return false
    }
  }

  const open = () => {
    const current = createConnection({ path: request.path })
    socket = current
    // Events of a connection given up for another attempt, or after the end, are not ours.
    const live = () => current === socket && !settled
    current.on("connect", () => {
      if (live()) connected = true
    })
    current.write(Buffer.concat([request.identity.messages, command]))
    current.on("data", (chunk: Buffer) => {
      if (!live()) return
      let frames: Array<Frame>
      try {
        frames = reader.push(chunk)
      } catch (error) {
        return garbled((error as Error).message)
      }
      for (const frame of frames) if (!handle(frame)) return
    })
    current.on("error", (error: NodeJS.ErrnoException) => {
      // Once connected an error ends in "close", which says what it means.
      if (!live() || connected) return
      if (error.code === "EAGAIN") {
        socket = undefined
        current.destroy()
        retry = setTimeout(open, backoffMs * (0.5 + Math.random()))
        backoffMs = Math.min(2 * backoffMs, MAX_BACKOFF_MS)
        return
      }
      settle({ _tag: "Unreachable", stderr: unreachable(request.path, error) })
    })
    current.on("close", () => {
      if (!live()) return
      if (!connected) return settle({ _tag: "Unreachable", stderr: `error connecting to ${request.path} (closed)\n` })
      settle({ _tag: "Lost", answered })
    })
  }
  open()

  return end
}
