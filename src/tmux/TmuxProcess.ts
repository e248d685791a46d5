/**
 * The lifetime of a tmux client process, for every transport that spawns one.
 *
 * Each child runs in its own process group, so ending it ends whatever it started. Ending is
 * SIGTERM, then SIGKILL after a short grace: a tmux that ignores SIGTERM (a wrapper with
 * `trap '' TERM`, a client stuck in the kernel) must not keep a call past its deadline, and
 * waiting for its exit is bounded too. Effect 4's `effect/process` ChildProcess (which has a
 * `forceKillAfter`) is not used: it runs on a spawner from the Node platform package, which would
 * bring undici into the bundle and add to every start.
 *
 * The children still running belong to the layer that spawned them (`TmuxProcesses`): when it is
 * released they are SIGKILLed, and until then a hook on the process's "exit" event does that if the
 * process ends first, whatever state their call is in. That hook is process-global by nature: "exit"
 * is the one moment Node runs code for sure before the process goes, and only synchronous code, so
 * no finalizer can stand in for it. The layer installs it when built and removes it when released.
 * The timers here time a real process from its callbacks, not a wait of the program: they use the
 * wall clock.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type ChildProcess, spawn } from "node:child_process"
import type { OutputAllowance, Overflow } from "./internal/OutputLimit.js"

/** How long a child gets to exit after SIGTERM before SIGKILL (and to be reaped after SIGKILL). */
export const KILL_GRACE_MS = 500

const killGroup = (child: ChildProcess, signal: NodeJS.Signals): void => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal)
  } catch {
    // The group is gone (or was never made): the child itself, if it is still there.
    try {
      child.kill(signal)
    } catch {
      // Already gone.
    }
  }
}

const hasExited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null

export interface SpawnOptions {
  readonly env: Readonly<Record<string, string>>
  readonly stdin: boolean
}

export interface TmuxProcessesShape {
  /**
   * Spawns a child in its own process group, to be SIGKILLed at the latest when the layer is
   * released or this process exits. Throws as `child_process.spawn` does.
   */
  readonly spawn: (bin: string, argv: ReadonlyArray<string>, options: SpawnOptions) => ChildProcess
}

/** The tmux children of one live layer (see the module's comment). */
export class TmuxProcesses extends Context.Service<TmuxProcesses, TmuxProcessesShape>()("effect-tmux-mcp/TmuxProcesses") {
  static readonly layer: Layer.Layer<TmuxProcesses> = Layer.effect(
    TmuxProcesses,
    Effect.gen(function*() {
      const running = new Set<ChildProcess>()
      const killAll = () => {
        for (const child of running) killGroup(child, "SIGKILL")
      }
      yield* Effect.acquireRelease(
        Effect.sync(() => process.on("exit", killAll)),
        () =>
          Effect.sync(() => {
            process.off("exit", killAll)
            killAll()
          })
      )
      return TmuxProcesses.of({
        spawn: (bin, argv, options) => {
          const child = spawn(bin, [...argv], {
            env: options.env,
            stdio: [options.stdin ? "pipe" : "ignore", "pipe", "pipe"],
            detached: true
          })
          running.add(child)
          child.once("exit", () => running.delete(child))
          // A spawn that failed emits "error" and never "exit".
          child.once("error", () => running.delete(child))
          return child
        }
      })
    })
  )
}

/**
 * SIGTERM to the child's group, SIGKILL once the grace is over; resolves when the child has exited,
 * or a grace after the SIGKILL in any case (a process stuck in the kernel may not go at all).
 */
export const terminate = (child: ChildProcess, graceMs: number = KILL_GRACE_MS): Promise<void> =>
  new Promise((resolve) => {
    if (hasExited(child) || child.pid === undefined) {
      // The leader is gone but members of its group may not be.
      if (child.pid !== undefined) killGroup(child, "SIGKILL")
      return resolve()
    }
    let giveUp: NodeJS.Timeout | undefined
    const done = () => {
      clearTimeout(escalation)
      clearTimeout(giveUp)
      // Anything of the group that outlived its leader (it ignored SIGTERM too).
      killGroup(child, "SIGKILL")
      resolve()
    }
    child.once("exit", done)
    killGroup(child, "SIGTERM")
    // `done` runs on the exit event, always after this line.
    const escalation = setTimeout(() => {
      killGroup(child, "SIGKILL")
      giveUp = setTimeout(() => {
        child.off("exit", done)
        resolve()
      }, graceMs)
    }, graceMs)
  })

