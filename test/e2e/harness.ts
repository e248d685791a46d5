/**
 * End-to-end harness: the BUILT server (`node dist/main.js`) over stdio, driven by the SDK `Client`
 * exactly as an MCP client would drive it. Every world has its own TMUX_TMPDIR and socket name, and
 * `-f /dev/null`; `TMUX` / `TMUX_PANE` reach the server only when a test sets them. `dispose` kills
 * every tmux server in the world and removes its directory.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { endTmuxServers } from "../support/ServerTeardown.js"

export const ROOT = fileURLToPath(new URL("../../", import.meta.url))
export const MAIN = join(ROOT, "dist", "main.js")
export const ERROR_META_KEY = "effect-tmux-mcp/error"
export const PACKAGE_VERSION: string = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version

const UID = process.getuid?.() ?? 0
let counter = 0

const assertBuilt = () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first (npm test does).`)
}

export interface TmuxResult {
  readonly status: number
  readonly stdout: string
  readonly stderr: string
}

/** Variables for the spawned server; `undefined` removes a variable from the base environment. */
export type EnvOverrides = Readonly<Record<string, string | undefined>>

export interface World {
  readonly dir: string
  /** The default socket name of this world (LIBTMUX_SOCKET of every server spawned in it). */
  readonly socketName: string
  /** Where tmux puts a socket of this world's directory. */
  readonly socketPathOf: (name: string) => string
  readonly socketPath: string
  /** The base environment of servers and CLI runs in this world. */
  readonly env: Readonly<Record<string, string>>
  /** Runs the real tmux CLI on a socket of this world (default: the world's socket). */
  readonly tmux: (args: ReadonlyArray<string>, socketName?: string) => TmuxResult
  /** Starts a tmux server with one session on a socket of this world and returns who it is. */
  readonly startTmux: (socketName?: string) => { readonly pid: number; readonly paneId: string; readonly socketPath: string }
  /** Socket files in this world's socket directory. */
  readonly socketFiles: () => Array<string>
  readonly dispose: () => void
}

