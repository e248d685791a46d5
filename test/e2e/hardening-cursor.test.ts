/**
 * Issue 10, item 1 over stdio, as the issue reproduced it: a cursor taken at the top of a fresh
 * pane, then more output than the default history-limit (2000) keeps. wait_for_text with that
 * cursor as `since` finds DONE-2 on the screen, and both it and capture_since say `missed`.
 */
import { afterEach, describe, expect, it } from "vitest"
import { makeWorld, ok, serve, type World } from "./harness.js"

const worlds: Array<World> = []
afterEach(() => {
  for (const world of worlds.splice(0)) world.dispose()
})

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Polls until `check` holds; fails after `boundMs` (a bound for waiting, not a timing assertion). */
const until = async (what: string, check: () => boolean, boundMs = 10_000) => {
  for (const deadline = Date.now() + boundMs; !check(); await pause(25)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
  }
}

describe("a fresh pane's cursor over stdio", () => {
  it("after seq 1 3000, wait_for_text since it matches DONE-2 and capture_since says missed", async () => {
    const world = makeWorld()
    worlds.push(world)
    const server = await serve(world)
    try {
      const created = ok(
        await server.call("create_session", { session_name: "repro", allow_server_start: true, command: ["env", "PS1=$ ", "sh"] })
      )
      const paneId: string = created.active_pane_id
      const screen = () => world.tmux(["capture-pane", "-p", "-t", paneId]).stdout.trimEnd()
      const cursorAt = () => world.tmux(["display-message", "-p", "-t", paneId, "#{cursor_x},#{cursor_y}"]).stdout.trim()
      await until("the prompt", () => screen() === "$" && cursorAt() === "2,0")

      const { cursor } = ok(await server.call("capture_since", { pane_id: paneId }))
      ok(await server.call("send_keys", { pane_id: paneId, keys: "seq 1 3000; echo DONE-$((1+1))", literal: true }))
      await until("DONE-2 and the next prompt", () => screen().endsWith("\nDONE-2\n$"))

      expect(ok(await server.call("wait_for_text", { pane_id: paneId, patterns: ["DONE-2"], since: cursor, timeout: 5 }))).toMatchObject({
        outcome: "matched",
        matched_lines: [{ text: "DONE-2", pattern_index: 0 }],
        missed: true
      })
      const since = ok(await server.call("capture_since", { pane_id: paneId, cursor }))
      expect(since.missed).toBe(true)
      expect(since.content).toContain("\n3000\nDONE-2\n$")
    } finally {
      await server.close()
    }
  })
})
