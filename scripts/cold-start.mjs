// Cold start of the stdio server: process spawn to the first tools/list answer, in milliseconds.
// Usage: node scripts/cold-start.mjs [runs=15] [entry=dist/main.js] [cache=warm|none] [era=2025|2026]
// Next to it, bare node (`node -e ""`, spawn to exit) in the same run: the ratio is the server's
// start over the runtime's own, comparable across machines and Node versions.
// Each run gets its own socket name, TMUX_TMPDIR and HOME, and no tmux config; no tmux server runs.
// cache=warm (the default): every run shares one XDG_CACHE_HOME, where the uncounted first run
// leaves the launcher's V8 code cache (it stays up long enough to write one), as a user's second
// and later starts find it. cache=none: no run finds a cache, as on a first start.
// era=2025 (the default): the SDK's v1 client, initialize then tools/list. era=2026: raw lines, the
// first being tools/list with 2026-07-28's _meta envelope (that era has no initialize); a client's
// own work (the v2 client's server/discover probe) is left out, so this is the server's start.
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { spawn, spawnSync } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"

const runs = Number(process.argv[2] ?? 15)
const entry = process.argv[3] ?? "dist/main.js"
const cache = process.argv[4] ?? "warm"
const era = process.argv[5] ?? "2025"
if (cache !== "warm" && cache !== "none") throw new Error(`cache must be warm or none, not ${cache}`)
if (era !== "2025" && era !== "2026") throw new Error(`era must be 2025 or 2026, not ${era}`)
const cacheHome = cache === "warm" ? await mkdtemp(join(tmpdir(), "etm-cold-cache-")) : undefined

const serverEnv = (index, dir) => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  LIBTMUX_SOCKET: `cold-${process.pid}-${index}`,
  TMUX_TMPDIR: dir,
  HOME: dir,
  LIBTMUX_TMUX_CONFIG: "/dev/null",
  ...(cacheHome === undefined ? {} : { XDG_CACHE_HOME: cacheHome })
})

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "cold-start", version: "0" }
}

/** 2026-07-28: spawn, one tools/list line, until its answer. */
const onceModern = async (index, { linger = 0 } = {}) => {
  const dir = await mkdtemp(join(tmpdir(), "etm-cold-"))
  const start = performance.now()
  const child = spawn(process.execPath, [entry], { env: serverEnv(index, dir), stdio: ["pipe", "pipe", "inherit"] })
  const exited = new Promise((resolve) => child.once("exit", resolve))
  try {
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: ENVELOPE } })}\n`)
    const answered = await new Promise((resolve, reject) => {
      let text = ""
      child.stdout.on("data", (chunk) => {
        text += chunk
        const end = text.indexOf("\n")
        if (end < 0) return
        const answer = JSON.parse(text.slice(0, end))
        if (!Array.isArray(answer.result?.tools) || answer.result.tools.length === 0) {
          reject(new Error(`tools/list answered ${text.slice(0, 200)}`))
        } else resolve(performance.now())
      })
      child.once("exit", () => reject(new Error("the server exited before answering")))
    })
    await new Promise((resolve) => setTimeout(resolve, linger))
    return { answered: answered - start, resolved: answered - start }
  } finally {
    child.stdin.end()
    await exited
    await rm(dir, { recursive: true, force: true })
  }
}

const once = async (index, { linger = 0 } = {}) => {
  if (era === "2026") return onceModern(index, { linger })
  const dir = await mkdtemp(join(tmpdir(), "etm-cold-"))
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry],
    env: serverEnv(index, dir),
    stderr: "inherit"
  })
  const client = new Client({ name: "cold-start", version: "0" })
  const start = performance.now()
  try {
    // connect() spawns the process and runs initialize. The clock stops when the tools/list answer
    // arrives, not when listTools() resolves: the client then compiles a validator for every output
    // schema, which is the client's cost, not the server's.
    await client.connect(transport)
    let answered
    const deliver = transport.onmessage
    transport.onmessage = (message, extra) => {
      if (answered === undefined && Array.isArray(message.result?.tools)) answered = performance.now()
      deliver?.(message, extra)
    }
    const { tools } = await client.listTools()
    if (tools.length === 0) throw new Error("tools/list answered with no tools")
    // The launcher writes its cache as a run that lasted ends (short runs would leave a poor one).
    await new Promise((resolve) => setTimeout(resolve, linger))
    return { answered: answered - start, resolved: performance.now() - start }
  } finally {
    await client.close()
    await rm(dir, { recursive: true, force: true })
  }
}

const bareNode = () => {
  const start = performance.now()
  const exited = spawnSync(process.execPath, ["-e", ""], { stdio: "ignore" })
  if (exited.status !== 0) throw new Error(`node -e "" exited ${exited.status}`)
  return performance.now() - start
}

const results = []
const bare = []
await once(-1, { linger: cache === "warm" ? 1500 : 0 }) // warm the file cache (and the code cache); not counted
bareNode() // likewise
// Taking turns, so neither side alone meets a busier machine.
for (let i = 0; i < runs; i++) {
  results.push(await once(i))
  bare.push(bareNode())
}

const medianOf = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length / 2
  return sorted.length % 2 === 1 ? sorted[Math.floor(middle)] : (sorted[middle - 1] + sorted[middle]) / 2
}
const summary = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  const ms = (value) => `${value.toFixed(0)} ms`
  return `min ${ms(sorted[0])}, median ${ms(medianOf(values))}, max ${ms(sorted[sorted.length - 1])}`
}
if (cacheHome !== undefined) await rm(cacheHome, { recursive: true, force: true })
process.stdout.write(
  `cold start of ${entry}, ${runs} runs, code cache ${cache}, MCP era ${era}\n` +
    `  spawn -> tools/list answer:   ${summary(results.map((r) => r.answered))}\n` +
    `  spawn -> listTools() resolved: ${summary(results.map((r) => r.resolved))} (adds the client's validator compiling)\n` +
    `  bare node (node -e "", spawn -> exit): ${summary(bare)}\n` +
    `  ratio, tools/list answer / bare node (medians): ${(medianOf(results.map((r) => r.answered)) / medianOf(bare)).toFixed(2)}x\n`
)
