/**
 * The persistent live layer of `Tmux`: one control-mode client per server, commands sent over it
 * (about 0.5 ms per command list instead of a process spawn).
 *
 * What a person sees does not change: the client attaches with `ignore-size` (it never resizes a
 * window) and `no-output` (tmux sends it no pane output), to the session tmux itself would pick (the
 * most recently used, so "last session" stays what it was); our outputs leave such clients out of
 * attachment counts. It never creates a session; where it would keep one alive
 * (`destroy-unattached`) or keep the server alive (`exit-unattached`) it is not used.
 *
 * Falls back to a process per call (`TmuxExec`) when there is no server or no session to attach to
 * (retrying the attach later), for calls that may start a server, and for command lists that can
 * close the client's own session (kill, move, detach): the client would be detached in the middle of
 * them. When the server restarts the client sees end of input and the next call attaches anew. The
 * layer's finalizer detaches every client.
 *
 * Opt-in (LIBTMUX_MCP_TRANSPORT=control): tmux before 3.7 segfaults when a session is created,
 * closed or renamed while a control client is still identifying itself (it is flagged as control
 * before its `control_state` exists; `control_write` reads through NULL). Every attach of ours is
 * such a window, and we re-attach after our session is killed. Fixed upstream in tmux e5a2a25fa.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ResolvedSocket } from "../context/SocketResolver.js"
import { TmuxMcpConfig, type TmuxMcpConfigShape } from "../context/TmuxMcpConfig.js"
import { Failed, type TmuxError } from "../domain/Errors.js"
import { classifyFailure, timedOut } from "./Classify.js"
import { type Block, blockOutput } from "./ControlProtocol.js"
import { ControlClient, ControlClientLost } from "./internal/ControlClient.js"
import { describeCommands, Tmux, type TmuxCommand, type TmuxShape } from "./Tmux.js"
import { invocationArgv, TmuxExec } from "./TmuxExec.js"
import { TmuxProcesses } from "./TmuxProcess.js"

/**
 * Commands sent by spawn instead: they can detach the control client mid-list (its session or the
 * server closes), or block the client's queue (`wait-for`). And `new-session`: the commands after it
 * in a list act on the new session only for a client without a session of its own (ours would win,
 * so `create_session`'s ownership mark would land on the control client's session). And
 * `show-buffer`: to a control client tmux prints the buffer escaped (`\t`, `\033`, `\\`).
 */
const SPAWN_ONLY = new Set([
  "new-session",
  "kill-server",
  "kill-session",
  "kill-window",
  "kill-pane",
  "unlink-window",
  "move-window",
  "move-pane",
  "join-pane",
  "break-pane",
  "detach-client",
  "wait-for",
  "start-server",
  "show-buffer"
])

/** After a failed attach (no server, no session), calls spawn for this long before trying again. */
const REATTACH_AFTER_MS = 1000
/** A server whose options make our client keep things alive is not attached to for this long. */
const UNSUITABLE_FOR_MS = 10_000

/** The flags that make the client invisible: no resizing, no pane output. */
export const CONTROL_CLIENT_FLAGS = "ignore-size,no-output"

/** "00" when neither option is set: tmux 3.4 made destroy-unattached a choice, printed "off" rather than "0". */
const SUITABILITY_FORMAT = "#{?#{==:#{destroy-unattached},off},0,#{destroy-unattached}}#{exit-unattached}"

interface Attempt {
  readonly result: Promise<ControlClient | undefined>
  readonly abort: AbortController
  /** Calls waiting for it; when the last one is interrupted the attempt is abandoned. */
  waiters: number
}

interface Slot {
  client: ControlClient | undefined
  attaching: Attempt | undefined
  /** The Clock's ms before which no attach is tried. */
  notBefore: number
}

const attachArgv = (config: TmuxMcpConfigShape, socket: ResolvedSocket): Array<string> => [
  "-C",
  ...invocationArgv(config, socket, [["attach-session", "-f", CONTROL_CLIENT_FLAGS]], false)
]

