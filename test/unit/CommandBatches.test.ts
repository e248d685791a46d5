import { describe, expect, it } from "@effect/vitest"
import type { ResolvedSocket } from "../../src/context/SocketResolver.js"
import {
  BATCH_ARGC_BUDGET,
  BATCH_BUDGET,
  commandListArgc,
  commandListBytes,
  splitToFit,
  TMUX_ARGC_LIMIT,
  TMUX_ARGV_LIMIT
} from "../../src/tmux/CommandBatches.js"
import type { TmuxCommand } from "../../src/tmux/Tmux.js"
import { invocationArgv } from "../../src/tmux/TmuxExec.js"

const socket: ResolvedSocket = { name: "x", path: "/tmp/tmux-1/x", rule: "LIBTMUX_SOCKET", flags: ["-L", "x"], label: "x" }

/** The bytes tmux's client packs: every argv string after the global flags, with its NUL. */
const packedBytes = (commands: ReadonlyArray<TmuxCommand>): number => {
  const argv = invocationArgv({ tmuxConfigFile: undefined }, socket, commands, false)
  // The global flags (-u -N -L x) stay in the client.
  return argv.slice(4).reduce((sum, arg) => sum + Buffer.byteLength(arg, "utf8") + 1, 0)
}

describe("commandListBytes", () => {
  it("counts what the tmux client packs: escaped arguments, ';' separators, a NUL each, UTF-8 bytes", () => {
    const commands: Array<TmuxCommand> = [
      ["display-message", "-p", "x"],
      ["send-keys", "-t", "%1", "-l", "echo hi;"],
      ["rename-session", "-t", "$0", "日本語 🎉"]
    ]
    expect(commandListBytes(commands)).toBe(packedBytes(commands))
    expect(commandListBytes([])).toBe(0)
  })
})

describe("splitToFit", () => {
  const unit = (n: number): Array<TmuxCommand> => [
    ["display-message", "-p", "-t", `%${n}`, "#{pane_id}"],
    ["capture-pane", "-p", "-t", `%${n}`, "-S", "-1000"]
  ]

  it("keeps a list that fits as one batch", () => {
    const units = [unit(1), unit(2)]
    expect(splitToFit(units)).toEqual([[...unit(1), ...unit(2)]])
  })

  it("splits a long list into batches that each fit, keeps the order and never splits a unit", () => {
    const units = Array.from({ length: 400 }, (_, n) => unit(n))
    const batches = splitToFit(units)
    expect(batches.length).toBeGreaterThan(1)
    for (const batch of batches) {
      expect(commandListBytes(batch)).toBeLessThanOrEqual(BATCH_BUDGET)
      expect(batch.length % 2).toBe(0)
    }
    expect(batches.flat()).toEqual(units.flat())
    // Greedy: a batch leaves too little room for the next unit, in bytes or in strings.
    for (const batch of batches.slice(0, -1)) {
      const bytesFull = commandListBytes(batch) + 2 + commandListBytes(unit(0)) > BATCH_BUDGET - 10
      const stringsFull = commandListArgc(batch) + 1 + commandListArgc(unit(0)) > BATCH_ARGC_BUDGET
      expect(bytesFull || stringsFull).toBe(true)
    }
  })

  it("leaves room under tmux's limit for the transport's end mark", () => {
    expect(BATCH_BUDGET).toBeLessThan(TMUX_ARGV_LIMIT - 100)
    expect(BATCH_ARGC_BUDGET).toBeLessThan(TMUX_ARGC_LIMIT - 4)
  })

  it("also keeps each batch within the 1000 argv strings tmux 3.7 and later accept in one command", () => {
    // Short commands: 600 of them are far below the byte budget, but 3 strings and a ";" each.
    const kill = (n: number): Array<TmuxCommand> => [["kill-session", "-t", `$${n}`]]
    const units = Array.from({ length: 600 }, (_, n) => kill(n))
    expect(commandListBytes(units.flat())).toBeLessThan(BATCH_BUDGET)
    expect(commandListArgc(units.flat())).toBe(600 * 3 + 599)
    const batches = splitToFit(units)
    expect(batches.length).toBe(3)
    for (const batch of batches) expect(commandListArgc(batch)).toBeLessThanOrEqual(BATCH_ARGC_BUDGET)
    expect(batches.flat()).toEqual(units.flat())
  })

  it("puts a unit too big for any batch on its own, between the others", () => {
    const big: Array<TmuxCommand> = [["set-buffer", "-b", "x", "y".repeat(BATCH_BUDGET)]]
    expect(splitToFit([unit(1), big, unit(2)])).toEqual([unit(1), big, unit(2)])
  })
})
