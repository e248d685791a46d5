import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import { parseTmuxVariable } from "../../src/context/internal/TmuxVariable.js"

describe("parseTmuxVariable", () => {
  it("reads socket path, server pid and session index", () => {
    expect(parseTmuxVariable("/tmp/tmux-1000/default,4242,3")).toEqual(
      Option.some({ socketPath: "/tmp/tmux-1000/default", serverPid: 4242, sessionIndex: "3" })
    )
  })

  it("parses from the right, so commas in the path survive", () => {
    expect(parseTmuxVariable("/tmp/a,b/c,,d,17,0")).toEqual(
      Option.some({ socketPath: "/tmp/a,b/c,,d", serverPid: 17, sessionIndex: "0" })
    )
  })

  it("rejects what is not a TMUX value", () => {
    for (
      const bad of ["", "garbage", "/tmp/x,12", "/tmp/x,abc,0", "/tmp/x,0,0", "/tmp/x,-3,0", "relative/x,12,0", ",12,0", "/tmp/x,1.5,0"]
    ) {
      expect(Option.isNone(parseTmuxVariable(bad)), bad).toBe(true)
    }
  })
})