export const makeTmuxControl = Effect.gen(function*() {
  const config = yield* TmuxMcpConfig
  const exec = yield* TmuxExec.make
  const processes = yield* TmuxProcesses
  // The attach runs in promise callbacks, outside any fiber: they read the layer's Clock directly.
  const clock = yield* Effect.clock
  const slots = new Map<string, Slot>()

  const slotFor = (socket: ResolvedSocket): Slot => {
    let slot = slots.get(socket.path)
    if (slot === undefined) {
      slot = { client: undefined, attaching: undefined, notBefore: 0 }
      slots.set(socket.path, slot)
    }
    return slot
  }

  /** Attaches a client, then checks that keeping it attached changes nothing for anybody. */
  const attach = async (socket: ResolvedSocket, slot: Slot, signal: AbortSignal): Promise<ControlClient | undefined> => {
    let client: ControlClient
    try {
      client = await ControlClient.connect({
        bin: config.tmuxBin,
        argv: attachArgv(config, socket),
        env: config.tmuxEnvironment,
        connectTimeoutMs: config.commandTimeoutMs,
        spawn: processes.spawn,
        signal
      })
    } catch {
      if (!signal.aborted) slot.notBefore = clock.unsafeCurrentTimeMillis() + REATTACH_AFTER_MS
      return undefined
    }
    const check = await client
      .request([["display-message", "-p", SUITABILITY_FORMAT]])
      .reply.then((blocks) => blockOutput(blocks).trim(), () => undefined)
    if (check !== "00") {
      slot.notBefore = clock.unsafeCurrentTimeMillis() + (check === undefined ? REATTACH_AFTER_MS : UNSUITABLE_FOR_MS)
      await client.close()
      return undefined
    }
    return client
  }

  const startAttempt = (socket: ResolvedSocket, slot: Slot): Attempt => {
    const abort = new AbortController()
    const attempt: Attempt = {
      abort,
      waiters: 0,
      result: attach(socket, slot, abort.signal).then((client) => {
        if (slot.attaching === attempt) slot.attaching = undefined
        // Closed while attaching (the layer shut down): do not keep it.
        if (client !== undefined && slots.get(socket.path) !== slot) void client.close()
        else slot.client = client
        return client
      })
    }
    return attempt
  }

  /**
   * The live client for a socket, attaching one if allowed; undefined means "spawn this call".
   * Interrupting the wait is immediate; an attach that no call waits for any more is abandoned.
   */
  const clientFor = (socket: ResolvedSocket): Effect.Effect<ControlClient | undefined> =>
    Effect.async((resume) => {
      const slot = slotFor(socket)
      if (slot.client?.alive === true) return resume(Effect.succeed(slot.client))
      slot.client = undefined
      if (slot.attaching === undefined) {
        if (clock.unsafeCurrentTimeMillis() < slot.notBefore) return resume(Effect.succeed(undefined))
        slot.attaching = startAttempt(socket, slot)
      }
      const attempt = slot.attaching
      attempt.waiters++
      let waiting = true
      void attempt.result.then((client) => {
        if (!waiting) return
        waiting = false
        attempt.waiters--
        resume(Effect.succeed(client))
      })
      return Effect.sync(() => {
        if (!waiting) return
        waiting = false
        if (--attempt.waiters === 0) attempt.abort.abort()
      })
    })

  const spawnCall: TmuxShape["run"] = (socket, commands, options) =>
    exec.run(socket, commands, options).pipe(
      // A session may exist now: let the next call try to attach at once.
      Effect.tap(() =>
        Effect.sync(() => {
          if (options?.startServer === true || commands.some((command) => command[0] === "new-session")) {
            slotFor(socket).notBefore = 0
          }
        })
      )
    )

  const send = (
    socket: ResolvedSocket,
    client: ControlClient,
    commands: ReadonlyArray<TmuxCommand>,
    description: string,
    timeout: Duration.Duration
  ): Effect.Effect<string, TmuxError | ControlClientLost> =>
    Effect.async<ReadonlyArray<Block>, ControlClientLost>((resume) => {
      const { reply, abandon } = client.request(commands)
      reply.then(
        (blocks) => resume(Effect.succeed(blocks)),
        (error: ControlClientLost) => resume(Effect.fail(error))
      )
      return Effect.sync(abandon)
    }).pipe(
      Effect.timeoutFail({
        duration: timeout,
        onTimeout: () => {
          // The client's queue is stuck behind this request: drop the client; the next call attaches anew.
          client.destroy("a request timed out")
          return timedOut(description, timeout)
        }
      }),
      Effect.flatMap((blocks) => {
        const last = blocks[blocks.length - 1]
        return last === undefined || last.ok
          ? Effect.succeed(blockOutput(blocks))
          : Effect.fail(
            classifyFailure({ stderr: `${last.lines.join("\n")}\n`, exitCode: 1, socketLabel: socket.label, command: description })
          )
      })
    )

  const run: TmuxShape["run"] = (socket, commands, options = {}) => {
    if (
      options.startServer === true ||
      options.stdin !== undefined ||
      commands.some((command) => SPAWN_ONLY.has(command[0] ?? "") || command.some((arg) => arg.includes("\0")))
    ) {
      return spawnCall(socket, commands, options)
    }
    const description = describeCommands(commands)
    const timeout = Duration.decode(options.timeout ?? Duration.millis(config.commandTimeoutMs))
    const existing = slots.get(socket.path)?.client
    const connected = options.oneOff === true ? Effect.succeed(existing?.alive === true ? existing : undefined) : clientFor(socket)
    return Effect.gen(function*() {
      const started = yield* Clock.currentTimeMillis
      const client = yield* Effect.timeoutFail(connected, {
        duration: timeout,
        onTimeout: () => timedOut(description, timeout, "tmux did not accept a control-mode client")
      })
      // What the wait for the attach left of this call's deadline.
      const remaining = Duration.millis(Math.max(1, started + Duration.toMillis(timeout) - (yield* Clock.currentTimeMillis)))
      if (client === undefined) return yield* spawnCall(socket, commands, { ...options, timeout: remaining })
      return yield* send(socket, client, commands, description, remaining).pipe(
        Effect.catchIf(
          (error): error is ControlClientLost => error instanceof ControlClientLost,
          (lost) =>
            // The client went away before tmux ran anything (server exiting, session closed): spawn.
            lost.sent
              ? Effect.fail(
                new Failed({
                  command: description,
                  reason: "exit",
                  exitCode: null,
                  stderr: `${lost.reason}; the commands may have run in part`
                })
              )
              : spawnCall(socket, commands, { ...options, timeout: remaining })
        )
      )
    }).pipe(Effect.withSpan("Tmux.run", { attributes: { commands: description, transport: "control" } }))
  }

  yield* Effect.addFinalizer(() =>
    Effect.promise(async () => {
      const open = [...slots.values()]
      slots.clear()
      for (const slot of open) slot.attaching?.abort.abort()
      await Promise.all(open.map((slot) => slot.client?.close()))
    })
  )

  return Tmux.of({ run })
})

/** `Tmux` over persistent control-mode clients (falling back to a process per call); it owns its children. */
export const TmuxControl = {
  make: makeTmuxControl,
  layer: Layer.scoped(Tmux, makeTmuxControl).pipe(Layer.provide(TmuxProcesses.layer)) satisfies Layer.Layer<Tmux, never, TmuxMcpConfig>
}