export const makeWorld = (): World => {
  // tmux resolves TMUX_TMPDIR through symlinks; so must the paths the tests expect.
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "etm-e2e-")))
  // Unique across workers and files, and never a prefix of another world's name.
  const socketName = `etm-e2e-${process.pid}-${++counter}-${randomBytes(3).toString("hex")}`
  const socketDirectory = join(dir, `tmux-${UID}`)
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    TMUX_TMPDIR: dir,
    TERM: "xterm-256color",
    LANG: "C.UTF-8",
    // Shells in panes we type into would write their history into HOME (this world's directory)
    // as the server kills them, racing the directory's removal.
    HISTFILE: "/dev/null",
    LIBTMUX_SOCKET: socketName,
    LIBTMUX_TMUX_CONFIG: "/dev/null",
    // Without TMUX a server would look for its caller in its ancestors: under a developer's own
    // tmux pane that is their server. Only the tests of that search (caller-tree) turn it on.
    LIBTMUX_MCP_PROCESS_TREE: "0"
  }
  const tmux = (args: ReadonlyArray<string>, name = socketName): TmuxResult => {
    const result = spawnSync("tmux", ["-f", "/dev/null", "-L", name, ...args], { env, encoding: "utf8", timeout: 10_000 })
    return { status: result.status ?? -1, stdout: result.stdout ?? "", stderr: result.stderr ?? "" }
  }
  const socketFiles = () => {
    if (!existsSync(socketDirectory)) return []
    return readdirSync(socketDirectory).filter((name) => lstatSync(join(socketDirectory, name)).isSocket())
  }
  return {
    dir,
    socketName,
    socketPathOf: (name) => join(socketDirectory, name),
    socketPath: join(socketDirectory, socketName),
    env,
    tmux,
    startTmux: (name = socketName) => {
      const created = tmux(["new-session", "-d", "-s", "main", "-x", "80", "-y", "24"], name)
      if (created.status !== 0) throw new Error(`tmux new-session failed: ${created.stderr}`)
      const shown = tmux(["display-message", "-p", "-t", "main", "#{pid} #{pane_id} #{socket_path}"], name)
      const [pid, paneId, ...path] = shown.stdout.trim().split(" ")
      return { pid: Number(pid), paneId: paneId!, socketPath: path.join(" ") }
    },
    socketFiles,
    dispose: () => {
      // Servers of any tmux version (the system's client cannot end a 3.8 server), and their
      // panes' processes, which may write into HOME (this directory) as they exit.
      const left = endTmuxServers([dir])
      if (left.length > 0) throw new Error(`processes of this world's tmux servers did not end: ${left.join(", ")}`)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

const environment = (world: World, overrides: EnvOverrides): Record<string, string> => {
  const env: Record<string, string> = { ...world.env }
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[key]
    else env[key] = value
  }
  return env
}

export interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface Served {
  readonly client: Client
  readonly transport: StdioClientTransport
  /** The server process (the SDK transport keeps it private; the lifecycle tests need it). */
  readonly child: ChildProcess
  readonly pid: number
  /** tools/list as the client saw it at start (listing also arms the client's outputSchema validation). */
  readonly tools: ReadonlyArray<McpTool>
  /** Everything the server wrote to stderr so far. */
  readonly stderr: () => string
  /** What the server wrote to stdout after the initialize handshake (protocol only, one JSON-RPC message per line). */
  readonly stdout: () => string
  /** Errors the client's protocol layer reported (e.g. a non-JSON line on stdout). */
  readonly protocolErrors: Array<Error>
  readonly exited: Promise<Exit>
  readonly call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>
  /**
   * The audit records so far, once there is one for every call answered through `call`: stderr and
   * stdout are separate pipes, so an audit line can arrive after the response it belongs to.
   */
  readonly audit: () => Promise<Array<Record<string, any>>>
  readonly close: () => Promise<void>
}

/** Spawns `node dist/main.js` in the world, connects the SDK client and lists the tools. */
export const serve = async (
  world: World,
  options: { readonly env?: EnvOverrides; readonly args?: ReadonlyArray<string> } = {}
): Promise<Served> => {
  assertBuilt()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, ...(options.args ?? [])],
    env: environment(world, options.env ?? {}),
    cwd: world.dir,
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  const client = new Client({ name: "effect-tmux-mcp-e2e", version: "0.0.0" })
  const protocolErrors: Array<Error> = []
  client.onerror = (error) => protocolErrors.push(error)
  await client.connect(transport)
  const child = (transport as unknown as { _process?: ChildProcess })._process
  if (child === undefined || child.pid === undefined) throw new Error("the SDK transport did not expose the server process")
  let stdout = ""
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8")
  })
  const exited = new Promise<Exit>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode })
    else child.once("exit", (code, signal) => resolve({ code, signal }))
  })
  const { tools } = await client.listTools()
  let answered = 0
  const audit = async () => {
    for (let waited = 0; auditLines(stderr).length < answered && waited < 5_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return auditLines(stderr)
  }
  return {
    client,
    transport,
    child,
    pid: child.pid,
    tools,
    stderr: () => stderr,
    stdout: () => stdout,
    protocolErrors,
    exited,
    call: async (name, args = {}) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult
      answered++
      return result
    },
    audit,
    close: () => client.close()
  }
}

export interface ErrorMeta {
  readonly code: string
  readonly hint: string
  readonly retryable: boolean
  readonly effects: string
  /** The result's text content. */
  readonly text: string
}

/** The structured result of a successful call; throws with the error text otherwise. */
export const ok = <T = Record<string, any>>(result: CallToolResult): T => {
  if (result.isError === true) throw new Error(`tool failed: ${textOf(result)}`)
  return result.structuredContent as T
}

export const textOf = (result: CallToolResult): string => result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n")

