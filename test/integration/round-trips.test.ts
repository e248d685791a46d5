/**
 * Round trips per tool call, on real tmux. Every tool is called with valid arguments over a
 * `RecordingTmux` layer, and the test pins exactly how many tmux invocations the call made and which
 * commands each one held. A read must cost one invocation whatever the size of the tree, so every
 * read variant runs in a one-pane world and in a world of 3 sessions x 10 windows with split panes.
 * An extra round trip, a lost one or a new tool without a pinned count fails here.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { spawnSync } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generationOf } from "../../src/domain/Model.js"
import { callTool } from "../../src/mcp/CallTool.js"
import { CONTEXT_ROWS, cursorOf, encodeCursor } from "../../src/operations/watching/PaneCursor.js"
import { paneViewCommands, parsePaneView } from "../../src/operations/watching/Snapshot.js"
import { RecordingTmux, TmuxRecorder } from "../../src/testing/RecordingTmux.js"
import * as Format from "../../src/tmux/Format.js"
import { allTools } from "../../src/tools/registry.js"
import { propertySignatures } from "../../src/tools/Tool.js"
import { callerEnv, serverIdentity, useWorlds } from "../support/liveTmux.js"
import { defaultTmuxLayer, makePrivateTmux, type PrivateTmux, servicesLayer } from "../support/PrivateTmux.js"
import { errorMeta, okResult, toolNamed } from "../support/runTool.js"

const { world, defer } = useWorlds()

/**
 * The live transport under the recorder: the suite's own (ETM_TEST_TRANSPORT). The counts are `run`
 * calls, so they must be the same on every transport.
 */
const innerTmuxLayer = defaultTmuxLayer

type Names = ReadonlyArray<ReadonlyArray<string>>

/** The ids a call is made with, found in the world it runs in. */
interface Targets {
  readonly session_id: string
  readonly session_name: string
  readonly window_id: string
  readonly pane_id: string
  /** The pane a caller (an MCP server inside tmux) runs in, for the variants that default to it. */
  readonly caller_pane: string
}

interface Case {
  readonly tool: string
  readonly variant: string
  readonly args: (targets: Targets, w: PrivateTmux) => Record<string, unknown>
  /** The command names of each invocation, in order. */
  readonly names: Names
  /** startServer per invocation; default all false. */
  readonly startServer?: ReadonlyArray<boolean>
  /** Run as if this MCP server ran inside tmux, in `targets.caller_pane`. */
  readonly caller?: boolean
  /** The call fails with this error code (its round trips are pinned all the same). */
  readonly error?: string
}

const label = (w: PrivateTmux) => `${w.socketName} (${w.socketPath})`

const lines = (text: string) => text.split("\n").filter((line) => line !== "")

/** One tool call over a recording layer: the result and every invocation it made. */
const measure = (w: PrivateTmux, name: string, args: Record<string, unknown>, env?: Record<string, string>) =>
  Effect.runPromise(
    Effect.gen(function*() {
      const result = yield* callTool(toolNamed(name), args)
      const invocations = yield* (yield* TmuxRecorder).invocations
      return { result, invocations }
    }).pipe(
      Effect.provide(
        servicesLayer<TmuxRecorder>(
          w.config({ ...(env === undefined ? {} : { env }), flags: { safety: "destructive" } }),
          RecordingTmux.layer(innerTmuxLayer)
        )
      )
    )
  )

/** Calls the case's tool once and checks every recorded invocation against the pinned ones. */
const check = async (w: PrivateTmux, targets: Targets, c: Case): Promise<void> => {
  const env = c.caller === true ? callerEnv(w, targets.caller_pane) : undefined
  const { result, invocations } = await measure(w, c.tool, c.args(targets, w), env)
  if (c.error === undefined) okResult(result)
  else expect(errorMeta(result).code).toBe(c.error)
  const names = invocations.map((invocation) => invocation.commands)
  expect(names).toEqual(c.names)
  expect(invocations.map((invocation) => invocation.startServer)).toEqual(c.startServer ?? c.names.map(() => false))
  expect([...new Set(invocations.map((invocation) => invocation.socket))]).toEqual(invocations.length === 0 ? [] : [label(w)])
}

const title = (c: Case) => `${c.tool} (${c.variant}): ${c.names.length} x ${JSON.stringify(c.names)}`

// The read-back lists the operations share.
/**
 * The clients, to tell who watches a pane: `if-shell -F '#{S:1}' 'list-clients …'`, which runs the
 * listing only when a session exists (tmux 3.3a fails list-clients on a server without sessions).
 */
const CLIENTS = "if-shell"
/** listSessions: the clients correct the attachment counts. */
const SESSIONS = ["display-message", "list-sessions", CLIENTS]
/** listServers' question to one socket (where_am_i counts the servers with it too). */
const SERVER = ["display-message", "list-sessions"]
/** The server identity, then `list-windows -a` / `list-panes -a` behind the same if-shell as the clients. */
const ALL_WINDOWS = ["display-message", "if-shell"]
const ALL_PANES = ["display-message", "if-shell", CLIENTS]
const PANES = ["display-message", "list-panes", CLIENTS]
const PROBE = ["display-message"]
/** One pane (get_pane_info, run_command's lookup): `list-panes -t %N` filtered to it, the server's identity in the same format, then the clients (no guard: the pane's session exists). */
const ONE_PANE = ["list-panes", "list-clients"]
/** One pane with its placements (get_pane_info): ONE_PANE, then the links of linked windows. */
const PANE_DETAIL = [...ONE_PANE, "list-windows"]
/** A pane looked up (`list-panes -t %N`) in the same invocation as what is read about it. */
const PANE_LOOKUP = "list-panes"
/** A pane's state record and its rows (snapshot_pane, capture_since, each look of wait_for_text). */
const PANE_VIEW = ["display-message", "capture-pane"]

