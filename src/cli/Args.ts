/**
 * Command-line parsing: `effect-tmux-mcp [serve|doctor] [flags]`, `--help`, `--version`.
 */
import * as Result from "effect/Result"
import type { ConfigFlags } from "../context/TmuxMcpConfig.js"

export type CliCommand = "serve" | "doctor" | "help" | "version"

export interface ParsedArgs {
  readonly command: CliCommand
  readonly flags: ConfigFlags
}

/** Flags that take a value, and the ConfigFlags field each fills. */
const VALUE_FLAGS: Record<string, keyof ConfigFlags> = {
  "--socket-name": "socketName",
  "--socket-path": "socketPath",
  "--tmux": "tmuxBin",
  "--tmux-config": "tmuxConfigFile",
  "--safety": "safety",
  "--tools": "tools",
  "--transport": "transport",
  "--wait-max": "waitMaxSeconds",
  "--hosts": "hosts"
}

/** Boolean flags: bare means on; `--flag=0` turns them off. */
const SWITCH_FLAGS: Record<string, keyof ConfigFlags> = {
  "--allow-server-start": "allowServerStart",
  "--suppress-history": "suppressHistory"
}

export const USAGE = `Usage: effect-tmux-mcp [serve | doctor] [options]

  serve (default)   Run the MCP server on stdin/stdout.
  doctor            Report the tmux binary, the socket the tools will use and why, whether a
                    server runs there, the caller pane, the safety level, the transport, the wait
                    ceiling, how a server can be started, the tool set and the tools.
                    Exits 1 when tmux is missing or the configuration is invalid.

Options (each overrides the environment variable in brackets):
  --socket-name NAME        tmux socket name, like tmux -L   [LIBTMUX_SOCKET]
  --socket-path PATH        tmux socket path, like tmux -S   [LIBTMUX_SOCKET_PATH]
  --tmux PATH               tmux binary (default: tmux)      [LIBTMUX_TMUX_BIN]
  --tmux-config FILE        config file for servers we start, like tmux -f  [LIBTMUX_TMUX_CONFIG]
  --safety LEVEL            readonly | mutating | destructive (default: mutating)  [LIBTMUX_SAFETY]
  --tools LIST              tools to enable: names and groups (context, read, terminal, layout,
                            buffers, environment, options, lifecycle), -name leaves one out;
                            within the safety level (default: all of it)  [LIBTMUX_MCP_TOOLS]
  --transport KIND          socket (tmux's client protocol, no process per call) | exec
                            (one tmux process per call) (default: socket)  [LIBTMUX_MCP_TRANSPORT]
  --allow-server-start[=0|1]  default for tools that may start a server (default 0)  [LIBTMUX_ALLOW_SERVER_START]
  --suppress-history[=0|1]  keep typed commands out of shell history (default 1)  [LIBTMUX_SUPPRESS_HISTORY]
  --hosts FILE              a JSON file of remote hosts reached over OpenSSH (docs/remote-hosts.md);
                            tools then take host: <name>  [LIBTMUX_MCP_HOSTS]
  --wait-max SECONDS        ceiling for blocking waits, 1..120 (default 30)  [LIBTMUX_MCP_WAIT_MAX_SECONDS]
  -h, --help                Show this help.
  -V, --version             Print the version.
`

export const parseArgs = (argv: ReadonlyArray<string>): Result.Result<ParsedArgs, string> => {
  let command: CliCommand | undefined
  const flags: Record<string, string> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "-h" || arg === "--help") return Result.succeed({ command: "help", flags: {} })
    if (arg === "-V" || arg === "--version") return Result.succeed({ command: "version", flags: {} })
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=")
      const name = eq === -1 ? arg : arg.slice(0, eq)
      const inline = eq === -1 ? undefined : arg.slice(eq + 1)
      const valueField = VALUE_FLAGS[name]
      const switchField = SWITCH_FLAGS[name]
      if (valueField !== undefined) {
        const value = inline ?? argv[++i]
        if (value === undefined || (inline === undefined && value.startsWith("--"))) {
          return Result.fail(`${name} needs a value.`)
        }
        flags[valueField] = value
      } else if (switchField !== undefined) {
        flags[switchField] = inline ?? "1"
      } else {
        return Result.fail(`Unknown option ${name}.`)
      }
      continue
    }
    if (command === undefined && (arg === "serve" || arg === "doctor")) {
      command = arg
      continue
    }
    return Result.fail(`Unexpected argument ${JSON.stringify(arg)}.`)
  }
  return Result.succeed({ command: command ?? "serve", flags: flags as ConfigFlags })
}
