/**
 * Two MCP server processes on one tmux server, racing run_command in the same idle pane (issue 10
 * item 4): each answer is either the command's own completion or a refusal naming the pane's state,
 * and no command is left behind without an owner.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorld, serve, type Served, type World } from "./harness.js"

describe("two servers, one pane", () => {
  let world: World
  let servers: Array<Served> = []
  let paneId: string

  beforeAll(async () => {
    world = makeWorld()
    world.tmux(["new-session", "-d", "-s", "work", "-x", "120", "-y", "30", "bash --norc --noprofile"])
    paneId = world.tmux(["display-message", "-p", "-t", "work", "#{pane_id}"]).stdout.trim()
    for (let i = 0; i < 100 && world.tmux(["capture-pane", "-p", "-t", paneId]).stdout.trim() === ""; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    servers = await Promise.all([serve(world), serve(world)])
  })
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()))
    world?.dispose()
  })

  it("racing run_commands either complete with their own status or are refused as a conflict", async () => {
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all(
        servers.map((server, index) =>
          server.call("run_command", { pane_id: paneId, command: `sleep 0.2; (exit ${11 * (index + 1)})`, timeout: 10 })
        )
      )
      let completed = 0
      results.forEach((result, index) => {
        const structured = result.structuredContent as Record<string, unknown> | undefined
        if (result.isError === true) {
          const meta = (result._meta as Record<string, Record<string, unknown>>)["effect-tmux-mcp/error"]!
          expect(meta.code, `round ${round}, server ${index}`).toBe("conflict")
          expect(["run_pending", "busy"]).toContain(meta.kind)
        } else {
          expect(structured, `round ${round}, server ${index}`).toMatchObject({ outcome: "completed", exit_status: 11 * (index + 1) })
          completed++
        }
      })
      expect(completed, `round ${round}`).toBeGreaterThanOrEqual(1)
      expect(world.tmux(["display-message", "-p", "-t", paneId, "#{pane_pipe}#{@etm-run}"]).stdout.trim()).toBe("0")
    }
  }, 60_000)
})