/** The `_meta` error entry of a failed call; throws if the call succeeded. */
export const errorOf = (result: CallToolResult): ErrorMeta => {
  if (result.isError !== true) throw new Error(`expected an error, got ${JSON.stringify(result.structuredContent)}`)
  const meta = (result._meta ?? {})[ERROR_META_KEY] as Omit<ErrorMeta, "text"> | undefined
  if (meta === undefined) throw new Error(`error result without _meta["${ERROR_META_KEY}"]: ${textOf(result)}`)
  return { ...meta, text: textOf(result) }
}

/** The audit records on a server's stderr (one JSON line each). */
export const auditLines = (stderr: string): Array<Record<string, any>> =>
  stderr
    .split("\n")
    // The last piece is an unfinished line (or empty).
    .slice(0, -1)
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, any>)
    .filter((record) => record.audit === true)

/** Resolves once `check` holds, polling; rejects after `ms` (a bound for waiting, not a timing assertion). */
export const eventually = async (check: () => boolean, ms: number, what: string): Promise<void> => {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > ms) throw new Error(`${what}: nothing after ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Resolves when the promise does, or rejects after `ms` (a bound for waiting, not a timing assertion). */
/** Polls until `check` gives a value (a bound for waiting on a shell, not a timing assertion). */
export const poll = async <A>(what: string, check: () => Promise<A | undefined> | A | undefined, attempts = 100): Promise<A> => {
  for (let i = 0; i < attempts; i++) {
    const value = await check()
    if (value !== undefined) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no ${what} after ${attempts} attempts`)
}

export const within = <A>(promise: Promise<A>, ms: number, what: string): Promise<A> =>
  new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolve(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      }
    )
  })

/** Whether a process exists and is not a zombie (this container's init does not reap orphans). */
export const isRunning = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // Field 3, after the parenthesised command name, is the state.
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return false
  }
}

/** Live (non-zombie) processes whose parent is `pid`. */
export const childrenOf = (pid: number): Array<{ readonly pid: number; readonly args: string }> => {
  const ps = spawnSync("ps", ["-eo", "pid=,ppid=,stat=,args="], { encoding: "utf8" })
  return ps.stdout
    .split("\n")
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/))
    .filter((m): m is RegExpMatchArray => m !== null && Number(m[2]) === pid && !m[3]!.startsWith("Z"))
    .map((m) => ({ pid: Number(m[1]), args: m[4]! }))
}

/** Live (non-zombie) processes whose command line mentions `marker`, other than `except`. */
export const processesMentioning = (marker: string, except: ReadonlyArray<number> = []): Array<string> => {
  const ps = spawnSync("ps", ["-eo", "pid=,stat=,args="], { encoding: "utf8" })
  return ps.stdout
    .split("\n")
    .map((line) => line.trim().match(/^(\d+)\s+(\S+)\s+(.*)$/))
    .filter(
      (m): m is RegExpMatchArray =>
        m !== null && m[3]!.includes(marker) && !m[2]!.startsWith("Z") && !except.includes(Number(m[1])) && Number(m[1]) !== process.pid
    )
    .map((m) => `${m[1]} ${m[3]}`)
}

export interface CliRun {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the built CLI to completion (not MCP mode), with stdin closed at once. */
export const runCli = (world: World, args: ReadonlyArray<string>, env: EnvOverrides = {}): Promise<CliRun> => {
  assertBuilt()
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env: environment(world, env), cwd: world.dir, timeout: 20_000 })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    child.on("error", reject)
    child.on("close", (status) => resolve({ status, stdout, stderr }))
    child.stdin.end()
  })
}

/**
 * A process's children's pids now, from every thread's children list in /proc, zombies included:
 * cheap enough to sample every few milliseconds (childrenOf runs ps and drops zombies).
 */
export const childPids = (pid: number): Array<number> => {
  const found: Array<number> = []
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim()
      if (text !== "") found.push(...text.split(" ").map(Number))
    }
  } catch {
    // A thread that ended between the listing and the read.
  }
  return found
}