/** A capture_since cursor at the pane's cursor now, taken with the tmux CLI. */
const cursorNow = (w: PrivateTmux, paneId: string): string => {
  const marks = Format.newMarks()
  const raw = tmuxList(w, paneViewCommands(paneId, -CONTEXT_ROWS, false, marks))
  // A cursor of this machine (no host).
  return encodeCursor(cursorOf(Result.getOrThrow(parsePaneView(raw, marks, -CONTEXT_ROWS))), {})
}

/** A cursor taken before the pane's shell printed "round-trip" (the typed command line does not hold it). */
const cursorBeforeOutput = (w: PrivateTmux, paneId: string): string => {
  const cursor = cursorNow(w, paneId)
  w.tmuxOk("send-keys", "-t", paneId, "printf 'round''-trip\\n'", "Enter")
  const deadline = Date.now() + 10_000
  while (!w.tmuxOk("capture-pane", "-p", "-t", paneId).includes("\nround-trip\n")) {
    if (Date.now() > deadline) throw new Error(`${paneId} did not print round-trip`)
  }
  return cursor
}
/** search_panes' capture of a one-pane page. */
const SEARCH_PAGE = ["display-message", "capture-pane"]

/** The buffer `etm.rt` loaded with the tmux CLI, for the buffer tools' cases; returns their arguments. */
const withBuffer = (w: PrivateTmux, args: Record<string, unknown>) => {
  w.tmuxOk("set-buffer", "-b", "etm.rt", "x")
  return args
}

/**
 * Every read variant, each one invocation (but see TWO_INVOCATION_READS): where_am_i asks each socket once (the effective
 * socket's answer and the caller's pane come from that same invocation), and the defaults to the
 * caller's own pane and session names are looked up in the command list that reads.
 */
