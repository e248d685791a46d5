/**
 * Owned sessions on real tmux: released (killed) when the Ownership layer's scope closes, only
 * those carrying this process's mark, on every socket where one was created.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import { type ResolvedSocket, SocketResolver } from "../../src/context/SocketResolver.js"
import { TmuxMcpConfig } from "../../src/context/TmuxMcpConfig.js"
import { OWNER_OPTION, Ownership, type OwnershipShape } from "../../src/services/Ownership.js"
import { TmuxExec } from "../../src/tmux/TmuxExec.js"
import { useWorlds } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"

const { world } = useWorlds()

const sessionNames = (w: PrivateTmux) => {
  const result = w.tmux("list-sessions", "-F", "#{session_name}")
  return result.status === 0 ? result.stdout.split("\n").filter((line) => line !== "").sort() : []
}

/** Runs `use` with an Ownership service whose scope closes when it returns, as at MCP shutdown. */
const withOwnership = (
  w: PrivateTmux,
  use: (ownership: OwnershipShape, socket: ResolvedSocket) => Effect.Effect<void>
) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const ownership = yield* Ownership
      const socket = yield* Effect.orDie((yield* SocketResolver).resolve())
      yield* use(ownership, socket)
    }).pipe(
      Effect.provide(
        Layer.mergeAll(Ownership.layer, SocketResolver.layer).pipe(
          Layer.provideMerge(TmuxExec.layer),
          Layer.provideMerge(TmuxMcpConfig.layer(w.config()))
        )
      )
    )
  )

describe("Ownership", () => {
  it("kills only the sessions marked with this process's token when its scope closes", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "keep")
    let token = ""
    await withOwnership(w, (ownership, socket) =>
      Effect.gen(function*() {
        token = ownership.token
        // Marked the way create_session does it: the mark command right after new-session.
        w.tmuxOk("new-session", "-d", "-s", "mine", ";", ...ownership.markCommand)
        // Marked by someone else (another MCP server process): not ours to kill.
        w.tmuxOk("new-session", "-d", "-s", "theirs", ";", "set-option", OWNER_OPTION, "other-token")
        yield* ownership.register(socket)
        expect(sessionNames(w)).toEqual(["keep", "mine", "theirs"])
      }))
    expect(token).not.toBe("")
    expect(sessionNames(w)).toEqual(["keep", "theirs"])
  })

  it("does nothing on shutdown when nothing was registered, and survives a server that is gone", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "plain")
    await withOwnership(w, (ownership) =>
      Effect.sync(() => {
        w.tmuxOk("new-session", "-d", "-s", "marked", ";", ...ownership.markCommand)
      }))
    // Marked but never registered: release only visits sockets it was told about.
    expect(sessionNames(w)).toEqual(["marked", "plain"])

    const gone = world()
    gone.tmuxOk("new-session", "-d", "-s", "x")
    await withOwnership(gone, (ownership, socket) =>
      Effect.gen(function*() {
        yield* ownership.register(socket)
        gone.tmuxOk("kill-server")
      }))
    expect(sessionNames(gone)).toEqual([])
  })
})
