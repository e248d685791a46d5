/**
 * `effect-tmux-mcp doctor`: a human-readable report of what the server would do if started now.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { InvocationContext } from "../context/InvocationContext.js"
import { resolveSocket } from "../context/SocketResolver.js"
import { TmuxMcpConfig, type Transport } from "../context/TmuxMcpConfig.js"
import { hint } from "../domain/Errors.js"
import { VERSION } from "../domain/Version.js"
import { serverInfo } from "../operations/servers/Servers.js"
import { Connections } from "../tmux/Connections.js"
import { Tmux } from "../tmux/Tmux.js"
import { checkTmuxBinary } from "../tmux/TmuxBinary.js"
import type { AnyTool, ToolServices } from "../tools/Tool.js"
import { enabledTools, toolSelectionError } from "../tools/ToolSets.js"
import { hostsReport } from "./DoctorHosts.js"
import { reportLine as line } from "./internal/ReportLine.js"

export interface DoctorReport {
  readonly text: string
  /** False when tmux is missing: the server could not do anything useful. */
  readonly healthy: boolean
}

/** The only tools that start a tmux server. */
const SERVER_STARTERS = "start_server, or create_session with allow_server_start=true"

const TRANSPORT_TEXT: Record<Transport, string> = {
  socket: "socket (tmux's client protocol over the server's socket, no process per call)",
  exec: "exec (a tmux process per call)"
}

export const doctor = (
  tools: ReadonlyArray<AnyTool>
): Effect.Effect<DoctorReport, never, ToolServices> =>
  Effect.gen(function*() {
    const config = yield* TmuxMcpConfig
    const context = yield* InvocationContext
    const socket = yield* Effect.orDie(resolveSocket())
    const lines = [`effect-tmux-mcp ${VERSION} doctor`]

    const binary = yield* checkTmuxBinary(config.tmuxBin, config.tmuxEnvironment)
    const version = binary._tag === "Found" ? Option.some(binary.version) : Option.none<string>()
    lines.push(line("tmux", binary._tag === "Found" ? `${config.tmuxBin} (${binary.version})` : binary.problem))
    lines.push(line("socket", socket.label))
    lines.push(line("chosen by", socket.rule))
    if (Option.isSome(version)) {
      const info = yield* serverInfo(socket).pipe(Effect.result)
      lines.push(
        line(
          "server",
          Result.isFailure(info)
            ? `could not be asked: ${info.failure.message} ${hint(info.failure)}`
            : info.success.is_alive
            ? `running (pid ${info.success.pid}, tmux ${info.success.version}, ${info.success.session_count} sessions, ${info.success.pane_count} panes)`
            : `not running (${SERVER_STARTERS}, starts one; no other tool does)`
        )
      )
    }
    lines.push(
      line(
        "caller",
        Option.match(context.caller, {
          onNone: () => context.uncertain ? "uncertain: $TMUX_PANE is set but $TMUX is missing or unreadable" : "not inside tmux (no self)",
          onSome: (c) => `inside tmux, pane ${c.paneId ?? "(unknown)"} on ${c.socketPath} (server pid ${c.serverPid})`
        })
      )
    )
    lines.push(line("safety", config.safety))
    lines.push(line("transport", TRANSPORT_TEXT[config.transport]))
    // After the server was asked, so a server that does not speak the socket protocol is known by
    // now; said only where it is not the configured transport.
    const transportFor = (yield* Tmux).transportFor
    const used = transportFor === undefined ? undefined : yield* transportFor(socket)
    if (used !== undefined && used.transport !== config.transport) {
      lines.push(line("served by", used.fallback === null ? used.transport : `${used.transport}: ${used.fallback}`))
    }
    lines.push(line("waits", `at most ${config.waitMaxSeconds} s (LIBTMUX_MCP_WAIT_MAX_SECONDS)`))
    lines.push(
      line(
        "server start",
        config.allowServerStart
          ? "start_server, or create_session (allow_server_start on by default: LIBTMUX_ALLOW_SERVER_START=1)"
          : `${SERVER_STARTERS} (off by default: LIBTMUX_ALLOW_SERVER_START=0)`
      )
    )
    const selection = config.toolSelection
    lines.push(
      line(
        "tool set",
        selection === undefined
          ? "every tool of the safety level (LIBTMUX_MCP_TOOLS unset)"
          : `${selection.source}=${selection.terms.join(",")}${
            toolSelectionError(tools, config) === undefined ? "" : ` INVALID: ${toolSelectionError(tools, config)}`
          }`
      )
    )
    const enabled = enabledTools(tools, config)
    lines.push(line("tools", `${enabled.length} of ${tools.length} enabled: ${enabled.map((t) => t.name).join(", ")}`))
    // Only with a hosts file; an unreachable host is a warning, not an unhealthy server.
    lines.push(...yield* hostsReport(config, yield* Effect.serviceOption(Connections)))
    return { text: lines.join("\n"), healthy: Option.isSome(version) }
  })
