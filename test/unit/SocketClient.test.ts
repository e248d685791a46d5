/**
 * One command list over a socket (src/tmux/internal/SocketClient.ts) against a scripted server
 * (test/support/FakeTmuxServer.ts): what it sends, how it serves the server's file opens (its own
 * streams only, never a path), and how every way an exchange can end is told apart, in particular
 * whether tmux may have run the list when the protocol did not match.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { constants } from "node:os"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { frame, Message, prepareIdentity } from "../../src/tmux/internal/ClientProtocol.js"
import { OutputAllowance } from "../../src/tmux/internal/OutputLimit.js"
import { runOverSocket, type SocketOutcome, type SocketRequest } from "../../src/tmux/internal/SocketClient.js"
import { type FakeConnection, type FakeTmuxServer, fakeTmuxServer, ints } from "../support/FakeTmuxServer.js"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const directory = () => {
  const dir = mkdtempSync(join(tmpdir(), "etm-sock-"))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

const serve = async (script: (connection: FakeConnection) => void | Promise<void>): Promise<FakeTmuxServer> => {
  const server = await fakeTmuxServer(join(directory(), "tmux"), script)
  cleanups.push(() => server.close())
  return server
}

const request = (path: string, extra: Partial<SocketRequest> = {}): SocketRequest => ({
  path,
  identity: prepareIdentity({ environment: { PATH: "/bin", TERM: "dumb" }, cwd: "/tmp", pid: 4321 }),
  argv: ["display-message", "-p", "x"],
  ...extra
})

const run = (req: SocketRequest) => new Promise<SocketOutcome>((resolve) => runOverSocket(req, resolve))

describe("an exchange that runs to its end", () => {
  it("sends the identify messages and the argv, and collects stdout and stderr until MSG_EXIT", async () => {
    const server = await serve(async (c) => {
      await c.print("out ü\t1\n")
      await c.print("err\n", 2)
      await c.print("out 2\n")
      c.exit(1)
    })
    expect(await run(request(server.path, { argv: ["list-panes", ";", "display-message", "-p", "x"] }))).toEqual({
      _tag: "Exited",
      stdout: "out ü\t1\nout 2\n",
      stderr: "err\n",
      exitCode: 1
    })
    const [c] = server.connections
    expect(c!.argv).toEqual(["list-panes", ";", "display-message", "-p", "x"])
    expect(c!.clientPid).toBe(4321)
    expect(c!.identify.map((f) => f.type)).toEqual([100, 101, 102, 108, 107, 105, 105, 106])
  })

  it("ends on MSG_SHUTDOWN (the server is exiting) with exit 0, and takes an exit message as the CLI's stderr", async () => {
    const shutdown = await serve((c) => c.send(Message.SHUTDOWN))
    expect(await run(request(shutdown.path))).toMatchObject({ _tag: "Exited", exitCode: 0 })
    const refused = await serve((c) => c.send(Message.EXIT, Buffer.concat([ints(0), Buffer.from("access not allowed\0")])))
    expect(await run(request(refused.path))).toEqual({ _tag: "Exited", stdout: "", stderr: "access not allowed\n", exitCode: 0 })
  })

  it("answers a detach with MSG_EXITING and ends at MSG_EXITED", async () => {
    const server = await serve(async (c) => {
      c.send(Message.DETACH, Buffer.from("s\0"))
      expect((await c.next()).type).toBe(Message.EXITING)
      c.send(Message.EXITED)
    })
    expect(await run(request(server.path))).toMatchObject({ _tag: "Exited", exitCode: 0 })
  })
})

describe("files the server asks the client to open", () => {
  it("serves its stdin payload once, in frames that fit, and refuses stdin a second time", async () => {
    const payload = `${"é".repeat(20_000)}\0tail`
    let read = Buffer.alloc(0)
    let second: Array<number> = []
    const server = await serve(async (c) => {
      c.send(Message.READ_OPEN, Buffer.concat([ints(3, 0), Buffer.from("-\0")]))
      for (;;) {
        const f = await c.next()
        if (f.type === Message.READ_DONE) {
          expect([f.payload.readInt32LE(0), f.payload.readInt32LE(4)]).toEqual([3, 0])
          break
        }
        expect(f.type).toBe(Message.READ)
        read = Buffer.concat([read, f.payload.subarray(4)])
      }
      c.send(Message.READ_OPEN, Buffer.concat([ints(4, 0), Buffer.from("-\0")]))
      const again = await c.next()
      second = [again.type, again.payload.readInt32LE(0), again.payload.readInt32LE(4)]
      c.exit(0)
    })
    expect(await run(request(server.path, { stdin: payload }))).toMatchObject({ _tag: "Exited", exitCode: 0 })
    expect(read.toString("utf8")).toBe(payload)
    expect(second).toEqual([Message.READ_DONE, 4, constants.errno.EBADF])
  })

  it("gives an empty stdin to a call without a payload, as a CLI with stdin on /dev/null reads", async () => {
    const answers: Array<Array<number>> = []
    const server = await serve(async (c) => {
      c.send(Message.READ_OPEN, ints(3, 0))
      const f = await c.next()
      answers.push([f.type, f.payload.readInt32LE(4)])
      c.exit(0)
    })
    await run(request(server.path))
    expect(answers).toEqual([[Message.READ_DONE, 0]])
  })

  it("refuses every path, to read or to write, and a write to a descriptor that is not its stdout or stderr", async () => {
    const dir = directory()
    const answers: Array<[string, number, number, number]> = []
    const server = await serve(async (c) => {
      const opens: Array<[string, number, Buffer]> = [
        ["read /path", Message.READ_OPEN, Buffer.concat([ints(3, -1), Buffer.from(`${join(dir, "secret")}\0`)])],
        ["read relative", Message.READ_OPEN, Buffer.concat([ints(4, -1), Buffer.from("relative\0")])],
        ["write /path", Message.WRITE_OPEN, Buffer.concat([ints(5, -1, 0o1000), Buffer.from(`${join(dir, "created")}\0`)])],
        ["write fd 1 to a path", Message.WRITE_OPEN, Buffer.concat([ints(6, 1, 0), Buffer.from(`${join(dir, "other")}\0`)])],
        ["write fd 0", Message.WRITE_OPEN, ints(7, 0, 0)],
        ["read fd 1", Message.READ_OPEN, ints(8, 1)]
      ]
      for (const [label, type, payload] of opens) {
        c.send(type, payload)
        const f = await c.next()
        answers.push([label, f.type, f.payload.readInt32LE(0), f.payload.readInt32LE(4)])
      }
      c.exit(1)
    })
    await run(request(server.path))
    const { EACCES } = constants.errno
    expect(answers).toEqual([
      ["read /path", Message.READ_DONE, 3, EACCES],
      ["read relative", Message.READ_DONE, 4, EACCES],
      ["write /path", Message.WRITE_READY, 5, EACCES],
      ["write fd 1 to a path", Message.WRITE_READY, 6, EACCES],
      ["write fd 0", Message.WRITE_READY, 7, EACCES],
      ["read fd 1", Message.READ_DONE, 8, EACCES]
    ])
    for (const name of ["secret", "created", "other"]) expect(existsSync(join(dir, name))).toBe(false)
  })
})

describe("an exchange that does not run to its end", () => {
  it("a socket with nothing behind it is unreachable, in the CLI's words", async () => {
    const path = join(directory(), "none")
    expect(await run(request(path))).toEqual({ _tag: "Unreachable", stderr: `error connecting to ${path} (no such file or directory)\n` })
  })

  it("MSG_VERSION first is another version; a close without a word is a lost server that ran nothing", async () => {
    const version = await serve((c) => {
      const bytes = frame(Message.VERSION)
      bytes.writeUInt32LE(7, 8)
      c.sendRaw(bytes)
      c.close()
    })
    expect(await run(request(version.path))).toEqual({ _tag: "OtherVersion", version: 7 })
    const silent = await serve((c) => c.close())
    expect(await run(request(silent.path))).toEqual({ _tag: "Lost", answered: false })
  })

  it("MSG_VERSION after tmux started answering is garbage, not another version", async () => {
    const late = await serve(async (c) => {
      await c.print("partial\n")
      c.send(Message.VERSION)
    })
    expect(await run(request(late.path))).toMatchObject({ _tag: "Garbled", answered: true })
  })

  it("a frame of another protocol version, an unknown type or a broken header is garbled", async () => {
    const other = await serve((c) => {
      const bytes = frame(Message.EXIT, ints(0))
      bytes.writeUInt32LE(9, 8)
      c.sendRaw(bytes)
    })
    expect(await run(request(other.path))).toMatchObject({ _tag: "Garbled", reason: "a message of protocol version 9" })
    const unknown = await serve(async (c) => {
      await c.print("partial\n")
      c.send(399)
    })
    expect(await run(request(unknown.path))).toEqual({ _tag: "Garbled", reason: "an unknown message type 399", answered: true })
    const broken = await serve((c) => c.sendRaw(Buffer.concat([ints(Message.EXIT, 70_000, 8, 1)])))
    expect(await run(request(broken.path))).toMatchObject({ _tag: "Garbled", reason: "a frame header of length field 70000" })
    const stray = await serve((c) => c.send(Message.WRITE, Buffer.concat([ints(9), Buffer.from("x")])))
    expect(await run(request(stray.path))).toMatchObject({ _tag: "Garbled", answered: true })
  })

  it("a close after tmux started answering is a lost server: the list may have run", async () => {
    const server = await serve(async (c) => {
      await c.print("half")
      c.close()
    })
    expect(await run(request(server.path))).toEqual({ _tag: "Lost", answered: true })
  })

  it("output past the limit closes the connection and keeps nothing, on stdout and stderr together", async () => {
    const server = await serve(async (c) => {
      await c.print("a".repeat(6000))
      await c.print("b".repeat(6000), 2)
      c.exit(0)
    })
    expect(await run(request(server.path, { maxOutputBytes: 10_000 }))).toEqual({ _tag: "Overflowed", overflow: "call" })
    await server.connections[0]!.closed
    const within = await serve(async (c) => {
      await c.print("a".repeat(6000))
      await c.print("b".repeat(4000), 2)
      c.exit(0)
    })
    expect(await run(request(within.path, { maxOutputBytes: 10_000 }))).toMatchObject({ _tag: "Exited", exitCode: 0 })
  })

  it("output is held against the allowance of every call in flight, and given back however the call ends", async () => {
    const allowance = new OutputAllowance(10_000)
    expect(allowance.take(5_000)).toBe(true)
    const server = await serve(async (c) => {
      await c.print("a".repeat(3_000))
      await c.print("b".repeat(3_000))
      c.exit(0)
    })
    expect(await run(request(server.path, { allowance }))).toEqual({ _tag: "Overflowed", overflow: "in_flight" })
    allowance.give(5_000)
    // The cut call gave back what it held; one that ends normally gives back all of it too.
    expect(await run(request(server.path, { allowance }))).toMatchObject({ _tag: "Exited", stdout: "a".repeat(3_000) + "b".repeat(3_000) })
    expect(allowance.take(10_000)).toBe(true)
  })

  it("closing the exchange (a deadline, an interruption) closes the connection, and nothing is reported", async () => {
    let reported = false
    const server = await serve(() => undefined)
    const close = runOverSocket(request(server.path), () => (reported = true))
    const deadline = Date.now() + 5_000
    while (server.connections.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(server.connections).toHaveLength(1)
    close()
    await server.connections[0]!.closed
    expect(reported).toBe(false)
  })
})
