/**
 * where_am_i is an agent's first call: its text block stays within 500 B at the default tier (48
 * tools) with a realistically long socket path (issue 31 item 7: it was 504 B), in the worst usual
 * case: inside a pane, the caller found in the process tree (the longest caller_source and socket
 * rule), the tools on the caller's live server. Over FakeTmux, so the bytes are exact: no pid,
 * time or temporary directory of a real run varies them.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { call, callerEnv, fakeConfig, resultText, socketPathFor } from "../support/fakeWorld.js"
import { servicesLayer } from "../support/PrivateTmux.js"
import { okResult } from "../support/runTool.js"

const BUDGET = 500
/** systemd's runtime directory as TMUX_TMPDIR and a socket named after a project: 40 B. */
const TMPDIR = "/run/user/1000"
const NAME = "effect-tmux-mcp"
const SOCKET = socketPathFor(NAME, TMPDIR, 1000)
/** A pid and start time of the widths a long-running machine has. */
const PID = 3_141_592

const world = (): FakeWorld =>
  new Map([[SOCKET, FakeTmux.server({ pid: PID, startTime: 1_796_617_326, sessions: [{ name: "work", windows: [{}] }] })]])

const whereAmI = (options: { readonly source: "environment" | "process_tree"; readonly socketName?: string | undefined }) => {
  const base = fakeConfig({
    tmpdir: TMPDIR,
    uid: 1000,
    env: { ...callerEnv(SOCKET, PID, "%0"), ...(options.socketName === undefined ? {} : { LIBTMUX_SOCKET: options.socketName }) }
  })
  const config = options.source === "process_tree" ? { ...base, callerSource: "process_tree" as const } : base
  return call(servicesLayer(config, FakeTmux.layer(world())), "where_am_i")
}

describe(`where_am_i's text at the default tier stays within ${BUDGET} B with a ${SOCKET.length} B socket path`, () => {
  it.effect("inside a pane found through the process tree, the tools on the caller's live server", () =>
    Effect.gen(function*() {
      const result = yield* whereAmI({ source: "process_tree" })
      const where = okResult(result)
      // The worst usual case indeed: every caller field filled, the longest source and rule.
      expect(where).toMatchObject({
        caller_status: "live",
        caller_source: "process_tree",
        socket_rule: "caller (process tree)",
        targets_caller_server: true,
        server_running: true,
        effective_socket_path: SOCKET,
        tool_count: 48
      })
      expect(Buffer.byteLength(resultText(result), "utf8")).toBeLessThanOrEqual(BUDGET)
    }))

  it.effect("inside a pane found from $TMUX: the same, and the caller's socket is said once", () =>
    Effect.gen(function*() {
      const result = yield* whereAmI({ source: "environment" })
      expect(okResult(result)).toMatchObject({ inside_tmux: true, caller_source: "environment", tool_count: 48 })
      expect(okResult(result)).not.toHaveProperty("caller_socket_path")
      expect(resultText(result).split(SOCKET)).toHaveLength(2)
      expect(Buffer.byteLength(resultText(result), "utf8")).toBeLessThanOrEqual(BUDGET)
    }))

  it.effect("with the tools on another server, both sockets are named (two long paths: not within the budget, and not the usual case)", () =>
    Effect.gen(function*() {
      const where = okResult(yield* whereAmI({ source: "environment", socketName: `${NAME}-2` }))
      expect(where).toMatchObject({ caller_socket_path: SOCKET, effective_socket_path: `${SOCKET}-2`, targets_caller_server: false })
      expect(where).not.toHaveProperty("tool_set")
    }))
})
