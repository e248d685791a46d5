// One list_panes tools/call over stdio through the built server, next to one raw `tmux list-panes`
// invocation, on a private tmux server. Prints medians of N runs (default 100). Usage:
//   npm run build && node bench/stdio-vs-cli.mjs [runs] [panes]
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const runs = Number(process.argv[2] ?? 100)
const paneCount = Number(process.argv[3] ?? 10)
const dir = mkdtempSync(join(tmpdir(), "etm-bench-"))
const socket = `etm-bench-${process.pid}`
const env = { PATH: process.env.PATH, HOME: dir, TMUX_TMPDIR: dir, LANG: "C.UTF-8" }
const tmux = (...args) => {
  const r = spawnSync("tmux", ["-f", "/dev/null", "-L", socket, ...args], { env, encoding: "utf8" })
  if (r.status !== 0) throw new Error(r.stderr)
  return r.stdout
}
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)] }

try {
  tmux("new-session", "-d", "-s", "bench", "-x", "200", "-y", "50", "sleep 100000")
  for (let i = 1; i < paneCount; i++) tmux("new-window", "-t", "bench", "sleep 100000")
  const client = new Client({ name: "bench", version: "0" })
  const started = performance.now()
  await client.connect(new StdioClientTransport({
    command: process.execPath, args: ["dist/main.js"], stderr: "ignore",
    env: { ...env, LIBTMUX_SOCKET: socket, LIBTMUX_TMUX_CONFIG: "/dev/null" }
  }))
  await client.listTools()
  const coldStart = performance.now() - started

  const format = "#{pane_id}\t#{pane_width}\t#{pane_height}\t#{pane_current_command}\t#{pane_current_path}\t#{pane_active}"
  const raw = [], call = []
  for (let i = 0; i < 10; i++) { tmux("list-panes", "-a", "-F", format); await client.callTool({ name: "list_panes", arguments: { limit: 1000 } }) }
  for (let i = 0; i < runs; i++) {
    // Alternate the order so neither side always runs on a warmer machine.
    const measureRaw = () => { const t = performance.now(); tmux("list-panes", "-a", "-F", format); raw.push(performance.now() - t) }
    const measureCall = async () => {
      const t = performance.now()
      const r = await client.callTool({ name: "list_panes", arguments: { limit: 1000 } })
      call.push(performance.now() - t)
      if (r.isError || r.structuredContent.total !== paneCount) throw new Error(JSON.stringify(r).slice(0, 300))
    }
    if (i % 2 === 0) { measureRaw(); await measureCall() } else { await measureCall(); measureRaw() }
  }
  await client.close()
  const result = {
    panes: paneCount, runs,
    raw_cli_median_ms: +median(raw).toFixed(2),
    list_panes_stdio_median_ms: +median(call).toFixed(2),
    ratio: +(median(call) / median(raw)).toFixed(2),
    cold_start_to_tools_list_ms: +coldStart.toFixed(0)
  }
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
} finally {
  spawnSync("tmux", ["-L", socket, "kill-server"], { env })
  rmSync(dir, { recursive: true, force: true })
}