export interface Finished {
  readonly stdout: string
  readonly stderr: string
  /** null when the child was ended by a signal. */
  readonly exitCode: number | null
}

/** A child that printed more than it may: it was ended and its output dropped. */
export class OutputOverflowed {
  readonly _tag = "OutputOverflowed"
  constructor(readonly overflow: Overflow) {}
}

/** Why a child could not be started: the binary and the error code, never its arguments. */
export class SpawnFailed {
  readonly _tag = "SpawnFailed"
  constructor(readonly message: string) {}
}

const SPAWN_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: "no such file",
  EACCES: "permission denied (not executable?)",
  ENOEXEC: "not an executable format",
  E2BIG: "the argument list is too long"
}

// Node's own message may quote the arguments (payload, possibly secret): only the code is kept.
const spawnFailed = (bin: string, error: unknown): SpawnFailed => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return new SpawnFailed(
    `${bin}: ${code === undefined ? "could not be started" : `${SPAWN_ERRORS[code] ?? "could not be started"} (${code})`}`
  )
}

/**
 * Runs a child to its end and collects its output. Interrupting the effect (a deadline, a cancelled
 * call, shutdown) ends the child with `terminate` and waits for that. Output past `maxOutputBytes`
 * (stdout and stderr together) ends the child the same way and fails with `OutputOverflowed`.
 */
export const runToEnd = (
  bin: string,
  argv: ReadonlyArray<string>,
  options: {
    readonly env: Readonly<Record<string, string>>
    readonly stdin?: string | undefined
    readonly maxOutputBytes?: number | undefined
    /** What the output is held against, with the other children's in flight. */
    readonly allowance?: OutputAllowance | undefined
  }
): Effect.Effect<Finished, SpawnFailed | OutputOverflowed, TmuxProcesses> =>
  Effect.flatMap(TmuxProcesses, (processes) =>
    Effect.callback<Finished, SpawnFailed | OutputOverflowed>((resume) => {
      let child: ChildProcess
      try {
        child = processes.spawn(bin, argv, { env: options.env, stdin: options.stdin !== undefined })
      } catch (error) {
        resume(Effect.fail(spawnFailed(bin, error)))
        return
      }
      // A failed spawn emits "error" and then "close" too; the first one answers.
      let settled = false
      const settle = (outcome: Effect.Effect<Finished, SpawnFailed | OutputOverflowed>) => {
        if (settled) return
        settled = true
        resume(outcome)
      }
      const stdout: Array<Buffer> = []
      const stderr: Array<Buffer> = []
      const maxOutputBytes = options.maxOutputBytes ?? Number.POSITIVE_INFINITY
      let outputBytes = 0
      const release = () => {
        options.allowance?.give(outputBytes)
        outputBytes = 0
      }
      const collect = (into: Array<Buffer>) => (chunk: Buffer) => {
        if (settled) return
        const overflow: Overflow | undefined = outputBytes + chunk.length > maxOutputBytes
          ? "call"
          : options.allowance?.take(chunk.length) === false
          ? "in_flight"
          : undefined
        if (overflow === undefined) {
          outputBytes += chunk.length
          return void into.push(chunk)
        }
        stdout.length = 0
        stderr.length = 0
        release()
        child.stdout!.destroy()
        child.stderr!.destroy()
        void terminate(child)
        settle(Effect.fail(new OutputOverflowed(overflow)))
      }
      child.stdout!.on("data", collect(stdout))
      child.stderr!.on("data", collect(stderr))
      child.once("error", (error) => settle(Effect.fail(spawnFailed(bin, error))))
      // "close": the child exited and its output pipes are drained.
      child.once("close", (code: number | null) => {
        release()
        settle(
          Effect.succeed({
            stdout: Buffer.concat(stdout).toString("utf8"),
            stderr: Buffer.concat(stderr).toString("utf8"),
            exitCode: code
          })
        )
      })
      if (options.stdin !== undefined) {
        // tmux may exit before reading its input (an error, no server): the write then fails with EPIPE.
        child.stdin!.on("error", () => undefined)
        child.stdin!.end(options.stdin)
      }
      return Effect.promise(() => {
        release()
        return terminate(child)
      })
    }))
