/**
 * The CLI entry and the only place that composes live layers.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { parseArgs, USAGE } from "./cli/Args.js"
import { doctor } from "./cli/Doctor.js"
import { loadConfig, TmuxMcpConfig, type TmuxMcpConfigShape } from "./context/TmuxMcpConfig.js"
import { InvocationContext } from "./context/InvocationContext.js"
import { SocketResolver } from "./context/SocketResolver.js"
import { VERSION } from "./domain/Version.js"
import { serveStdio } from "./mcp/McpServer.js"
import { Audit } from "./services/Audit.js"
import { Ownership } from "./services/Ownership.js"
import { Policy } from "./services/Policy.js"
import { TmuxLive } from "./tmux/TmuxLive.js"
import { allTools } from "./tools/registry.js"

const liveLayer = (config: TmuxMcpConfigShape) =>
  Layer.mergeAll(Ownership.layer, SocketResolver.layer, InvocationContext.layer, Policy.layer, Audit.layer).pipe(
    Layer.provideMerge(TmuxLive.layer),
    Layer.provideMerge(TmuxMcpConfig.layer(config))
  )

const fail = (message: string, exitCode: number): never => {
  process.stderr.write(`effect-tmux-mcp: ${message}\n`)
  process.exit(exitCode)
}

const main = async () => {
  const args = parseArgs(process.argv.slice(2))
  if (Either.isLeft(args)) return fail(`${args.left} Run with --help for usage.`, 2)
  const { command, flags } = args.right
  if (command === "help") return void process.stdout.write(USAGE) // stdout-ok: not in MCP mode
  if (command === "version") return void process.stdout.write(`${VERSION}\n`) // stdout-ok: not in MCP mode

  const config = loadConfig({ env: process.env, flags, uid: process.getuid?.() ?? 0 })
  if (Either.isLeft(config)) return fail(config.left.message, 1)

  if (command === "doctor") {
    const report = await Effect.runPromise(
      doctor(allTools).pipe(Effect.provide(liveLayer(config.right)))
    )
    process.stdout.write(`${report.text}\n`) // stdout-ok: not in MCP mode
    process.exit(report.healthy ? 0 : 1)
  }
  await serveStdio(liveLayer(config.right), allTools)
}

main().catch((error: unknown) => fail(`fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`, 1))
