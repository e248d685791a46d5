/** The package version, reported by `--version`, `doctor` and the MCP `serverInfo` (a test keeps it equal to package.json). */
export const VERSION = "0.2.0"

/** The name this server announces to MCP clients. */
export const SERVER_NAME = "effect-tmux-mcp"
