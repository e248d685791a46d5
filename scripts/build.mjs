// Builds dist/: the CLI bundled into one CommonJS file, dist/server.cjs (a bundled Effect starts in a
// fraction of the time of an unbundled one), the launcher dist/main.js (scripts/launcher.mjs), and
// the V8 code cache the launcher compiles the bundle with. `node scripts/cold-start.mjs` measures the
// result: process spawn to the first tools/list answer.
import { spawn } from "node:child_process"
import { chmod, copyFile, mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { build } from "esbuild"

// The SDK's Server imports its Ajv validator (Ajv, ajv-formats, fast-uri: ~135 KB, a fifth of the
// bundle) only to build a default for form elicitation, which this server never asks for.
// src/mcp/McpServer.ts gives the Server its own validator, so the bundle gets a stub in Ajv's place;
// the stub throws if it is ever constructed, so losing that validator fails at once, not quietly.
const withoutAjv = {
  name: "without-ajv",
  setup(build) {
    build.onResolve({ filter: /\/validation\/ajv-provider\.js$/ }, (args) =>
      args.importer.includes("@modelcontextprotocol/sdk") ? { path: "ajv-provider", namespace: "without-ajv" } : undefined
    )
    build.onLoad({ filter: /.*/, namespace: "without-ajv" }, () => ({
      contents:
        "export class AjvJsonSchemaValidator { constructor() { throw new Error('Ajv is not bundled: pass jsonSchemaValidator to the SDK Server') } }",
      loader: "js"
    }))
  }
}

await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/server.cjs",
  bundle: true,
  platform: "node",
  // CommonJS, because the launcher compiles it as a script (vm.Script takes a code cache; an ES
  // module cannot, on Node 20); CommonJS dependencies can then require() Node built-ins as is.
  format: "cjs",
  target: "node20",
  minify: true,
  sourcemap: "linked",
  legalComments: "none",
  plugins: [withoutAjv],
  logLevel: "warning"
})

await copyFile("scripts/launcher.mjs", "dist/main.js")
// The bin entry must be executable when installed from a clone.
await chmod("dist/main.js", 0o755)

// Earlier builds' caches (named by their bundle's hash) and the map of the former one-file bundle.
for (const name of await readdir("dist")) {
  if (/^server\.\w+\.cache/.test(name) || name === "main.js.map") await rm(join("dist", name), { force: true })
}

// The training run: one start that answers initialize and tools/list, then sees EOF. The launcher
// writes the code cache as it exits. Its own directories and socket name: no tmux server is touched.
const train = async () => {
  const dir = await mkdtemp(join(tmpdir(), "etm-build-"))
  try {
    const child = spawn(process.execPath, ["dist/main.js"], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: dir,
        TMUX_TMPDIR: dir,
        LIBTMUX_SOCKET: `etm-build-${process.pid}`,
        LIBTMUX_TMUX_CONFIG: "/dev/null",
        EFFECT_TMUX_MCP_WRITE_CODE_CACHE: "1"
      },
      stdio: ["pipe", "pipe", "inherit"]
    })
    child.stdin.on("error", () => {}) // a crashed run shows in its exit code, below
    const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`)
    let buffered = ""
    child.stdout.on("data", (chunk) => {
      buffered += chunk
      for (let end; (end = buffered.indexOf("\n")) >= 0; buffered = buffered.slice(end + 1)) {
        const { id } = JSON.parse(buffered.slice(0, end))
        if (id === 1) {
          send({ method: "notifications/initialized" })
          send({ id: 2, method: "tools/list" })
        }
        if (id === 2) child.stdin.end()
      }
    })
    send({
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "build", version: "0" } }
    })
    const timer = setTimeout(() => child.kill(), 20_000)
    const code = await new Promise((resolve) => child.on("exit", resolve))
    clearTimeout(timer)
    return code
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
const code = await train()
if (code !== 0 || !(await readdir("dist")).some((name) => name.endsWith(".cache"))) {
  // The server works without the cache, only starts slower.
  console.warn(`build: no code cache (the training run exited with ${code}); dist/main.js starts without one`)
}