const READS: ReadonlyArray<Case> = [
  { tool: "where_am_i", variant: "outside tmux", args: () => ({}), names: [SERVER] },
  { tool: "where_am_i", variant: "inside tmux", args: () => ({}), caller: true, names: [[...SERVER, "display-message"]] },
  { tool: "list_servers", variant: "one server", args: () => ({}), names: [SERVER] },
  { tool: "get_server_info", variant: "live server", args: () => ({}), names: [ALL_PANES.slice(0, 2)] },
  // Each operation is its own call, its own invocation: the batch adds none and folds none (docs/tools.md).
  {
    tool: "run_batch",
    variant: "list_panes then capture_pane",
    args: (t) => ({
      operations: [{ tool: "list_panes", arguments: { window_id: t.window_id } }, {
        tool: "capture_pane",
        arguments: { pane_id: t.pane_id }
      }]
    }),
    names: [PANES, ["capture-pane"]]
  },
  { tool: "list_sessions", variant: "all", args: () => ({}), names: [SESSIONS] },
  { tool: "list_sessions", variant: "where", args: () => ({ where: { session_name: "m", regex: true } }), names: [SESSIONS] },
  { tool: "get_session_info", variant: "session_id", args: (t) => ({ session_id: t.session_id }), names: [SESSIONS] },
  { tool: "get_session_info", variant: "session_name", args: (t) => ({ session_name: t.session_name }), names: [SESSIONS] },
  { tool: "get_session_info", variant: "caller's session", args: () => ({}), caller: true, names: [[PANE_LOOKUP, ...SESSIONS]] },
  { tool: "list_windows", variant: "server", args: () => ({}), names: [ALL_WINDOWS] },
  { tool: "list_windows", variant: "where", args: () => ({ where: { layout: "x", active: true } }), names: [ALL_WINDOWS] },
  {
    tool: "list_windows",
    variant: "session_id",
    args: (t) => ({ session_id: t.session_id }),
    names: [["display-message", "list-windows"]]
  },
  { tool: "get_window_info", variant: "window_id", args: (t) => ({ window_id: t.window_id }), names: [["list-windows"]] },
  { tool: "get_window_info", variant: "caller's window", args: () => ({}), caller: true, names: [[PANE_LOOKUP, "list-windows"]] },
  { tool: "list_panes", variant: "server", args: () => ({}), names: [ALL_PANES] },
  { tool: "list_panes", variant: "session_id", args: (t) => ({ session_id: t.session_id }), names: [PANES] },
  { tool: "list_panes", variant: "window_id", args: (t) => ({ window_id: t.window_id }), names: [PANES] },
  // Filtered in this process: the filter's fields are read in the same listing.
  { tool: "list_panes", variant: "where", args: () => ({ where: { command: "sh", cwd: "/" } }), names: [ALL_PANES] },
  // The pane's window and its layout, in one command list.
  {
    tool: "list_panes",
    variant: "where right_of",
    args: (t) => ({ where: { right_of: t.pane_id } }),
    names: [[...PANES.slice(0, 2), "display-message", CLIENTS]]
  },
  // The placements' window links (of linked windows only) in the listing's own invocation, only when asked.
  {
    tool: "list_panes",
    variant: "placements",
    args: () => ({ fields: ["placements", "placements_complete"] }),
    names: [[...ALL_PANES, "if-shell"]]
  },
  {
    tool: "list_panes",
    variant: "window_id placements",
    args: (t) => ({ window_id: t.window_id, fields: "all" }),
    names: [[...PANES, "if-shell"]]
  },
  // Every field of a pane: its placements' window links (of linked windows only) in the lookup's invocation.
  { tool: "get_pane_info", variant: "pane_id", args: (t) => ({ pane_id: t.pane_id }), names: [PANE_DETAIL] },
  { tool: "get_pane_info", variant: "caller's pane", args: () => ({}), caller: true, names: [PANE_DETAIL] },
  // Variables are read in the lookup's own invocation, after the pane (only when asked).
  {
    tool: "get_pane_info",
    variant: "variables",
    args: (t) => ({ pane_id: t.pane_id, variables: ["pane_tty", "session_path"] }),
    names: [[...PANE_DETAIL, "display-message"]]
  },
  { tool: "capture_pane", variant: "screen", args: (t) => ({ pane_id: t.pane_id }), names: [["capture-pane"]] },
  {
    tool: "capture_pane",
    variant: "history, joined",
    args: (t) => ({ pane_id: t.pane_id, start: "-", end: -1, join_wrapped: true, max_lines: 10 }),
    names: [["capture-pane"]]
  },
  // The pane's state record and its rows, in one command list.
  { tool: "snapshot_pane", variant: "pane_id", args: (t) => ({ pane_id: t.pane_id }), names: [PANE_VIEW] },
  { tool: "capture_since", variant: "no cursor", args: (t) => ({ pane_id: t.pane_id }), names: [PANE_VIEW] },
  {
    tool: "capture_since",
    variant: "cursor",
    args: (t, w) => ({ pane_id: t.pane_id, cursor: cursorNow(w, t.pane_id) }),
    names: [PANE_VIEW]
  },
  {
    // A wait's cost depends on time; this variant is deterministic: the text was printed after
    // `since`, before the call, so the first look finds it.
    tool: "wait_for_text",
    variant: "since a cursor, found at the first look",
    args: (t, w) => ({ pane_id: t.pane_id, patterns: ["round-trip"], since: cursorBeforeOutput(w, t.pane_id), timeout: 5 }),
    names: [PANE_VIEW]
  },
  // Only this server's buffers (etm.*) are listed or read; show-buffer runs as a process of its own.
  { tool: "list_buffers", variant: "all", args: () => ({}), names: [["list-buffers"]] },
  { tool: "show_buffer", variant: "a buffer", args: (_, w) => withBuffer(w, { name: "rt" }), names: [["show-buffer"]] },
  {
    tool: "show_buffer",
    variant: "no such buffer",
    args: () => ({ name: "rt-missing" }),
    names: [["show-buffer"]],
    error: "invalid_input"
  },
  { tool: "show_environment", variant: "global", args: () => ({ global: true }), names: [["show-environment"]] },
  { tool: "show_environment", variant: "session_id", args: (t) => ({ session_id: t.session_id }), names: [["show-environment"]] },
  {
    tool: "show_environment",
    variant: "session_id, one name",
    args: (t) => ({ session_id: t.session_id, name: "ETM_UNSET" }),
    names: [["show-environment"]]
  },
  {
    tool: "show_environment",
    variant: "session_name",
    args: (t) => ({ session_name: t.session_name }),
    // `list-windows -t =name` names the session; a display-message marks where the environment text begins.
    names: [["list-windows", "display-message", "show-environment"]]
  },
  {
    tool: "show_environment",
    variant: "session_name, one name",
    args: (t) => ({ session_name: t.session_name, name: "ETM_UNSET" }),
    names: [["list-windows", "display-message", "show-environment"]]
  },
  {
    tool: "show_environment",
    variant: "caller's session",
    args: () => ({}),
    caller: true,
    names: [[PANE_LOOKUP, "display-message", "show-environment"]]
  },
  // The names (and inherited marks) first, then one list reading each value of the page with `show-options -v`.
  {
    tool: "show_options",
    variant: "window, one name",
    args: (t) => ({ scope: "window", target: t.window_id, name: "mode-keys" }),
    names: [["show-options"], ["display-message", "show-options"]]
  },
  {
    tool: "show_options",
    variant: "pane, one name",
    args: (t) => ({ scope: "pane", target: t.pane_id, name: "remain-on-exit" }),
    // The window's own options tell an inherited value's source: the window or the global options.
    names: [["show-options", "display-message", "show-options"], ["display-message", "show-options"]]
  },
  {
    tool: "show_options",
    variant: "global, one name",
    args: () => ({ scope: "session", global: true, name: "mouse" }),
    names: [["show-options"], ["display-message", "show-options"]]
  },
  {
    tool: "show_options",
    variant: "caller's session, one name",
    args: () => ({ name: "history-limit" }),
    caller: true,
    names: [["show-options"], ["display-message", "show-options"]]
  },
  // The listing, then one list capturing the page: a header record and the capture per pane.
  { tool: "search_panes", variant: "server", args: () => ({ patterns: ["x"], max_panes: 1 }), names: [ALL_PANES, SEARCH_PAGE] },
  {
    tool: "search_panes",
    variant: "session_id",
    args: (t) => ({ patterns: ["x"], session_id: t.session_id, max_panes: 1 }),
    names: [PANES, SEARCH_PAGE]
  },
  {
    tool: "search_panes",
    variant: "window_id, regex",
    args: (t) => ({ patterns: ["^x", "y$"], regex: true, window_id: t.window_id, max_panes: 1 }),
    names: [PANES, SEARCH_PAGE]
  }
]

/**
 * Reads that cost two invocations whatever the size of the tree, because the second one's targets
 * come from the first: search_panes lists the panes in scope, then captures one page of them.
 */
const TWO_INVOCATION_READS: ReadonlySet<string> = new Set(["run_batch", "search_panes", "show_options"])

const generationIn = (w: PrivateTmux) => {
  const { pid, startTime } = serverIdentity(w)
  return generationOf({ pid, start_time: startTime })
}

