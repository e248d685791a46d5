/**
 * What answers on a socket is trusted only so far (issue 21, items 1 and 2), on both transports:
 * - a socket a call names is used only when it is this user's (owned by this uid, in a directory no
 *   other user can change), else `denied` before anything connects;
 * - a socket the user configured may be another user's, and is then served by tmux's client
 *   protocol only, never by a tmux process (which opens any file its server asks for);
 * - only MSG_VERSION on this user's own socket makes exec serve it: a close, garbage or silence never
 *   does, so a listener that asks for files after an odd first answer never gets them;
 * - a server's output is bounded: a flood is `failed` (overflow), the client closed, the next call answers.
 * Every listener here asks for a secret file and for a target file to be created: the test checks
 * that neither happened.
 */
import * as Effect from "effect/Effect"
import { chmodSync, chownSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { constants } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { SocketResolver } from "../../src/context/SocketResolver.js"
import { MAX_OUTPUT_BYTES } from "../../src/tmux/internal/OutputLimit.js"
import { Tmux } from "../../src/tmux/Tmux.js"
import { TmuxSocket } from "../../src/tmux/TmuxSocket.js"
import { allTools } from "../../src/tools/registry.js"
import { validCallsOfEveryTool } from "../support/everyTool.js"
import { type FakeConnection, fakeTmuxServer } from "../support/FakeTmuxServer.js"
import { countingTmux, directoryWithMode, fileCanaries } from "../support/FileCanaries.js"
import { fileRequestRelay } from "../support/FileRequestRelay.js"
import { processAlive, useWorlds, waitFor } from "../support/liveTmux.js"
import { servicesLayer, testTransport } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"

const { defer, world } = useWorlds()
const isRoot = process.getuid?.() === 0
const NOBODY = 65534

/** A listener whose first connection gets `first`, every later one a request for the canaries. */
const listener = async (path: string, first: (c: FakeConnection) => void | Promise<void>, later: (c: FakeConnection) => Promise<void>) => {
  let seen = 0
  const fake = await fakeTmuxServer(path, (c) => (seen++ === 0 ? first(c) : later(c)))
  defer(() => void fake.close())
  return fake
}

describe("a socket a call names", () => {
  it("in a directory other users can write is denied before anything connects", async () => {
    const w = world()
    const files = fileCanaries(w.tmpdir)
    const fake = await listener(join(directoryWithMode(w.tmpdir, "shared", 0o777), "tmux"), files.ask, files.ask)
    const refused = errorMeta(await runTool(w.layer(), "list_sessions", { socket_path: fake.path }))
    expect(refused).toMatchObject({ code: "denied", effects: "none", retryable: false })
    expect(refused.text).toMatch(/not this user's \(its directory is writable by other users/)
    expect(refused.hint).toMatch(/list_servers/)
    expect(fake.accepted()).toBe(0)
    files.untouched()
  })

  it.runIf(isRoot)("owned by another uid is denied before anything connects, by name or by path", async () => {
    const w = world()
    const files = fileCanaries(w.tmpdir)
    const fake = await listener(join(directoryWithMode(w.tmpdir, "theirs", 0o755), "tmux"), files.ask, files.ask)
    chownSync(fake.path, NOBODY, NOBODY)
    const refused = errorMeta(await runTool(w.layer(), "get_server_info", { socket_path: fake.path }))
    expect(refused).toMatchObject({ code: "denied", effects: "none" })
    expect(refused.text).toContain(`it belongs to uid ${NOBODY}`)
    // A name in this user's socket directory is checked the same way.
    const socketDirectory = join(w.tmpdir, `tmux-${process.getuid!()}`)
    mkdirSync(socketDirectory, { mode: 0o700 })
    const named = await fakeTmuxServer(join(socketDirectory, "planted"), files.ask)
    defer(() => void named.close())
    chownSync(named.path, NOBODY, NOBODY)
    expect(errorMeta(await runTool(w.layer(), "list_panes", { socket_name: "planted" })).code).toBe("denied")
    expect(fake.accepted() + named.accepted()).toBe(0)
    files.untouched()
  })

  it("that is this user's answers as before", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "mine")
    expect(okResult(await runTool(w.layer(), "list_sessions", { socket_path: w.socketPath })).items).toEqual([
      expect.objectContaining({ session_name: "mine" })
    ])
  })
})

