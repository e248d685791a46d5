/**
 * Issue 10 items 8 and 15: command lists longer than one tmux client message (16 KiB of argv on
 * tmux 3.3a) are split into invocations that each fit, in order, and errors about long lists stay
 * short. search_panes works up to its documented max_panes of 200; 800 owned sessions are all
 * released when the server shuts down.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import { SocketResolver } from "../../src/context/SocketResolver.js"
import { TmuxMcpConfig } from "../../src/context/TmuxMcpConfig.js"
import { callTool } from "../../src/mcp/CallTool.js"
import { Ownership } from "../../src/services/Ownership.js"
import { RecordingTmux, TmuxRecorder } from "../../src/testing/RecordingTmux.js"
import { Tmux, type TmuxCommand } from "../../src/tmux/Tmux.js"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import { defaultTmuxLayer, type PrivateTmux, servicesLayer } from "../support/PrivateTmux.js"
import { okResult, runTool, toolNamed } from "../support/runTool.js"

const { world } = useWorlds()

/** Runs `tmux` CLI command lists, `perCall` commands at a time (each call stays far below tmux's limit). */
const tmuxInChunks = (w: PrivateTmux, commands: ReadonlyArray<TmuxCommand>, perCall: number) => {
  for (let start = 0; start < commands.length; start += perCall) {
    const argv = commands.slice(start, start + perCall).flatMap((command, i) => (i === 0 ? [...command] : [";", ...command]))
    w.tmuxOk(...argv)
  }
}

const paneCount = (w: PrivateTmux) => w.tmuxOk("list-panes", "-a", "-F", "#{pane_id}").split("\n").filter(Boolean).length

/** A world with `count` panes (one window each), each printing needle-<n> once. */
const manyPanes = async (w: PrivateTmux, count: number) => {
  const printer = (n: number): TmuxCommand => ["sh", "-c", `echo needle-${n}; exec sleep 600`]
  w.tmuxOk("new-session", "-d", "-s", "many", ...printer(0))
  tmuxInChunks(
    w,
    Array.from({ length: count - 1 }, (_, i) => ["new-window", "-d", "-t", "many", ...printer(i + 1)]),
    50
  )
  expect(paneCount(w)).toBe(count)
  // Every pane has printed its needle (a bound for a loaded machine).
  await waitFor(
    "every pane to print its needle",
    () => {
      const found = w.tmuxOk("list-panes", "-a", "-F", "#{pane_id}").split("\n").filter(Boolean)
      return found.every((pane) => w.tmuxOk("capture-pane", "-p", "-t", pane).includes("needle-"))
    },
    20_000
  )
}

describe("command lists longer than one tmux message (item 8)", () => {
  for (const maxPanes of [150, 200]) {
    it(`search_panes with max_panes ${maxPanes} searches every pane of the page`, async () => {
      const w = world()
      await manyPanes(w, 200)
      const result = okResult(await runTool(w.layer(), "search_panes", { patterns: ["needle-"], max_panes: maxPanes }))
      expect(result).toMatchObject({
        panes_total: 200,
        panes_searched: maxPanes,
        panes_with_matches: maxPanes,
        total_matches: maxPanes,
        panes_closed: 0,
        next_offset: maxPanes === 200 ? null : maxPanes
      })
      // In pane-id order, each pane once.
      const ids = result.panes.map((pane: any) => Number(pane.pane_id.slice(1)))
      expect(ids).toEqual([...ids].sort((a, b) => a - b))
      expect(new Set(ids).size).toBe(ids.length)
    }, 60_000)
  }

  it("a 200-pane page costs the listing and a few full capture invocations, each pane captured once, in order", async () => {
    const w = world()
    await manyPanes(w, 200)
    const { result, invocations } = await Effect.runPromise(
      Effect.gen(function*() {
        const result = yield* callTool(toolNamed("search_panes"), { patterns: ["needle-"], max_panes: 200 })
        return { result, invocations: yield* (yield* TmuxRecorder).invocations }
      }).pipe(Effect.provide(servicesLayer<TmuxRecorder>(w.config(), RecordingTmux.layer(defaultTmuxLayer))))
    )
    expect(okResult(result).panes_searched).toBe(200)
    const captures = invocations.slice(1).map((invocation) => invocation.commands)
    // About 160 bytes per pane (header format with its marks, capture) would allow some 95 panes per
    // invocation; 13 argv strings per pane within the 1000 strings tmux 3.7+ accepts allow some 75.
    expect(captures.length).toBeGreaterThanOrEqual(2)
    expect(captures.length).toBeLessThanOrEqual(3)
    for (const batch of captures.slice(0, -1)) expect(batch.length).toBeGreaterThan(2 * 70)
    // Header and capture stay together; the batches together hold the page exactly.
    expect(captures.flat()).toEqual(Array.from({ length: 200 }, () => ["display-message", "capture-pane"]).flat())
  })

  it("an error about a long command list stays short (no list of every command)", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d")
    const commands: Array<TmuxCommand> = [...Array.from({ length: 299 }, () => ["display-message", "-p", "x"]), ["no-such-command"]]
    const error = await Effect.runPromise(
      Effect.gen(function*() {
        const socket = yield* (yield* SocketResolver).resolve()
        return yield* Effect.flip((yield* Tmux).run(socket, commands))
      }).pipe(Effect.provide(w.layer()))
    )
    expect(error._tag).toBe("Failed")
    // tmux's own words (3.8 refuses the whole list as too long), never our list of commands.
    expect(error.message).toMatch(/no-such-command|command too long/)
    expect(error.message).not.toContain("display-message")
    expect(error.message.length).toBeLessThan(400)
  })
})

describe("owned sessions at scale (item 15)", () => {
  it("800 owned sessions are all killed when the Ownership scope closes", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "keep", "sleep", "600")
    // The layer's scope closes when the program ends, as at MCP shutdown: its finalizer releases.
    await Effect.runPromise(
      Effect.gen(function*() {
        const ownership = yield* Ownership
        const socket = yield* Effect.orDie((yield* SocketResolver).resolve())
        // Marked the way create_session marks them: the mark right after new-session, in one list.
        tmuxInChunks(
          w,
          Array.from({ length: 800 }, () => [["new-session", "-d", "sleep", "600"], ownership.markCommand]).flat(),
          100
        )
        expect(w.tmuxOk("list-sessions", "-F", "#{session_id}").split("\n").filter(Boolean)).toHaveLength(801)
        yield* ownership.register(socket)
      }).pipe(
        Effect.provide(
          Layer.mergeAll(Ownership.layer, SocketResolver.layer).pipe(
            Layer.provideMerge(defaultTmuxLayer),
            Layer.provideMerge(TmuxMcpConfig.layer(w.config()))
          )
        )
      )
    )
    expect(w.tmuxOk("list-sessions", "-F", "#{session_name}").split("\n").filter(Boolean)).toEqual(["keep"])
  }, 120_000)
})