const targetsOf = (w: PrivateTmux, target: string, callerPane: string): Targets => {
  const [session_id = "", session_name = "", window_id = "", pane_id = ""] = w
    .tmuxOk("display-message", "-p", "-t", target, "#{session_id}\t#{session_name}\t#{window_id}\t#{pane_id}")
    .trimEnd()
    .split("\t")
  return { session_id, session_name, window_id, pane_id, caller_pane: callerPane }
}

/** Runs `commands` as one tmux command list (`;`-joined), to build a world quickly. */
const tmuxList = (w: PrivateTmux, commands: ReadonlyArray<ReadonlyArray<string>>) =>
  w.tmuxOk(...commands.flatMap((command, index) => (index === 0 ? [...command] : [";", ...command])))

/** One session, one window, one pane. */
const smallWorld = (w: PrivateTmux): Targets => {
  w.tmuxOk("new-session", "-d", "-s", "s0", "-n", "main", "-x", "80", "-y", "24")
  return targetsOf(w, "s0:main", "%0")
}

/** 3 sessions x 10 windows; every third window split in two, every fifth in three. */
const bigWorld = (w: PrivateTmux): Targets => {
  const commands: Array<Array<string>> = []
  for (let s = 0; s < 3; s++) {
    commands.push(["new-session", "-d", "-s", `s${s}`, "-n", "w0", "-x", "120", "-y", "40"])
    for (let i = 1; i < 10; i++) {
      commands.push(["new-window", "-d", "-t", `s${s}:${i}`, "-n", `w${i}`])
      if (i % 3 === 0) commands.push(["split-window", "-d", "-t", `s${s}:w${i}`])
      if (i % 5 === 0) commands.push(["split-window", "-d", "-t", `s${s}:w${i}`], ["split-window", "-d", "-t", `s${s}:w${i}`])
    }
  }
  tmuxList(w, commands)
  expect(lines(w.tmuxOk("list-sessions", "-F", "#{session_id}"))).toHaveLength(3)
  expect(lines(w.tmuxOk("list-windows", "-a", "-F", "#{window_id}"))).toHaveLength(30)
  expect(lines(w.tmuxOk("list-panes", "-a", "-F", "#{pane_id}"))).toHaveLength(30 + 3 * 3 + 3 * 2)
  const callerPane = w.tmuxOk("display-message", "-p", "-t", "s1:w5.1", "#{pane_id}").trim()
  return targetsOf(w, "s2:w6", callerPane)
}

describe.each(
  [
    ["a one-pane world", smallWorld],
    ["3 sessions x 10 windows with split panes", bigWorld]
  ] as const
)("read tools in %s", (_, build) => {
  let w: PrivateTmux
  let targets: Targets
  beforeAll(() => {
    w = makePrivateTmux()
    targets = build(w)
  })
  afterAll(() => w.dispose())

  it.each(READS.map((c) => [title(c), c] as const))("%s", async (_, c) => {
    await check(w, targets, c)
  })
})

/** For worlds without objects (no server, or no sessions): no case there names one. */
const NO_TARGETS: Targets = { session_id: "$0", session_name: "s0", window_id: "@0", pane_id: "%0", caller_pane: "%0" }

