/**
 * FakeTmux's command table and how one command runs: the name looked up as tmux does (name, alias
 * or unique prefix), the argv parsed against the entry's template, its targets resolved (a missing
 * target fails with tmux's text unless the entry may go without), then the handler.
 */
import type { TmuxCommand } from "../../tmux/Tmux.js"
import { parseArguments } from "./Arguments.js"
import { value } from "./Arguments.js"
import { type CommandEntry, failed, type Invocation, type Outcome, type TargetSpec } from "./Command.js"
import { inputCommands } from "./commands/Input.js"
import { lifecycleCommands } from "./commands/Lifecycle.js"
import { readingCommands } from "./commands/Reading.js"
import { serverCommands } from "./commands/Server.js"
import { settingsCommands } from "./commands/Settings.js"
import { shapeCommands } from "./commands/Shape.js"
import { type Found, resolveTarget } from "./Targets.js"

export const COMMANDS: ReadonlyArray<CommandEntry> = [
  ...readingCommands,
  ...lifecycleCommands,
  ...shapeCommands,
  ...inputCommands,
  ...settingsCommands,
  ...serverCommands
]

/** tmux 3.3a's commands (cmd.c's table), so a prefix is ambiguous as in tmux and an unmodelled one is named as such. */
const TMUX_COMMANDS = [
  "attach-session",
  "bind-key",
  "break-pane",
  "capture-pane",
  "choose-buffer",
  "choose-client",
  "choose-tree",
  "clear-history",
  "clear-prompt-history",
  "clock-mode",
  "command-prompt",
  "confirm-before",
  "copy-mode",
  "customize-mode",
  "delete-buffer",
  "detach-client",
  "display-menu",
  "display-message",
  "display-panes",
  "display-popup",
  "find-window",
  "has-session",
  "if-shell",
  "join-pane",
  "kill-pane",
  "kill-server",
  "kill-session",
  "kill-window",
  "last-pane",
  "last-window",
  "link-window",
  "list-buffers",
  "list-clients",
  "list-commands",
  "list-keys",
  "list-panes",
  "list-sessions",
  "list-windows",
  "load-buffer",
  "lock-client",
  "lock-server",
  "lock-session",
  "move-pane",
  "move-window",
  "new-session",
  "new-window",
  "next-layout",
  "next-window",
  "paste-buffer",
  "pipe-pane",
  "previous-layout",
  "previous-window",
  "refresh-client",
  "rename-session",
  "rename-window",
  "resize-pane",
  "resize-window",
  "respawn-pane",
  "respawn-window",
  "rotate-window",
  "run-shell",
  "save-buffer",
  "select-layout",
  "select-pane",
  "select-window",
  "send-keys",
  "send-prefix",
  "server-access",
  "set-buffer",
  "set-environment",
  "set-hook",
  "set-option",
  "set-window-option",
  "show-buffer",
  "show-environment",
  "show-hooks",
  "show-messages",
  "show-options",
  "show-prompt-history",
  "show-window-options",
  "source-file",
  "split-window",
  "start-server",
  "suspend-client",
  "swap-pane",
  "swap-window",
  "switch-client",
  "unbind-key",
  "unlink-window",
  "wait-for"
]

/** cmd_find: the exact name or alias, else a unique prefix of a name. */
export const findCommand = (name: string): CommandEntry | { readonly error: string } => {
  const exact = COMMANDS.find((entry) => entry.name === name || entry.alias === name)
  if (exact !== undefined) return exact
  const prefixed = TMUX_COMMANDS.includes(name) ? [name] : TMUX_COMMANDS.filter((command) => command.startsWith(name))
  if (prefixed.length > 1) return { error: `ambiguous command: ${name}, could be: ${prefixed.join(", ")}` }
  if (prefixed.length === 0) return { error: `unknown command: ${name}` }
  return COMMANDS.find((entry) => entry.name === prefixed[0]) ?? { error: `FakeTmux does not model ${prefixed[0]}` }
}

/** Whether a command makes a client start a server when none runs (tmux's CMD_STARTSERVER). */
export const startsServer = (command: TmuxCommand): boolean => {
  const entry = findCommand(command[0] ?? "")
  return "name" in entry && (entry.name === "new-session" || entry.name === "start-server")
}

const resolve = (
  invocation: Invocation,
  spec: TargetSpec | undefined,
  given: string | undefined
): { found?: Found | undefined } | { readonly error: string } => {
  if (spec === undefined) return {}
  // A session killed earlier in the list is no longer anyone's current session.
  const current = invocation.current !== undefined && invocation.server.sessions.includes(invocation.current)
    ? invocation.current
    : undefined
  const resolution = resolveTarget(invocation.server, current, given, spec.kind)
  if ("found" in resolution) return { found: resolution.found }
  return spec.canFail === true ? { found: undefined } : { error: resolution.error }
}

/** One command as tmux's parser reads it (name, flags, how many arguments), or what it says when it refuses it. */
const parseCommand = (command: TmuxCommand) => {
  const entry = findCommand(command[0] ?? "")
  if ("error" in entry) return entry
  const args = parseArguments(command.slice(1), entry.template, entry.lower, entry.upper)
  return "error" in args ? { error: `command ${entry.name}: ${args.error}` } : { entry, args }
}

/**
 * What tmux's parser says of the first command of a list it refuses, if any: tmux parses the whole
 * list before it runs any of it, so such a list runs nothing.
 */
export const refusedAtParse = (commands: ReadonlyArray<TmuxCommand>): string | undefined => {
  for (const command of commands) {
    const parsed = parseCommand(command)
    if ("error" in parsed) return parsed.error
  }
  return undefined
}

/** Runs one command of a list; the outcome's error is what tmux would print. */
export const runCommand = (invocation: Invocation, command: TmuxCommand): Outcome => {
  const parsed = parseCommand(command)
  if ("error" in parsed) return failed(parsed.error)
  const { args, entry } = parsed
  const target = resolve(invocation, entry.target, entry.target === undefined ? undefined : value(args, entry.target.flag))
  if ("error" in target) return failed(target.error)
  const source = resolve(invocation, entry.source, entry.source === undefined ? undefined : value(args, entry.source.flag))
  if ("error" in source) return failed(source.error)
  return entry.run(invocation, args, { target: target.found, source: source.found })
}
