/**
 * Helpers for integration tests on real tmux: worlds disposed after each test, fake callers,
 * real attached clients (in a pseudo-terminal) and control-mode clients, and process checks.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { afterAll, afterEach } from "vitest"
import { makePrivateTmux, type PrivateTmux, stopRemoteWorld } from "./PrivateTmux.js"
import { testHost } from "./testHost.js"

/**
 * Registers an afterEach that runs the cleanups (newest first) and disposes every world made in
 * the test. Returns `world()` to make a world and `defer(fn)` to add a cleanup. With a test host
 * (remote mode), the file's remote world (its sshd) is stopped after the file.
 */
export const useWorlds = () => {
  if (testHost !== undefined) afterAll(stopRemoteWorld)
  const cleanups: Array<() => void> = []
  afterEach(() => {
    const errors: Array<unknown> = []
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        cleanup()
      } catch (error) {
        errors.push(error)
      }
    }
    if (errors.length > 0) throw errors[0]
  })
  const defer = (cleanup: () => void) => {
    cleanups.push(cleanup)
  }
  const world = (): PrivateTmux => {
    const created = makePrivateTmux()
    defer(() => created.dispose())
    return created
  }
  return { world, defer }
}

/**
 * Polls until `check` returns a value that is not undefined/false; fails after `timeoutMs`. The
 * default is a bound for a loaded machine (six projects' shells and servers on two cores took a
 * pane's program past 5 s), not a timing assertion; it stays under the 30 s test timeout.
 */
export const waitFor = async <A>(what: string, check: () => A | undefined | false, timeoutMs = 20_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The server's own view of itself: socket path and pid, as tmux writes them into $TMUX. */
export const serverIdentity = (world: PrivateTmux) => {
  const [socketPath = "", pid = "", startTime = ""] = world
    .tmuxOk("display-message", "-p", "#{socket_path}\t#{pid}\t#{start_time}")
    .trimEnd()
    .split("\t")
  return { socketPath, pid: Number(pid), startTime: Number(startTime) }
}

/** The environment a process inside `paneId` of this world's server would have. */
export const callerEnv = (world: PrivateTmux, paneId: string, pid = serverIdentity(world).pid) => ({
  TMUX: `${serverIdentity(world).socketPath},${pid},0`,
  TMUX_PANE: paneId
})

/** Every socket file below `dir` (recursively). */
export const socketFilesBelow = (dir: string): Array<string> => {
  if (!existsSync(dir)) return []
  const found: Array<string> = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) found.push(...socketFilesBelow(path))
    else if (entry.isSocket()) found.push(path)
  }
  return found
}

/** Whether a process exists and is not a zombie. */
export const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  const stat = spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).stdout.trim()
  return stat !== "" && !stat.startsWith("Z")
}

/**
 * How many clients are connected to the server's socket now (/proc/net/unix: the server's end of
 * each accepted connection carries the socket's path, state 03), the listening socket left out.
 * Over the socket transport a call in flight is such a connection, not a process.
 */
export const connectionsTo = (socketPath: string): number =>
  readFileSync("/proc/net/unix", "utf8")
    .split("\n")
    .filter((line) => line.endsWith(` ${socketPath}`) && line.split(/\s+/)[5] === "03").length

export const readPid = (path: string): number | undefined => {
  if (!existsSync(path)) return undefined
  const text = readFileSync(path, "utf8").trim()
  return text === "" ? undefined : Number(text)
}

export interface Client {
  /** The client's pid as tmux reports it in #{client_pid}. */
  readonly pid: number
  readonly close: () => void
}

const listClients = (world: PrivateTmux) =>
  world
    .tmux("list-clients", "-F", "#{client_pid}\t#{client_flags}")
    .stdout.split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [pid = "", flags = ""] = line.split("\t")
      return { pid: Number(pid), control: flags.split(",").includes("control-mode") }
    })

const startClient = async (world: PrivateTmux, spawnClient: () => ChildProcess, control: boolean): Promise<Client> => {
  const before = new Set(listClients(world).map((c) => c.pid))
  const child = spawnClient()
  const killWrapper = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  }
  try {
    const client = await waitFor(
      `a ${control ? "control-mode" : "terminal"} client`,
      () => listClients(world).find((c) => c.control === control && !before.has(c.pid))
    )
    return {
      pid: client.pid,
      close: () => {
        killWrapper()
        // The tmux client under `script` is ours too; it would also leave on the pty's hangup.
        if (client.pid !== child.pid && processAlive(client.pid)) process.kill(client.pid, "SIGKILL")
      }
    }
  } catch (error) {
    killWrapper()
    throw error
  }
}

/**
 * A person's client: `tmux attach` inside a pseudo-terminal made by util-linux `script`, stdin
 * kept open by a pipe. Resolves once the server lists the client.
 */
export const attachTerminalClient = (
  world: PrivateTmux,
  session: string,
  size?: { readonly columns: number; readonly rows: number }
): Promise<Client> => {
  const resize = size === undefined ? "" : `stty cols ${size.columns} rows ${size.rows}; `
  const attach = `${resize}tmux -f /dev/null -L ${world.socketName} attach -t ${session}`
  const spawnClient = () => spawn("script", ["-qfc", attach, "/dev/null"], { env: world.env, stdio: ["pipe", "ignore", "ignore"] })
  return startClient(world, spawnClient, false)
}

/** A control-mode client (`tmux -C attach`) over pipes, as programs use. */
export const attachControlClient = (world: PrivateTmux, session: string): Promise<Client> => {
  const spawnClient = () =>
    spawn("tmux", ["-f", "/dev/null", "-L", world.socketName, "-C", "attach", "-t", session], {
      env: world.env,
      stdio: ["pipe", "ignore", "ignore"]
    })
  return startClient(world, spawnClient, true)
}

/**
 * A session "rec" whose pane %0 copies every byte its program receives into a file (raw mode, no
 * echo; `bracketed` first turns bracketed paste on, as shells do). Resolves once raw mode is on.
 */
export const rawRecorder = async (world: PrivateTmux, options: { readonly bracketed?: boolean } = {}) => {
  const file = join(world.tmpdir, "received")
  const ready = join(world.tmpdir, "ready")
  const mode = options.bracketed === true ? "printf '\\033[?2004h' && " : ""
  world.tmuxOk("new-session", "-d", "-s", "rec", "-x", "200", "-y", "50", `stty raw -echo && ${mode}touch ${ready} && exec cat > ${file}`)
  await waitFor("the recorder to switch to raw mode", () => existsSync(ready))
  const read = () => (existsSync(file) ? readFileSync(file, "utf8") : "")
  return { read, received: (bytes: string) => waitFor(`${bytes.length} bytes`, () => read().length >= bytes.length && read()) }
}

/** The paste buffers on the server, by name (all of them: tests look for leftovers of ours). */
export const bufferNames = (world: PrivateTmux): Array<string> =>
  world
    .tmuxOk("list-buffers", "-F", "#{buffer_name}")
    .split("\n")
    .filter((name) => name !== "")
    .sort()

/** Whether `path` is a socket file right now. */
export const isSocket = (path: string): boolean => {
  try {
    return statSync(path).isSocket()
  } catch {
    return false
  }
}