describe("read tools on a server with no sessions, or none at all", () => {
  /**
   * tmux 3.3a answers `list-windows -a`, `list-panes -a` and `list-clients` with "no current target"
   * on a server without sessions; the server-wide reads use commands that answer there too, so an
   * empty server costs the same single invocation.
   */
  const EMPTY: ReadonlyArray<Case> = [
    { tool: "where_am_i", variant: "empty server", args: () => ({}), names: [SERVER] },
    {
      tool: "where_am_i",
      variant: "empty server, the caller's pane gone",
      args: () => ({}),
      caller: true,
      names: [[...SERVER, "display-message"]]
    },
    { tool: "list_servers", variant: "empty server", args: () => ({}), names: [SERVER] },
    { tool: "get_server_info", variant: "empty server", args: () => ({}), names: [ALL_PANES.slice(0, 2)] },
    { tool: "list_sessions", variant: "empty server", args: () => ({}), names: [SESSIONS] },
    { tool: "list_windows", variant: "empty server", args: () => ({}), names: [ALL_WINDOWS] },
    { tool: "list_panes", variant: "empty server", args: () => ({}), names: [ALL_PANES] },
    // No pane to capture: the listing is the only invocation.
    { tool: "search_panes", variant: "empty server", args: () => ({ patterns: ["x"] }), names: [ALL_PANES] },
    { tool: "show_environment", variant: "empty server, global", args: () => ({ global: true }), names: [["show-environment"]] }
  ]
  const DEAD: ReadonlyArray<Case> = [
    // The effective socket is asked even without a socket file, so the answer is "no server".
    { tool: "where_am_i", variant: "no server", args: () => ({}), names: [SERVER] },
    // No socket file: list_servers has nothing to ask.
    { tool: "list_servers", variant: "no server", args: () => ({}), names: [] },
    { tool: "get_server_info", variant: "no server", args: () => ({}), names: [ALL_PANES.slice(0, 2)] },
    { tool: "list_sessions", variant: "no server", args: () => ({}), names: [SESSIONS], error: "no_server" },
    { tool: "list_windows", variant: "no server", args: () => ({}), names: [ALL_WINDOWS], error: "no_server" },
    { tool: "list_panes", variant: "no server", args: () => ({}), names: [ALL_PANES], error: "no_server" },
    { tool: "show_environment", variant: "no server", args: () => ({ global: true }), names: [["show-environment"]], error: "no_server" },
    { tool: "show_options", variant: "no server", args: () => ({ scope: "server" }), names: [["show-options"]], error: "no_server" }
  ]

  it("every read costs exactly one invocation on an empty server, and at most one on a dead socket", () => {
    expect(EMPTY.filter((c) => c.names.length !== 1)).toEqual([])
    expect(DEAD.filter((c) => c.names.length > 1)).toEqual([])
  })

  it.each(EMPTY.map((c) => [title(c), c] as const))("%s", async (_, c) => {
    const w = world()
    w.tmuxOk("start-server", ";", "set-option", "-g", "exit-empty", "off")
    await check(w, NO_TARGETS, c)
  })

  it.each(DEAD.map((c) => [title(c), c] as const))("%s", async (_, c) => {
    await check(world(), NO_TARGETS, c)
  })

  /** A second server in the world's socket directory, with one session. */
  const otherServer = (w: PrivateTmux) => {
    const other = `${w.socketName}-other`
    const otherTmux = (...args: Array<string>) =>
      spawnSync("tmux", ["-f", "/dev/null", "-L", other, ...args], { env: w.env, encoding: "utf8", timeout: 10_000 })
    expect(otherTmux("new-session", "-d", "-s", "x").status).toBe(0)
    defer(() => otherTmux("kill-server"))
    return { other, otherTmux }
  }

  it("list_servers: one invocation per live server (each server is its own round trip)", async () => {
    const w = world()
    smallWorld(w)
    const { other } = otherServer(w)
    const { result, invocations } = await measure(w, "list_servers", {})
    expect(okResult(result).total).toBe(2)
    expect(invocations.map((invocation) => invocation.commands)).toEqual([SERVER, SERVER])
    expect(invocations.map((invocation) => invocation.socket).sort()).toEqual(
      [label(w), `${other} (${w.socketPath.replace(/[^/]+$/, other)})`].sort()
    )
  })

  it("where_am_i: one invocation per live server, the caller's pane looked up in its own server's", async () => {
    const w = world()
    smallWorld(w)
    const { other, otherTmux } = otherServer(w)
    const [socketPath = "", pid = ""] = otherTmux("display-message", "-p", "-t", "x", "#{socket_path}\t#{pid}").stdout.trim().split("\t")
    // The tools query this world's server; the caller runs in the other one, in the same directory.
    const { result, invocations } = await measure(w, "where_am_i", {}, { TMUX: `${socketPath},${pid},0`, TMUX_PANE: "%0" })
    expect(okResult(result)).toMatchObject({
      caller_status: "live",
      pane_id: "%0",
      session_id: "$0",
      targets_caller_server: false,
      server_running: true,
      live_server_count: 2
    })
    const bySocket = Object.fromEntries(invocations.map((invocation) => [invocation.socket, invocation.commands]))
    expect(invocations).toHaveLength(2)
    expect(bySocket).toEqual({ [label(w)]: SERVER, [`${other} (${socketPath})`]: [...SERVER, "display-message"] })
  })
})

/**
 * A live server with session s0 ($0): window @0 "main" (%0, and %1 split below it, active), window
 * @1 "w1" (%2); session s1 ($1): window @2 (%3). The caller, where a case needs one, runs in %0.
 */
const baseWorld = (w: PrivateTmux): Targets => {
  tmuxList(w, [
    ["new-session", "-d", "-s", "s0", "-n", "main", "-x", "80", "-y", "24"],
    ["split-window", "-t", "s0:main"],
    ["new-window", "-d", "-t", "s0:", "-n", "w1"],
    ["new-session", "-d", "-s", "s1", "-n", "other", "-x", "80", "-y", "24"]
  ])
  expect(lines(w.tmuxOk("list-panes", "-a", "-F", "#{pane_id}"))).toEqual(["%0", "%1", "%2", "%3"])
  return targetsOf(w, "s0:main.0", "%0")
}

type World = "base" | "none"

interface MutatingCase extends Case {
  readonly world: World
  /**
   * The tool takes `generation`: a variant with it is pinned too. The check is a probe of its own
   * before the operation's invocations.
   */
  readonly generation?: boolean
}

const SPAWN_READ_BACK = ["display-message", CLIENTS, "list-windows"] as const
const spawned = (...commands: ReadonlyArray<string>) => [SPAWN_READ_BACK[0], ...commands, ...SPAWN_READ_BACK.slice(1)]
const TREE_KILL = (kill: string) => ["display-message", "display-message", kill, "display-message"]
const paneChange = (...commands: ReadonlyArray<string>) => ["display-message", ...commands, "list-panes", CLIENTS]

