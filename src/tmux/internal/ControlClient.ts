/**
 * One tmux control-mode client process (`tmux -C attach-session -f ignore-size,no-output`) and the
 * requests sent over it, one at a time.
 *
 * Plain Node (child_process + promises) because the process lives as long as the layer, is written
 * to and read from line by line, and must be killable from any state; `TmuxControl` wraps it in
 * Effect. Each request is the command-list line followed by a sentinel line (`display-message -p
 * <token>`): tmux runs a client's lines in order, so the sentinel's block marks the end of the
 * request even when a command failed and tmux skipped the rest of the list. Its two timers (the
 * attach's own bound, the grace on close) time a real process in its callbacks, as TmuxProcess's do;
 * every call's deadline is TmuxControl's, on the Clock.
 */
import type { ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { StringDecoder } from "node:string_decoder"
import { type Block, BlockReader, commandLine, quoteArgument } from "../ControlProtocol.js"
import type { TmuxCommand } from "../Tmux.js"
import { terminate, type TmuxProcessesShape } from "../TmuxProcess.js"

/** Why a request got no answer. `sent` is false when tmux cannot have run any of its commands. */
export class ControlClientLost extends Error {
  constructor(
    readonly reason: string,
    readonly sent: boolean
  ) {
    super(reason)
  }
}

/** Why a client could not be started: tmux's own message (no server, no sessions, …). */
export class ControlConnectFailed extends Error {}

interface Request {
  readonly line: string
  readonly sentinel: string
  readonly blocks: Array<Block>
  readonly resolve: (blocks: ReadonlyArray<Block>) => void
  readonly reject: (error: ControlClientLost) => void
  /** A block of ours arrived: tmux has started running the list. */
  started: boolean
}

export interface ControlClientOptions {
  readonly bin: string
  /** Global flags and the attach command, as for a spawned tmux. */
  readonly argv: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  /** How long to wait for the attach to answer. */
  readonly connectTimeoutMs: number
  /** Starts the process (the layer's, which owns it). */
  readonly spawn: TmuxProcessesShape["spawn"]
  /** Aborting gives up the attach and kills the process. */
  readonly signal?: AbortSignal
}

/** Only this much of tmux's stderr is kept, for the message when a start fails. */
const MAX_STDERR = 4096

export class ControlClient {
  private readonly reader = new BlockReader()
  private readonly queue: Array<Request> = []
  private current: Request | undefined
  private readonly token = randomBytes(8).toString("hex")
  private sequence = 0
  private lostReason: string | undefined
  private readonly exited: Promise<void>

  private constructor(private readonly child: ChildProcess) {
    this.exited = new Promise((resolve) => child.once("close", () => resolve()))
  }

  /** Starts a client; resolves once tmux has answered the attach, fails with tmux's message. */
  static connect(options: ControlClientOptions): Promise<ControlClient> {
    return new Promise((resolve, reject) => {
      // Its own process group, so that ending it takes anything it started (as TmuxExec does).
      let child: ChildProcess
      try {
        child = options.spawn(options.bin, options.argv, { env: options.env, stdin: true })
      } catch {
        return reject(new ControlConnectFailed(`${options.bin} could not be started`))
      }
      const client = new ControlClient(child)
      let stderr = ""
      let ready = false
      const fail = (message: string) => {
        if (ready) return
        ready = true
        clearTimeout(timer)
        client.destroy(message)
        reject(new ControlConnectFailed(message))
      }
      const timer = setTimeout(() => fail(`no answer to attach within ${options.connectTimeoutMs} ms`), options.connectTimeoutMs)
      child.stderr!.setEncoding("utf8")
      child.stderr!.on("data", (chunk: string) => {
        if (stderr.length < MAX_STDERR) stderr += chunk.slice(0, MAX_STDERR - stderr.length)
      })
      // Not error.message: Node's may quote the arguments.
      child.on("error", (error: NodeJS.ErrnoException) => fail(`${options.bin}: ${error.code ?? "could not be started"}`))
      options.signal?.addEventListener("abort", () => fail("attach abandoned: nobody waits for it any more"), { once: true })
      child.once("close", () => fail(stderr.trim() || "tmux exited before attaching"))
      client.onAttach = (block) => {
        if (!block.ok) return fail(block.lines.join("\n") || "attach failed")
        ready = true
        clearTimeout(timer)
        resolve(client)
      }
      client.listen()
    })
  }

  /** Called with the first block, the answer to the attach command. */
  private onAttach: ((block: Block) => void) | undefined

  private listen() {
    const decoder = new StringDecoder("utf8")
    let partial = ""
    this.child.stdout!.on("data", (chunk: Buffer) => {
      const lines = (partial + decoder.write(chunk)).split("\n")
      partial = lines.pop() ?? ""
      for (const line of lines) this.onLine(line)
    })
    this.child.once("close", () => this.destroy(this.lostReason ?? "the tmux control client exited (server gone?)"))
    // A write after tmux exits fails with EPIPE; the close handler reports the loss.
    this.child.stdin!.on("error", () => undefined)
  }

  private onLine(line: string) {
    const parsed = this.reader.read(line)
    switch (parsed._tag) {
      case "Block": {
        const { block } = parsed
        if (this.onAttach !== undefined && !block.fromInput) {
          const onAttach = this.onAttach
          this.onAttach = undefined
          return onAttach(block)
        }
        // Blocks of hooks run on our behalf: their output is not part of any answer.
        if (!block.fromInput) return
        const request = this.current
        if (request === undefined) return this.destroy("tmux answered a request that was not sent")
        request.started = true
        if (block.ok && block.lines.length === 1 && block.lines[0] === request.sentinel) {
          this.current = undefined
          request.resolve(request.blocks)
          return this.pump()
        }
        request.blocks.push(block)
        return
      }
      case "Exit":
        this.lostReason = "tmux detached the control client (its session closed, or the server is exiting)"
        return
      case "ProtocolError":
        return this.destroy("tmux's control-mode output was out of step (a line outside any reply block)")
      default:
        return
    }
  }

  /** Whether requests can still be sent. */
  get alive(): boolean {
    return this.lostReason === undefined && this.child.exitCode === null && this.child.signalCode === null
  }

  /** Sends a command list; resolves with its reply blocks (the last one failed if a command failed). */
  request(commands: ReadonlyArray<TmuxCommand>): { readonly reply: Promise<ReadonlyArray<Block>>; readonly abandon: () => void } {
    const sentinel = `etm-sync ${this.token} ${++this.sequence}`
    let request!: Request
    const reply = new Promise<ReadonlyArray<Block>>((resolve, reject) => {
      request = {
        line: `${commandLine(commands)}\n${quoteArgument("display-message")} "-p" ${quoteArgument(sentinel)}\n`,
        sentinel,
        blocks: [],
        resolve,
        reject,
        started: false
      }
    })
    if (!this.alive) {
      request.reject(new ControlClientLost(this.lostReason ?? "the tmux control client is closed", false))
    } else {
      this.queue.push(request)
      this.pump()
    }
    // An abandoned request still gets its answer read (to stay in step), but nobody waits for it.
    const abandon = () => {
      const index = this.queue.indexOf(request)
      if (index !== -1) this.queue.splice(index, 1)
    }
    return { reply, abandon }
  }

  private pump() {
    if (this.current !== undefined || !this.alive) return
    const next = this.queue.shift()
    if (next === undefined) return
    this.current = next
    this.child.stdin!.write(next.line)
  }

  /** Ends the client; every waiting request fails. Safe to call more than once. */
  destroy(reason: string) {
    this.lostReason ??= reason
    const waiting = [...(this.current === undefined ? [] : [this.current]), ...this.queue.splice(0)]
    this.current = undefined
    for (const request of waiting) request.reject(new ControlClientLost(reason, request.started))
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.stdin!.end()
      // SIGTERM, then SIGKILL: a client that ignores SIGTERM must not outlive its use.
      void terminate(this.child)
    }
  }

  /**
   * Detaches by closing tmux's input (a control client exits at end of input), then waits for it;
   * one that does not leave within the grace is ended.
   */
  async close(graceMs = 1000): Promise<void> {
    this.lostReason ??= "closed"
    this.child.stdin!.end()
    let timer: NodeJS.Timeout | undefined
    const ended = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), graceMs)
      })
    ])
    clearTimeout(timer)
    if (!ended) await terminate(this.child)
    this.destroy("closed")
  }
}
