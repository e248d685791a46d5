/**
 * Turns for the connections to one tmux server (TmuxSocket): at most `limit` at once, the rest in
 * order, a waiting turn that gives up leaves the line, ending a turn twice frees one turn only.
 */
import { describe, expect, it } from "vitest"
import { Turns } from "../../src/tmux/internal/Turns.js"

describe("Turns", () => {
  it("runs at most `limit` at once and starts the waiting ones in the order they came", () => {
    const turns = new Turns(2)
    const started: Array<number> = []
    const leaves = [0, 1, 2, 3, 4].map((i) => turns.take(() => started.push(i)))
    expect(started).toEqual([0, 1])
    expect(turns.size).toEqual({ running: 2, waiting: 3 })
    leaves[1]!()
    expect(started).toEqual([0, 1, 2])
    leaves[0]!()
    leaves[2]!()
    expect(started).toEqual([0, 1, 2, 3, 4])
    expect(turns.size).toEqual({ running: 2, waiting: 0 })
  })

  it("lets a waiting turn give up without ever starting it, and frees one turn per ending, however often it is called", () => {
    const turns = new Turns(1)
    const started: Array<string> = []
    const first = turns.take(() => started.push("first"))
    const gaveUp = turns.take(() => started.push("gave up"))
    const third = turns.take(() => started.push("third"))
    gaveUp()
    first()
    first()
    expect(started).toEqual(["first", "third"])
    expect(turns.size).toEqual({ running: 1, waiting: 0 })
    third()
    expect(turns.size).toEqual({ running: 0, waiting: 0 })
  })
})