const MUTATIONS: ReadonlyArray<MutatingCase> = [
  {
    tool: "start_server",
    variant: "no server",
    world: "none",
    args: () => ({}),
    names: [PROBE, ["start-server", "set-option", "display-message"]],
    startServer: [false, true]
  },
  { tool: "start_server", variant: "already running", world: "base", args: () => ({}), names: [PROBE] },
  { tool: "kill_server", variant: "outside tmux", world: "base", args: () => ({}), names: [PROBE, ["kill-server"]] },
  {
    tool: "create_session",
    variant: "running server",
    world: "base",
    args: () => ({ session_name: "new" }),
    names: [["new-session", "display-message"]]
  },
  {
    tool: "create_session",
    variant: "owned",
    world: "base",
    args: () => ({ owned: true }),
    names: [["new-session", "set-option", "display-message"]]
  },
  {
    tool: "create_session",
    variant: "allow_server_start, server running",
    world: "base",
    args: () => ({ allow_server_start: true }),
    names: [PROBE, ["new-session", "display-message"]]
  },
  {
    tool: "create_session",
    variant: "allow_server_start, no server",
    world: "none",
    args: () => ({ allow_server_start: true }),
    names: [PROBE, ["new-session", "display-message"]],
    startServer: [false, true]
  },
  {
    // A workspace is built in the new session's own command list: one round trip still.
    tool: "create_session",
    variant: "panes",
    world: "base",
    args: () => ({ panes: [{ direction: "below" }, { direction: "right" }] }),
    names: [[
      "new-session",
      "set-option",
      "split-window",
      "split-window",
      "list-panes",
      "display-message",
      "set-option",
      "if-shell",
      "list-windows",
      "display-message"
    ]]
  },
  {
    tool: "create_window",
    variant: "session_id",
    world: "base",
    generation: true,
    args: (t) => ({ session_id: t.session_id }),
    names: [spawned("new-window")]
  },
  {
    // A detached window is not the list's current one: its splits are a second list, aimed at it,
    // with the read-back after them (the server's identity first), as when they need several lists.
    tool: "create_window",
    variant: "panes",
    world: "base",
    args: (t) => ({ session_id: t.session_id, panes: [{ direction: "right" }] }),
    names: [spawned("new-window"), ["split-window", ...spawned("list-panes", "display-message")]]
  },
  {
    tool: "split_window",
    variant: "in the split pane's directory",
    world: "base",
    generation: true,
    args: (t) => ({ pane_id: t.pane_id }),
    names: [["list-panes"], spawned("split-window")]
  },
  {
    tool: "split_window",
    variant: "start_directory given",
    world: "base",
    args: (t, w) => ({ pane_id: t.pane_id, start_directory: w.tmpdir }),
    names: [spawned("split-window")]
  },
  {
    tool: "respawn_pane",
    variant: "kill",
    world: "base",
    generation: true,
    args: () => ({ pane_id: "%2" }),
    names: [spawned("respawn-pane", "list-panes")]
  },
  {
    tool: "send_keys",
    variant: "text and Enter",
    world: "base",
    generation: true,
    args: () => ({ pane_id: "%3", keys: "echo round-trip" }),
    // The pane's state and the keys in one list: tmux types them only if the pane is alive.
    names: [["list-panes", "if-shell"]]
  },
  {
    tool: "send_keys",
    variant: "one special key",
    world: "base",
    args: () => ({ pane_id: "%3", keys: "C-c" }),
    names: [["list-panes", "if-shell"]]
  },
  {
    tool: "send_keys",
    variant: "20000 bytes of text, in 8192-byte pieces",
    world: "base",
    args: () => ({ pane_id: "%3", keys: "x".repeat(20_000), literal: true, enter: false }),
    names: [["list-panes", "if-shell"], ["send-keys"], ["send-keys"]]
  },
  {
    tool: "send_keys",
    variant: "exit_mode: the state first, to know whether a mode is left",
    world: "base",
    args: () => ({ pane_id: "%3", keys: "x", enter: false, exit_mode: true }),
    names: [["list-panes", "list-clients"], ["list-panes"], ["send-keys"]]
  },
  {
    tool: "send_keys_batch",
    variant: "three operations, no delay",
    world: "base",
    generation: true,
    args: () => ({ pane_id: "%3", operations: [{ keys: "echo a" }, { keys: "C-c" }, { keys: "echo b", enter: false }] }),
    names: [["list-panes"], ["send-keys", "send-keys", "send-keys", "send-keys"]]
  },
  {
    tool: "send_keys_batch",
    variant: "two panes: each looked up, then one invocation",
    world: "base",
    args: () => ({ pane_id: "%3", operations: [{ keys: "a", enter: false }, { pane_id: "%2", keys: "b", enter: false }] }),
    names: [["list-panes"], ["list-panes"], ["send-keys", "send-keys"]]
  },
  {
    tool: "paste_text",
    variant: "text",
    world: "base",
    generation: true,
    args: () => ({ pane_id: "%3", text: "echo 'round trip'" }),
    names: [["list-panes"], ["load-buffer", "paste-buffer"]]
  },
  {
    tool: "paste_text",
    variant: "enter",
    world: "base",
    args: () => ({ pane_id: "%3", text: "true", enter: true }),
    names: [["list-panes"], ["load-buffer", "paste-buffer", "send-keys"]]
  },
  {
    tool: "clear_pane",
    variant: "history",
    world: "base",
    generation: true,
    // The guard reads the pane (is it watched?), then one invocation reads the history size, clears and reads it again.
    args: (t) => ({ pane_id: t.pane_id }),
    names: [ONE_PANE, ["display-message", "clear-history", "display-message"]]
  },
  {
    tool: "clear_pane",
    variant: "screen",
    world: "base",
    args: (t) => ({ pane_id: t.pane_id, screen: true }),
    names: [ONE_PANE, ["display-message", "send-keys", "clear-history", "display-message"]]
  },
  {
    tool: "load_buffer",
    variant: "name",
    world: "base",
    args: () => ({ name: "rt", text: "x" }),
    names: [["list-buffers", "load-buffer"]]
  },
  {
    tool: "paste_buffer",
    variant: "a buffer",
    world: "base",
    generation: true,
    args: (_, w) => withBuffer(w, { name: "rt", pane_id: "%3" }),
    // Bracketed (the default), the text is read, checked for the paste-end sequence and pasted through a private buffer (issue 10 item 9).
    names: [["list-panes"], ["show-buffer"], ["load-buffer", "paste-buffer"]]
  },
  {
    tool: "paste_buffer",
    variant: "a buffer, unbracketed",
    world: "base",
    args: (_, w) => withBuffer(w, { name: "rt", pane_id: "%3", bracketed: false }),
    names: [["list-panes"], ["paste-buffer"]]
  },
  { tool: "delete_buffer", variant: "a buffer", world: "base", args: (_, w) => withBuffer(w, { name: "rt" }), names: [["delete-buffer"]] },
  { tool: "signal_channel", variant: "channel", world: "base", args: () => ({ channel: "rt" }), names: [["wait-for"]] },
  {
    // A wait's cost depends on time; this variant is deterministic: the channel was signalled before
    // the call, so wait-for returns at once. The server is probed before and after the wait.
    tool: "wait_for_channel",
    variant: "signalled before the call",
    world: "base",
    args: (_, w) => (w.tmuxOk("wait-for", "-S", "rt"), { channel: "rt", timeout: 5 }),
    names: [PROBE, ["wait-for"], PROBE]
  },
  {
    tool: "rename_session",
    variant: "session_id",
    world: "base",
    generation: true,
    args: () => ({ session_id: "$1", name: "renamed" }),
    names: [["rename-session", "list-sessions", CLIENTS]]
  },
  {
    tool: "rename_window",
    variant: "window_id",
    world: "base",
    generation: true,
    args: () => ({ window_id: "@1", name: "renamed" }),
    names: [["rename-window", "list-windows"]]
  },
  {
    tool: "select_window",
    variant: "window_id",
    world: "base",
    generation: true,
    args: () => ({ window_id: "@1" }),
    names: [["select-window", "list-windows"]]
  },
  {
    tool: "select_window",
    variant: "next",
    world: "base",
    args: () => ({ session_id: "$0", direction: "next" }),
    names: [["next-window", "list-windows"]]
  },
  {
    tool: "select_pane",
    variant: "pane_id",
    world: "base",
    generation: true,
    args: () => ({ pane_id: "%0" }),
    names: [paneChange("select-pane")]
  },
  {
    tool: "select_pane",
    variant: "up",
    world: "base",
    args: () => ({ window_id: "@0", direction: "up" }),
    names: [paneChange("select-pane")]
  },
  {
    tool: "select_pane",
    variant: "last",
    world: "base",
    args: () => ({ window_id: "@0", direction: "last" }),
    names: [paneChange("last-pane")]
  },
  {
    tool: "select_pane",
    variant: "next",
    world: "base",
    args: () => ({ window_id: "@0", direction: "next" }),
    names: [["list-panes"], paneChange("select-pane")]
  },
  {
    tool: "select_layout",
    variant: "named layout",
    world: "base",
    generation: true,
    args: () => ({ window_id: "@0", layout: "even-horizontal" }),
    names: [["select-layout", "list-windows"]]
  },
  {
    tool: "resize_pane",
    variant: "height",
    world: "base",
    generation: true,
    args: () => ({ pane_id: "%0", height: 5 }),
    names: [["list-panes"], paneChange("resize-pane")]
  },
  {
    tool: "resize_pane",
    variant: "zoom",
    world: "base",
    args: () => ({ pane_id: "%0", zoom: true }),
    names: [["list-panes"], paneChange("resize-pane")]
  },
  {
    tool: "resize_pane",
    variant: "unzoom, not zoomed (no change sent)",
    world: "base",
    args: () => ({ pane_id: "%0", zoom: false }),
    names: [["list-panes"], paneChange()]
  },
  {
    tool: "resize_window",
    variant: "width",
    world: "base",
    generation: true,
    args: () => ({ window_id: "@0", width: 100 }),
    names: [["resize-window", "list-windows"]]
  },
  {
    tool: "swap_pane",
    variant: "two panes",
    world: "base",
    generation: true,
    args: () => ({ source_pane_id: "%0", target_pane_id: "%2" }),
    names: [["display-message", "swap-pane", "list-panes", "list-panes", CLIENTS]]
  },
  {
    tool: "move_window",
    variant: "to another session",
    world: "base",
    generation: true,
    args: () => ({ window_id: "@1", session_id: "$1" }),
    names: [["list-windows", "move-window", "list-windows", "list-windows", "list-sessions"]]
  },
  {
    tool: "set_pane_title",
    variant: "pane_id",
    world: "base",
    generation: true,
    args: () => ({ pane_id: "%0", title: "round trip" }),
    names: [paneChange("select-pane")]
  },
  {
    tool: "set_environment",
    variant: "session_id",
    world: "base",
    generation: true,
    args: () => ({ session_id: "$0", name: "ETM_X", value: "1" }),
    names: [["set-environment"]]
  },
  {
    tool: "set_environment",
    variant: "global",
    world: "base",
    args: () => ({ global: true, name: "ETM_X", value: "1" }),
    names: [["set-environment"]]
  },
  {
    tool: "set_environment",
    variant: "session_name",
    world: "base",
    args: () => ({ session_name: "s0", name: "ETM_X", value: "1" }),
    // Looked up first: with no session of that name, tmux's `-t =name` would take a client's session.
    names: [SESSIONS, ["set-environment"]]
  },
  {
    tool: "unset_environment",
    variant: "session_id",
    world: "base",
    generation: true,
    args: () => ({ session_id: "$0", name: "ETM_X" }),
    names: [["set-environment"]]
  },
  {
    tool: "unset_environment",
    variant: "global, remove",
    world: "base",
    args: () => ({ global: true, name: "ETM_X", remove: true }),
    names: [["set-environment"]]
  },
  {
    tool: "unset_environment",
    variant: "session_name",
    world: "base",
    args: () => ({ session_name: "s0", name: "ETM_X" }),
    names: [SESSIONS, ["set-environment"]]
  },
  // The change runs first in the read-back's listing; then the value is read with `show-options -v`.
  {
    tool: "set_option",
    variant: "window option, window target",
    world: "base",
    generation: true,
    args: () => ({ name: "mode-keys", value: "vi", target: "@0" }),
    names: [["set-option", "show-options"], ["display-message", "show-options"]]
  },
  {
    tool: "set_option",
    variant: "global",
    world: "base",
    args: () => ({ name: "mouse", value: "on", global: true }),
    names: [["set-option", "show-options"], ["display-message", "show-options"]]
  },
  {
    tool: "set_option",
    variant: "unset a pane option",
    world: "base",
    args: () => ({ name: "synchronize-panes", unset: true, target: "%0" }),
    names: [["set-option", "show-options", "display-message", "show-options"], ["display-message", "show-options"]]
  },
  {
    tool: "set_option",
    variant: "refused",
    world: "base",
    args: () => ({ name: "default-command", value: "x", global: true }),
    names: [],
    error: "invalid_input"
  },
  {
    tool: "kill_session",
    variant: "outside tmux",
    world: "base",
    generation: true,
    args: () => ({ session_id: "$1" }),
    names: [TREE_KILL("kill-session")]
  },
  {
    tool: "kill_session",
    variant: "inside tmux (guard reads the session's panes)",
    world: "base",
    caller: true,
    args: () => ({ session_id: "$1" }),
    names: [["list-panes"], TREE_KILL("kill-session")]
  },
  {
    tool: "kill_window",
    variant: "outside tmux",
    world: "base",
    generation: true,
    args: () => ({ window_id: "@1" }),
    names: [TREE_KILL("kill-window")]
  },
  {
    tool: "kill_window",
    variant: "inside tmux (guard reads the window's panes)",
    world: "base",
    caller: true,
    args: () => ({ window_id: "@1" }),
    names: [["list-panes"], TREE_KILL("kill-window")]
  },
  {
    tool: "kill_pane",
    variant: "outside tmux",
    world: "base",
    generation: true,
    args: () => ({ pane_id: "%2" }),
    names: [TREE_KILL("kill-pane")]
  },
  {
    tool: "kill_pane",
    variant: "inside tmux (the guard needs no tmux)",
    world: "base",
    caller: true,
    args: () => ({ pane_id: "%2" }),
    names: [TREE_KILL("kill-pane")]
  },
  {
    // A wait's cost depends on time: the pane is checked once a second. `true` at a ready prompt
    // ends long before the first check: the state (and the command buffers of other runs), the
    // claim and typing in one if-shell (text on stdin), stopping the recording and releasing the claim.
    tool: "run_command",
    variant: "a quick command at a ready prompt",
    world: "base",
    generation: true,
    args: (_, w) => (shellReady(w, "%3"), { pane_id: "%3", command: "true", timeout: 20 }),
    names: [[...ONE_PANE, "display-message", "list-buffers"], ["if-shell"], ["if-shell", "if-shell"]]
  },
  {
    tool: "wait_for_command",
    variant: "a handle it did not issue (nothing sent)",
    world: "base",
    args: () => ({ handle: "cmd1.e30" }),
    names: [],
    error: "invalid_input"
  }
]

