/**
 * search_panes through a real MCP client over stdio: the built server finds text in two sessions'
 * panes, returns a result the client validates against the outputSchema, runs nothing a pattern
 * names, and rejects a runaway regex with invalid_input.
 */
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, makeWorld, ok, serve, type Served, type World } from "./harness.js"

const cli = (world: World, ...args: Array<string>) => {
  const result = world.tmux(args)
  if (result.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${result.stderr}`)
  return result.stdout.trimEnd()
}

/** Polls until `check` gives a value (a bound for waiting on a shell, not a timing assertion). */
const poll = async <A>(what: string, check: () => A | undefined): Promise<A> => {
  for (let i = 0; i < 200; i++) {
    const value = check()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`no ${what}`)
}

describe("search_panes over stdio", () => {
  let world: World
  let server: Served
  const panes: Array<string> = []

  beforeAll(async () => {
    world = makeWorld()
    const sentinel = join(world.dir, "pwned")
    // Through a script file, so the text reaches the pane exactly as written.
    const script = join(world.dir, "print.sh")
    writeFileSync(script, `printf '%s\\n' 'deploy #{pane_id} #(touch ${sentinel}) ok' "tag: $1" '${"a".repeat(40)}!'\nexec sleep 600\n`)
    for (const session of ["web", "db"]) {
      panes.push(
        cli(world, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", session, "-x", "160", "-y", "20", `sh ${script} ${session}`)
      )
    }
    for (const paneId of panes) {
      await poll(`${paneId} printed`, () => (cli(world, "capture-pane", "-p", "-t", paneId).includes("tag: ") ? true : undefined))
    }
    server = await serve(world)
  })
  afterAll(async () => {
    await server?.close()
    world?.dispose()
  })

  it("finds the text in both sessions, literally, and runs nothing the pattern names", async () => {
    const sentinel = join(world.dir, "pwned")
    const pattern = `#{pane_id} #(touch ${sentinel})`
    const result = ok(await server.call("search_panes", { patterns: [pattern, "tag: db"], fields: ["session_name"] }))
    expect(result).toMatchObject({
      panes_total: 2,
      panes_searched: 2,
      panes_with_matches: 2,
      total_matches: 3,
      truncated: false,
      next_offset: null
    })
    expect(result.panes.map((pane: any) => [pane.pane_id, pane.session_name, pane.matches.map((m: any) => [m.line, m.text, m.pattern])]))
      .toEqual([
        [panes[0], "web", [[0, `deploy ${pattern} ok`, 0]]],
        [panes[1], "db", [[0, `deploy ${pattern} ok`, 0], [1, "tag: db", 1]]]
      ])
    expect(existsSync(sentinel)).toBe(false)

    const db = result.panes[1]
    const back = ok(await server.call("capture_pane", { pane_id: db.pane_id, start: db.matches[1].line, end: db.matches[1].line }))
    expect(back.content).toBe("tag: db")
  })

  it("scopes to one session and pages over panes", async () => {
    const sessionId = cli(world, "display-message", "-p", "-t", panes[1]!, "#{session_id}")
    const scoped = ok(await server.call("search_panes", { patterns: ["deploy"], session_id: sessionId }))
    expect(scoped.panes.map((pane: any) => pane.pane_id)).toEqual([panes[1]])
    const first = ok(await server.call("search_panes", { patterns: ["deploy"], max_panes: 1 }))
    expect(first).toMatchObject({ next_offset: 1, truncated: true })
    const second = ok(await server.call("search_panes", { patterns: ["deploy"], max_panes: 1, offset: first.next_offset }))
    expect([...first.panes, ...second.panes].map((pane: any) => pane.pane_id)).toEqual(panes)
    expect(second.next_offset).toBeNull()
  })

  it("rejects a runaway regex and an empty pattern list with invalid_input", async () => {
    const runaway = errorOf(await server.call("search_panes", { patterns: ["^(a+)+$"], regex: true }))
    expect(runaway.code).toBe("invalid_input")
    expect(runaway.text).toContain("simplify it")
    expect(errorOf(await server.call("search_panes", { patterns: [] })).code).toBe("invalid_input")
  })
})
