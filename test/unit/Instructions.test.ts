import { describe, expect, it } from "@effect/vitest"
import * as Option from "effect/Option"
import { type Caller, type InvocationContextShape, makeInvocationContext } from "../../src/context/InvocationContext.js"
import type { ResolvedSocket } from "../../src/context/SocketResolver.js"
import { SAFETY_LEVELS } from "../../src/context/TmuxMcpConfig.js"
import { buildInstructions, INSTRUCTIONS_MAX_BYTES } from "../../src/mcp/Instructions.js"

const socketAt = (path: string, name: string | null = null, rule: ResolvedSocket["rule"] = "caller ($TMUX)"): ResolvedSocket => ({
  name,
  path,
  rule,
  flags: name === null ? ["-S", path] : ["-L", name],
  label: name === null ? path : `${name} (${path})`
})
const bytes = (text: string) => Buffer.byteLength(text, "utf8")

/** The invocation context a server started with this caller (or none) would have. */
const contextOf = (who: Option.Option<Caller>): InvocationContextShape =>
  Option.match(who, {
    onNone: () => makeInvocationContext(undefined, undefined),
    onSome: (c) => makeInvocationContext(`${c.socketPath},${c.serverPid},0`, c.paneId ?? undefined)
  })

const LONG_DIR = `/tmp/${"very-long-directory-name-ü/".repeat(6)}`
const longSocket = socketAt(`${LONG_DIR}tmux-1000/work`, "work", "LIBTMUX_SOCKET")
const longCaller: Caller = { socketPath: `${LONG_DIR}caller,with,commas/default`, serverPid: 99, paneId: "%12", source: "environment" }
const caller: Caller = { socketPath: "/tmp/tmux-1000/default", serverPid: 42, paneId: "%3", source: "environment" }

describe("buildInstructions", () => {
  it("stays within 2048 bytes in every context, level and path length", () => {
    expect(longSocket.path.length).toBeGreaterThan(100)
    expect(longCaller.socketPath.length).toBeGreaterThan(100)
    const cases: Array<[Option.Option<Caller>, ResolvedSocket]> = [
      [Option.none(), socketAt("/tmp/tmux-1000/default", "default", "tmux default")],
      [Option.none(), longSocket],
      [Option.some(caller), socketAt(caller.socketPath)],
      [Option.some(caller), longSocket],
      [Option.some(longCaller), socketAt(longCaller.socketPath)],
      [Option.some(longCaller), longSocket],
      [Option.some({ ...caller, paneId: null }), longSocket]
    ]
    for (const safety of SAFETY_LEVELS) {
      for (const suppressHistory of [true, false]) {
        for (const [who, socket] of cases) {
          const text = buildInstructions({ safety, suppressHistory }, contextOf(who), socket)
          expect(bytes(text)).toBeLessThanOrEqual(INSTRUCTIONS_MAX_BYTES)
          expect(text.startsWith("Context: ")).toBe(true)
          expect(text).toContain(`Safety level: ${safety}`)
          // The schemas no longer describe the shared arguments: the instructions must, in every context.
          for (
            const shared of [
              "socket_name",
              "socket_path",
              "generation",
              "offset and limit",
              "fields takes names or \"all\"",
              "(%N, list_panes"
            ]
          ) {
            expect(text).toContain(shared)
          }
        }
      }
    }
  })

  it("outside tmux says there is no self and where to look", () => {
    const text = buildInstructions(
      { safety: "mutating", suppressHistory: true },
      contextOf(Option.none()),
      socketAt("/tmp/tmux-1000/default", "default", "tmux default")
    )
    expect(text).toContain("NOT running inside tmux")
    expect(text).toContain("there is no 'self'")
    expect(text).toContain("is_caller is null on every pane")
    expect(text).toContain("where_am_i")
    expect(text).toContain("list_servers")
    expect(text).toContain("default (/tmp/tmux-1000/default)")
    expect(text).toContain("tmux default")
  })

  it("inside tmux names the caller pane and the socket queried", () => {
    const text = buildInstructions(
      { safety: "readonly", suppressHistory: true },
      contextOf(Option.some(caller)),
      socketAt(caller.socketPath)
    )
    expect(text).toContain("pane %3")
    expect(text).toContain(caller.socketPath)
    expect(text).toContain("same server")
    expect(text).not.toContain("DIFFERENT")
    expect(text).not.toContain("NOT running inside tmux")
  })

  it("inside tmux says when the tools query a different server than the caller's", () => {
    const other = socketAt("/tmp/tmux-1000/work", "work", "LIBTMUX_SOCKET")
    const text = buildInstructions({ safety: "mutating", suppressHistory: true }, contextOf(Option.some(caller)), other)
    expect(text).toContain("pane %3")
    expect(text).toContain(caller.socketPath)
    expect(text).toContain("DIFFERENT server")
    expect(text).toContain("work (/tmp/tmux-1000/work)")
    expect(text).toContain("LIBTMUX_SOCKET")
  })

  it("keeps the end of a long path, where the socket name is", () => {
    const text = buildInstructions({ safety: "mutating", suppressHistory: true }, contextOf(Option.some(longCaller)), longSocket)
    expect(text).toContain("pane %12")
    expect(text).toContain("caller,with,commas/default")
    expect(text).toContain("tmux-1000/work)")
  })
})