/** Blocks until the pane's shell shows its prompt (the round trips of run_command then do not depend on it starting). */
const shellReady = (w: PrivateTmux, paneId: string) => {
  for (let i = 0; i < 200 && w.tmuxOk("capture-pane", "-p", "-t", paneId).trim() === ""; i++) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25)
  }
}

/** Each case with `generation: true`, again with the server's generation passed. */
const withGenerations: ReadonlyArray<MutatingCase> = MUTATIONS.flatMap((c) =>
  c.generation === true
    ? [
      c,
      {
        ...c,
        variant: `${c.variant}, generation`,
        args: (t: Targets, w: PrivateTmux) => ({ ...c.args(t, w), generation: generationIn(w) }),
        names: [PROBE, ...c.names],
        ...(c.startServer === undefined ? {} : { startServer: [false, ...c.startServer] })
      }
    ]
    : [c]
)

describe("mutating and destructive tools", () => {
  it.each(withGenerations.map((c) => [title(c), c] as const))("%s", async (_, c) => {
    const w = world()
    await check(w, c.world === "base" ? baseWorld(w) : NO_TARGETS, c)
  })
})

describe("every tool has pinned round trips", () => {
  const takesGeneration = (name: string) => propertySignatures(toolNamed(name).input.ast).some((property) => property.name === "generation")

  it("each tool in the registry has at least one pinned case, and no case names a tool that is gone", () => {
    const pinned = new Set([...READS, ...MUTATIONS].map((c) => c.tool))
    expect([...pinned].sort()).toEqual(allTools.map((tool) => tool.name).sort())
  })

  it("every read variant costs exactly one invocation (two for TWO_INVOCATION_READS), in both world sizes", () => {
    expect(READS.filter((c) => c.names.length !== (TWO_INVOCATION_READS.has(c.tool) ? 2 : 1)).map(title)).toEqual([])
  })

  it("every read tool is pinned in both world sizes; every other tool with a fresh world per call", () => {
    const reads = allTools.filter((tool) => tool.tier === "readonly").map((tool) => tool.name)
    expect([...new Set(READS.map((c) => c.tool))].sort()).toEqual([...reads].sort())
    expect(MUTATIONS.filter((c) => reads.includes(c.tool))).toEqual([])
  })

  it("every tool that takes generation has a variant with it pinned", () => {
    const withGeneration = allTools.map((tool) => tool.name).filter(takesGeneration)
    expect(withGeneration.length).toBeGreaterThan(10)
    const covered = new Set(withGenerations.filter((c) => c.variant.endsWith(", generation")).map((c) => c.tool))
    expect(withGeneration.filter((name) => !covered.has(name))).toEqual([])
  })
})
