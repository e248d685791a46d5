/**
 * The server instructions: at most 2048 bytes (what clients such as Claude Code keep), and the
 * context segment is never dropped. Inside tmux it names the caller pane and the socket the tools
 * will actually query; outside tmux it says plainly that there is no "self".
 */
import * as Option from "effect/Option"
import type { InvocationContextShape } from "../context/InvocationContext.js"
import type { ResolvedSocket } from "../context/SocketResolver.js"
import type { TmuxMcpConfigShape } from "../context/TmuxMcpConfig.js"

export const INSTRUCTIONS_MAX_BYTES = 2048

const bytes = (text: string) => Buffer.byteLength(text, "utf8")

/** Long socket paths must not push the context segment over the budget. */
const shorten = (text: string, max = 160) => (text.length <= max ? text : `…${text.slice(text.length - max + 1)}`)

export const contextSegment = (context: InvocationContextShape, effective: ResolvedSocket): string =>
  Option.match(context.caller, {
    onNone: () =>
      "Context: this MCP is NOT running inside tmux: there is no 'self'. is_caller is null on every pane. " +
      "Call where_am_i / list_servers first; ask the user which session to target rather than guessing. " +
      `Tools default to socket ${shorten(effective.label)} (${effective.rule}).`,
    onSome: (c) => {
      const pane = c.paneId ?? "(unknown pane: $TMUX_PANE is unset)"
      const same = context.isCallerSocket(effective)
      return (
        `Context: this MCP runs inside tmux pane ${pane} on socket ${shorten(c.socketPath)}. ` +
        (same
          ? "Tools query that same server by default; is_caller=true marks your own pane. "
          : `Tools query a DIFFERENT server by default: ${shorten(effective.label)} (${effective.rule}); your own pane is not there. `) +
        "Call where_am_i for live ids."
      )
    }
  })

const OPTIONAL_SEGMENTS: ReadonlyArray<string> = [
  "Use for tmux: servers, sessions ($N, from list_sessions), windows (@N, list_windows), panes (%N, list_panes or where_am_i), their content and processes. Target by id; ids are only valid on the server that issued them.",
  // What every tool shares is said here once, not in each tool's schema.
  "Every tool that targets a server takes socket_name (-L) or socket_path (-S, from list_servers), not both; default: LIBTMUX_SOCKET, else the caller's socket, else tmux's default. generation (from create_session, get_server_info, where_am_i) makes a call fail with not_found if the server restarted since. List tools page with offset and limit (1-1000, default 100; total and truncated say what is left) and return a compact set of fields per item: fields takes names or \"all\". list_sessions/windows/panes take where {field: value}: the items where all hold, before paging (text fields match substrings, or regexes with regex: true; others equal).",
  "Tools that type into or clear a pane refuse your own pane (some also one a person watches) unless force: true.",
  "Errors carry a Hint line and _meta code: no_server means no tmux server runs on that socket (not an empty server) - follow the hint, do not loop on list tools.",
  "list_* tools return metadata pages; read text with capture_pane.",
  "To run a shell command and get its exit status and output use run_command (not send_keys + polling; match finds lines in all its output); type and wait for the answer in one call with send_keys' wait; wait with wait_for_text (settle_ms for a TUI), read only new output with capture_since.",
  "Nothing starts a tmux server except start_server and create_session(allow_server_start=true)."
]

export const buildInstructions = (
  config: Pick<TmuxMcpConfigShape, "safety" | "suppressHistory">,
  context: InvocationContextShape,
  effective: ResolvedSocket
): string => {
  const required = [
    contextSegment(context, effective),
    `Safety level: ${config.safety}; tools above it are hidden.`
  ]
  const parts = [...required]
  for (const segment of OPTIONAL_SEGMENTS) {
    if (bytes([...parts, segment].join("\n")) <= INSTRUCTIONS_MAX_BYTES) parts.push(segment)
  }
  // The required segments stay far below the budget: socket paths in them are shortened.
  return parts.join("\n")
}
