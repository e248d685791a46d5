import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeInvocationContext } from "../../src/context/InvocationContext.js"
import type { ResolvedSocket } from "../../src/context/SocketResolver.js"

const at = (path: string): ResolvedSocket => ({ name: null, path, rule: "socket_path argument", flags: ["-S", path], label: path })
const MINE = "/tmp/tmux-1/default"

describe("InvocationContext", () => {
  it("outside tmux: no caller, null answers, nothing is ours", () => {
    const context = makeInvocationContext(undefined, undefined)
    expect(Option.isNone(context.caller)).toBe(true)
    expect(context.uncertain).toBe(false)
    expect(context.isCallerServer(at(MINE), 10)).toBeNull()
    expect(context.isCallerPane(at(MINE), 10, "%1")).toBeNull()
    expect(context.mightBeCallerServer(at(MINE), 10)).toBe(false)
  })

  it("confirms the caller only when socket AND pid match", () => {
    const context = makeInvocationContext(`${MINE},10,0`, "%1")
    expect(context.caller).toEqual(Option.some({ socketPath: MINE, serverPid: 10, paneId: "%1", source: "environment" }))
    expect(context.isCallerServer(at(MINE), 10)).toBe(true)
    expect(context.isCallerServer(at(MINE), 11)).toBe(false)
    expect(context.isCallerServer(at("/tmp/other"), 10)).toBe(false)
    expect(context.isCallerPane(at(MINE), 10, "%1")).toBe(true)
    expect(context.isCallerPane(at(MINE), 10, "%2")).toBe(false)
    expect(context.isCallerPane(at(MINE), 11, "%1")).toBe(false)
  })

  it("is cautious for guards: socket OR pid is enough", () => {
    const context = makeInvocationContext(`${MINE},10,0`, "%1")
    expect(context.mightBeCallerServer(at(MINE), 99)).toBe(true)
    expect(context.mightBeCallerServer(at(MINE), null)).toBe(true)
    expect(context.mightBeCallerServer(at("/tmp/other"), 10)).toBe(true)
    expect(context.mightBeCallerServer(at("/tmp/other"), 99)).toBe(false)
    expect(context.mightBeCallerServer(at("/tmp/other"), null)).toBe(false)
  })

  it("is uncertain with $TMUX_PANE but no readable $TMUX, and then guards everything", () => {
    for (const tmux of [undefined, "garbage"]) {
      const context = makeInvocationContext(tmux, "%1")
      expect(context.uncertain).toBe(true)
      expect(Option.isNone(context.caller)).toBe(true)
      expect(context.mightBeCallerServer(at("/anything"), 1)).toBe(true)
    }
  })

  it("never takes a remote host's server for the caller's, even at the caller's path and pid", () => {
    const remote: ResolvedSocket = { ...at(MINE), host: "build", label: `build:default (${MINE})` }
    const local: ResolvedSocket = { ...at(MINE), host: "local" }
    const context = makeInvocationContext(`${MINE},10,0`, "%1")
    expect(context.isCallerSocket(remote)).toBe(false)
    expect(context.isCallerServer(remote, 10)).toBe(false)
    expect(context.isCallerPane(remote, 10, "%1")).toBe(false)
    expect(context.mightBeCallerServer(remote, 10)).toBe(false)
    // This machine's socket, said with a hosts file, is the caller's as before.
    expect(context.isCallerServer(local, 10)).toBe(true)
    expect(context.mightBeCallerServer(local, 99)).toBe(true)
    // Uncertain who the caller is: still someone of this machine.
    expect(makeInvocationContext(undefined, "%1").mightBeCallerServer(remote, 10)).toBe(false)
    expect(makeInvocationContext(undefined, undefined).isCallerServer(remote, 10)).toBeNull()
  })

  it("ignores a malformed $TMUX_PANE", () => {
    expect(makeInvocationContext(`${MINE},10,0`, "1").caller).toEqual(
      Option.some({ socketPath: MINE, serverPid: 10, paneId: null, source: "environment" })
    )
  })

  it("matches socket paths by their real location", () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "etm-unit-")))
    try {
      mkdirSync(join(base, "real"))
      writeFileSync(join(base, "real", "sock"), "")
      symlinkSync(join(base, "real"), join(base, "link"))
      const context = makeInvocationContext(`${join(base, "link", "sock")},10,0`, "%1")
      expect(context.isCallerServer(at(join(base, "real", "sock")), 10)).toBe(true)
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  })
})
