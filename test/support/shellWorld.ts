/**
 * A private world whose pane %0 runs a shell at its prompt, with a run_command shortcut, and the
 * places run_command keeps its state (logs, handles), for the command tests.
 */
import type * as Layer from "effect/Layer"
import { existsSync, readdirSync, realpathSync } from "node:fs"
import { join } from "node:path"
import type { TmuxMcpConfig } from "../../src/context/TmuxMcpConfig.js"
import type { Tmux } from "../../src/tmux/Tmux.js"
import { waitFor } from "./liveTmux.js"
import type { PrivateTmux } from "./PrivateTmux.js"
import { okResult, runTool } from "./runTool.js"

export const BASH = "HISTFILE=/dev/null bash --norc --noprofile"

/** A session "run" in `w` whose pane %0 runs `shell`, waited for until its prompt shows (the product over `tmuxLayer`, if given). */
export const shellWorld = async (w: PrivateTmux, shell = BASH, tmuxLayer?: Layer.Layer<Tmux, never, TmuxMcpConfig>) => {
  w.tmuxOk("new-session", "-d", "-s", "run", "-x", "120", "-y", "30", shell)
  const program = shell.split(" ").find((word) => !word.includes("="))!
  await waitFor("the program to start", () => w.tmuxOk("display-message", "-p", "-t", "%0", "#{pane_current_command}").trim() === program)
  if (program !== "sleep") await waitFor("the shell's prompt", () => w.tmuxOk("capture-pane", "-p", "-t", "%0").trim() !== "")
  const layer = w.layer({}, tmuxLayer)
  const run = async (command: string, args: Record<string, unknown> = {}) =>
    okResult(await runTool(layer, "run_command", { pane_id: "%0", command, timeout: 10, ...args }))
  return { w, layer, run }
}

/**
 * Where the world's run logs live: next to its server's sockets, in its TMUX_TMPDIR; in remote
 * mode on the host, in the remote world's TMUX_TMPDIR (resolved, as the host's discovery does).
 */
export const logDirectoryOf = (w: PrivateTmux) =>
  join(w.remote === undefined ? w.tmpdir : realpathSync(w.remote.sshd.remote.tmpdir), `effect-tmux-mcp-${process.getuid?.() ?? 0}`)
const logsIn = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((name) => name.includes(".log")) : [])
export const logsOf = (w: PrivateTmux) => logsIn(logDirectoryOf(w))
/** The product's own run log directory on this machine (its TMUX_TMPDIR): logDirectoryOf without a remote host. */
export const localLogDirectoryOf = (w: PrivateTmux): string => join(w.productDir, `effect-tmux-mcp-${process.getuid?.() ?? 0}`)
export const localLogsOf = (w: PrivateTmux) => logsIn(localLogDirectoryOf(w))

/** The fields of a handle (its payload is base64url JSON after the `cmd1.` prefix). */
export const handleFields = (handle: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(handle.slice("cmd1.".length), "base64url").toString("utf8"))
/** The run id inside a handle (the name of its log). */
export const idOf = (handle: string): string => handleFields(handle).id as string
/** A handle with some fields changed (and its signature, if any, left as it was). */
export const tamperedHandle = (handle: string, changes: Record<string, unknown>): string =>
  "cmd1." + Buffer.from(JSON.stringify({ ...handleFields(handle), ...changes })).toString("base64url")

/** A pane's variable, e.g. `pane_pipe`. */
export const paneValue = (w: PrivateTmux, pane: string, variable: string) =>
  w.tmuxOk("display-message", "-p", "-t", pane, `#{${variable}}`).trim()
