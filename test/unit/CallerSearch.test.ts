/**
 * The caller found in the process tree is confirmed by its server (issue 31 item 1): the pane is
 * the one whose pane_pid is our nearest ancestor, whatever the ancestor's TMUX_PANE claims, and
 * nothing is adopted when no pane runs an ancestor, when the server does not answer, when the
 * environment had TMUX, or when the search is off.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ProcReader } from "../../src/context/CallerProcessTree.js"
import { makeInvocationContext } from "../../src/context/InvocationContext.js"
import { makeSocketResolver } from "../../src/context/SocketResolver.js"
import type { TmuxMcpConfigShape } from "../../src/context/TmuxMcpConfig.js"
import { withCallerFromProcessTree } from "../../src/services/CallerSearch.js"
import { FakeTmux } from "../../src/testing/FakeTmux.js"
import type { FakeWorld } from "../../src/testing/FakeWorld.js"
import { fakeConfig, socketPathFor, UID } from "../support/fakeWorld.js"

const SOCKET = socketPathFor("default")
const SERVER_PID = 500

/** A server whose panes %0, %1 and %2 run the processes 601, 602 and 603. */
const world = (): FakeWorld =>
  new Map([[
    SOCKET,
    FakeTmux.server({
      pid: SERVER_PID,
      sessions: [{ name: "main", windows: [{ panes: [{ pid: 601 }, { pid: 602 }, { pid: 603 }] }] }]
    })
  ]])

/** Us (pid 100) under a chain of ancestors, each with its environment. */
const tree = (chain: ReadonlyArray<{ readonly pid: number; readonly environ?: string; readonly uid?: number }>): ProcReader => {
  const parent = new Map(chain.map((p, i) => [p.pid, chain[i + 1]?.pid ?? 1]))
  const byPid = new Map(chain.map((p) => [p.pid, p]))
  return {
    stat: (pid) => byPid.has(pid) ? `${pid} (sh) S ${parent.get(pid)} 0 0` : undefined,
    status: (pid) => {
      const uid = byPid.get(pid)?.uid ?? UID
      return byPid.has(pid) ? `Uid:\t${uid}\t${uid}\t${uid}\t${uid}\n` : undefined
    },
    environ: (pid) => {
      const text = byPid.get(pid)?.environ
      return text === undefined ? undefined : Buffer.from(text)
    },
    lstat: (path) => path === SOCKET ? { socket: true, symlink: false, uid: UID } : undefined
  }
}

const paneEnv = (pane: string, pid = SERVER_PID) => `HOME=/h\0TMUX=${SOCKET},${pid},0\0TMUX_PANE=${pane}\0`
const ORIGIN = { pid: 100, ppid: 99 }

const search = (config: TmuxMcpConfigShape, reader: ProcReader, fake: FakeWorld = world()) =>
  withCallerFromProcessTree(config, FakeTmux.layer(fake), reader, ORIGIN)

describe("withCallerFromProcessTree", () => {
  it.effect("adopts the server an ancestor's TMUX names and the pane that runs our nearest ancestor", () =>
    Effect.gen(function*() {
      // 99 is the client, 602 the pane's shell (TMUX_PANE %1), then the tmux server.
      const config = yield* search(fakeConfig(), tree([{ pid: 99 }, { pid: 602, environ: paneEnv("%1") }, { pid: SERVER_PID }]))
      expect(config).toMatchObject({ callerTmux: `${SOCKET},${SERVER_PID},0`, callerPane: "%1", callerSource: "process_tree" })
      // Everything downstream reads it as the caller, found in the process tree.
      const context = makeInvocationContext(config.callerTmux, config.callerPane, config.callerSource)
      expect(Option.getOrNull(context.caller)).toEqual({ socketPath: SOCKET, serverPid: SERVER_PID, paneId: "%1", source: "process_tree" })
      const resolver = makeSocketResolver(config)
      expect(yield* resolver.resolve()).toMatchObject({ path: SOCKET, rule: "caller (process tree)" })
    }))

  it.effect("when the ancestor's TMUX_PANE names another pane, the pane matched by pid wins", () =>
    Effect.gen(function*() {
      // The shell says %2 (a copied environment), but it is the process of %0.
      const config = yield* search(fakeConfig(), tree([{ pid: 99 }, { pid: 601, environ: paneEnv("%2") }]))
      expect(config.callerPane).toBe("%0")
    }))

  it.effect("nothing is adopted when no pane runs one of our ancestors, or the server is another one (restarted)", () =>
    Effect.gen(function*() {
      const plain = fakeConfig()
      expect(yield* search(plain, tree([{ pid: 99, environ: paneEnv("%1") }, { pid: 98 }]))).toBe(plain)
      expect(yield* search(plain, tree([{ pid: 602, environ: paneEnv("%1", 499) }]))).toBe(plain)
    }))

  it.effect("a pane running an ancestor of another uid is not ours to adopt", () =>
    Effect.gen(function*() {
      const plain = fakeConfig()
      // The pane's process belongs to root: it is passed over, and the pane cannot be matched by it.
      const reader = tree([{ pid: 99, environ: paneEnv("%1") }, { pid: 602, uid: 0, environ: paneEnv("%1") }])
      expect(yield* search(plain, reader)).toBe(plain)
    }))

  it.effect("nothing is adopted when the server does not answer (no server at the socket)", () =>
    Effect.gen(function*() {
      const plain = fakeConfig()
      expect(yield* search(plain, tree([{ pid: 602, environ: paneEnv("%1") }]), new Map())).toBe(plain)
    }))

  it.effect("the environment's TMUX wins, and LIBTMUX_MCP_PROCESS_TREE=0 turns the search off", () =>
    Effect.gen(function*() {
      const reader = tree([{ pid: 602, environ: paneEnv("%1") }])
      const fromEnv = fakeConfig({ env: { TMUX: "/tmp/elsewhere,7,0", TMUX_PANE: "%9" } })
      expect(yield* search(fromEnv, reader)).toBe(fromEnv)
      const off = fakeConfig({ env: { LIBTMUX_MCP_PROCESS_TREE: "0" } })
      expect(yield* search(off, reader)).toBe(off)
    }))
})
