/**
 * The most one command list may print, stdout and stderr together, on every transport. A server
 * (or whatever answers on its socket) can print without end: `capture-pane -S -` of a pane with a
 * huge history-limit, or a listener that floods. Past the limit the client is closed and what it
 * printed dropped, so one call can neither take the process's memory nor make a string too long
 * for V8 (which would end the whole server). The largest real answer this server asks for (a
 * 100,000-line capture of wide lines) fits with room.
 */
import { Failed } from "../../domain/Errors.js"

const MIB = 1024 * 1024

export const MAX_OUTPUT_BYTES = 32 * MIB

/**
 * The most output all calls of one layer hold at once: many calls at once (a client may send any
 * number) each under MAX_OUTPUT_BYTES must not add up to the process's memory either.
 */
export const MAX_OUTPUT_IN_FLIGHT_BYTES = 96 * MIB

/**
 * What the calls of one layer hold of their output now. Each call takes what it receives, and
 * gives it all back when it ends, however it ends.
 */
export class OutputAllowance {
  private held = 0
  constructor(readonly limit: number = MAX_OUTPUT_IN_FLIGHT_BYTES) {}

  /** Takes `bytes`, or nothing when that would pass the limit (false). */
  take(bytes: number): boolean {
    if (this.held + bytes > this.limit) return false
    this.held += bytes
    return true
  }

  give(bytes: number): void {
    this.held -= bytes
  }
}

/** Why a call's output was cut: its own size, or what every call in flight held together. */
export type Overflow = "call" | "in_flight"

const mib = (bytes: number) => (bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`)

/** The failure of a list whose output passed a limit. */
export const outputOverflowed = (description: string, overflow: Overflow = "call"): Failed =>
  new Failed({
    command: description,
    reason: "overflow",
    exitCode: null,
    stderr: overflow === "call"
      ? `output over ${mib(MAX_OUTPUT_BYTES)}, the most one call may hold; the client was closed and the output dropped`
      : `output over ${
        mib(MAX_OUTPUT_IN_FLIGHT_BYTES)
      } across the calls in flight, the most they may hold together; the client was closed and the output dropped (retry when the others are done)`
  })