describe("a socket the user configured that is not this user's", () => {
  it.runIf(testTransport === "socket")(
    "is served by the socket transport only: file requests are refused, and MSG_VERSION is denied, never handed to a tmux process",
    async () => {
      const w = world()
      const files = fileCanaries(w.tmpdir)
      const counting = countingTmux(w.tmpdir)
      const path = join(directoryWithMode(w.tmpdir, "shared", 0o777), "tmux")
      // First a request for the files, then another protocol version, then the files again.
      let seen = 0
      const fake = await fakeTmuxServer(path, (c) => (seen++ === 1 ? (c.send(12), c.close()) : files.ask(c)))
      defer(() => void fake.close())
      const layer = servicesLayer({ ...w.config({ flags: { tmuxBin: counting.bin } }), socketName: undefined, socketPath: path })
      const asked = errorMeta(await runTool(layer, "list_sessions"))
      expect(asked.code).toBe("failed")
      const version = errorMeta(await runTool(layer, "list_sessions"))
      expect(version.code).toBe("denied")
      expect(version.text).toMatch(/another user's server is never served by a tmux process/)
      errorMeta(await runTool(layer, "list_sessions"))
      expect(fake.connections.length).toBe(3)
      expect(files.answers.length).toBe(2)
      files.untouched()
      expect(counting.runs()).toBe(0)
    }
  )

  it.runIf(testTransport === "exec")("is denied on the exec transport, before any tmux process runs", async () => {
    const w = world()
    const files = fileCanaries(w.tmpdir)
    const counting = countingTmux(w.tmpdir)
    const fake = await listener(join(directoryWithMode(w.tmpdir, "shared", 0o777), "tmux"), files.ask, files.ask)
    const layer = servicesLayer({ ...w.config({ flags: { tmuxBin: counting.bin } }), socketName: undefined, socketPath: fake.path })
    const refused = errorMeta(await runTool(layer, "list_sessions"))
    expect(refused.code).toBe("denied")
    expect(refused.text).toMatch(/served by tmux's client protocol only/)
    expect(counting.runs()).toBe(0)
    expect(fake.accepted()).toBe(0)
    files.untouched()
  })
})

describe.runIf(testTransport === "socket")("odd first answers never make exec serve a socket", () => {
  const cases: ReadonlyArray<readonly [string, (c: FakeConnection) => void, string]> = [
    ["closes its first connection without a word", (c) => c.close(), "no_server"],
    ["sends garbage first", (c) => c.sendRaw(Buffer.from("HTTP/1.1 400 Bad Request\r\n\r\n")), "failed"],
    ["sends a message type no tmux has", (c) => c.send(399), "failed"]
  ]
  for (const [what, first, code] of cases) {
    it(`a listener that ${what}, then asks for files, gets no file and no tmux process`, async () => {
      const w = world()
      const files = fileCanaries(w.tmpdir)
      const counting = countingTmux(w.tmpdir)
      const fake = await listener(join(directoryWithMode(w.tmpdir, "private", 0o700), "tmux"), first, files.ask)
      const layer = w.layer({ flags: { tmuxBin: counting.bin } })
      const firstCall = errorMeta(await runTool(layer, "list_sessions", { socket_path: fake.path }))
      expect(firstCall.code).toBe(code)
      if (code === "failed") expect(firstCall.text).toMatch(/does not speak tmux's client protocol/)
      // The same layer again, twice: still the socket client, which refuses the files.
      for (let call = 0; call < 2; call++) {
        expect(errorMeta(await runTool(layer, "list_sessions", { socket_path: fake.path })).code).toBe("failed")
      }
      expect(files.answers.length).toBe(2)
      files.untouched()
      for (const answer of files.answers) {
        expect(answer.readError).toBe(constants.errno.EACCES)
        expect(answer.writeError).toBe(constants.errno.EACCES)
      }
      expect(counting.runs()).toBe(0)
    })
  }
})

describe("a server's output is bounded", () => {
  it.runIf(testTransport === "socket")(
    "a socket that floods is failed (overflow), its connection closed, and the next call answers",
    async () => {
      const w = world()
      w.tmuxOk("new-session", "-d", "-s", "after")
      const sent: Array<number> = []
      const fake = await fakeTmuxServer(
        join(directoryWithMode(w.tmpdir, "flood", 0o700), "tmux"),
        async (c) => void sent.push(await c.flood(4 * MAX_OUTPUT_BYTES))
      )
      defer(() => void fake.close())
      const layer = servicesLayer(w.config(), TmuxSocket.layer)
      const flooded = errorMeta(await runTool(layer, "list_sessions", { socket_path: fake.path }))
      expect(flooded).toMatchObject({ code: "failed", effects: "none" })
      expect(flooded.text).toContain(`output over ${MAX_OUTPUT_BYTES / 1024 / 1024} MiB`)
      await fake.connections[0]!.closed
      for (let waited = 0; sent.length === 0 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20))
      expect(sent[0]).toBeLessThan(2 * MAX_OUTPUT_BYTES)
      expect(okResult(await runTool(layer, "list_sessions")).items).toEqual([expect.objectContaining({ session_name: "after" })])
    }
  )

  it.runIf(testTransport === "exec")(
    "a tmux process that prints without end is ended and failed (overflow), and the next call answers",
    async () => {
      const w = world()
      w.tmuxOk("new-session", "-d", "-s", "after")
      const bin = join(w.tmpdir, "flooding-tmux")
      writeFileSync(bin, `#!/bin/sh\necho $$ > "$0.pid"\nexec yes "a line that never ends being printed"\n`)
      chmodSync(bin, 0o755)
      const flooded = errorMeta(await runTool(w.layer({ flags: { tmuxBin: bin } }), "list_sessions"))
      expect(flooded.code).toBe("failed")
      expect(flooded.text).toContain("output over 32 MiB")
      const pid = Number(readFileSync(`${bin}.pid`, "utf8"))
      await waitFor("the flooding process to end", () => !processAlive(pid), 5_000)
      expect(okResult(await runTool(w.layer(), "list_sessions")).items).toEqual([expect.objectContaining({ session_name: "after" })])
    }
  )
})

describe("no tool makes a server open a file", () => {
  it(
    "every tool, through a relay recording what the server asks its client to open: never a path, only the client's own streams",
    async () => {
      const w = world()
      w.tmuxOk("new-session", "-d", "-s", "main", "-x", "80", "-y", "24", "cat")
      w.tmuxOk("split-window", "-d", "-t", "main", "cat")
      w.tmuxOk("set-buffer", "-b", "b", "x")
      const relay = await fileRequestRelay(join(directoryWithMode(w.tmpdir, "relay", 0o700), "tmux"), w.socketPath)
      defer(() => void relay.close())
      const layer = servicesLayer({
        ...w.config({ env: { LIBTMUX_SAFETY: "destructive" } }),
        socketName: undefined,
        socketPath: relay.path
      })
      // The relay sees a path when a server asks for one (a path that does not exist: nothing is read).
      await Effect.runPromise(
        Effect.gen(function*() {
          const socket = yield* (yield* SocketResolver).resolve()
          return yield* Effect.result((yield* Tmux).run(socket, [["load-buffer", "-b", "etm-x", "/nonexistent-etm/file"]]))
        }).pipe(Effect.provide(layer))
      )
      expect(relay.requests.filter((request) => request.path !== "-")).toEqual([
        expect.objectContaining({ type: "read", path: "/nonexistent-etm/file" })
      ])
      const sweep = relay.requests.length
      const calls = validCallsOfEveryTool("etm-no-such-handle")
      const answered: Array<string> = []
      // Killing tools last, kill_server at the very end; start_server would start a server behind the relay's path.
      const last = ["kill_pane", "kill_window", "kill_session", "kill_server"]
      const order = allTools.map((tool) => tool.name).filter((name) => name !== "start_server" && !last.includes(name))
      for (const name of [...order, ...last]) {
        for (const args of calls[name] ?? []) {
          if ((await runTool(layer, name, args)).isError !== true) answered.push(name)
        }
      }
      expect(answered.length).toBeGreaterThan(40)
      expect(relay.relayed()).toBeGreaterThan(40)
      // The streams tmux opens for every command client (stdout, stderr, stdin for a payload) are
      // descriptors, never a path.
      expect(relay.requests.length).toBeGreaterThan(sweep)
      expect(relay.requests.slice(sweep).filter((request) => request.fd === -1 || request.path !== "-")).toEqual([])
    },
    120_000
  )
})
