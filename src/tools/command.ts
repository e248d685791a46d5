/** Running commands in a pane's shell: run_command, wait_for_command. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket, SocketResolver } from "../context/SocketResolver.js"
import { PaneId } from "../domain/Ids.js"
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from "../operations/bounds/OutputBudget.js"
import { effectiveTimeout } from "../operations/bounds/Waiting.js"
import { CommandResult, MAX_COMMAND_BYTES, openHandle, runCommand, waitForCommand } from "../operations/commands/RunCommand.js"
import { budgetArguments, generationArgument, timeoutArgument } from "./internal/Arguments.js"
import { refuseCallerPaneUnlessForced } from "./internal/PaneGuard.js"
import { defineTool, optional, socketArguments } from "./Tool.js"

const outputArguments = {
  ...budgetArguments,
  keep_escapes: optional(Schema.Boolean, "Keep terminal escape sequences (colours, cursor moves) in output. Default false: plain text."),
  interrupt_on_timeout: optional(
    Schema.Boolean,
    "When the wait runs out, press C-c in the pane and report whether the command stopped (command_stopped). Default false: the command keeps running and handle lets you wait again."
  )
}

const outputOptions = (input: { max_lines?: number; max_bytes?: number; keep_escapes?: boolean }) => ({
  maxLines: input.max_lines ?? DEFAULT_MAX_LINES,
  maxBytes: input.max_bytes ?? DEFAULT_MAX_BYTES,
  keepEscapes: input.keep_escapes ?? false
})

export const runCommandTool = defineTool({
  name: "run_command",
  title: "Run Command in tmux Pane",
  description:
    `Runs a shell command in a pane's own shell, as if typed there (cd and export persist; multi-line text, heredocs and quotes work as written), waits for it, and returns its exit status and its whole output (not just the screen: long output comes back as head and tail with the count of elided lines). The pane must show a POSIX shell (bash, zsh, sh, dash, ksh) at its prompt; other shells (fish, nu, pwsh) and busy panes are refused with the reason. The shell's edit line is cleared first (C-u): text waiting there is discarded. outcome: completed (exit_status set), timed_out (the command still runs: pass handle to wait_for_command; or set interrupt_on_timeout to press C-c), pane_died, not_started (the shell did not take the line; the command was withdrawn). Cancelling the call stops the wait, not the command. Refuses the pane this MCP server runs in and panes a person is watching, unless force is true. The text goes through a tmux buffer that the pane's shell fetches with tmux itself, so the pane needs tmux on its PATH (true unless it ssh'd elsewhere). At most ${MAX_COMMAND_BYTES} bytes; the command is kept out of the audit log.`,
  tier: "mutating",
  group: "terminal",
  hints: { idempotent: false, openWorld: true },
  input: Schema.Struct({
    pane_id: PaneId,
    command: Schema.String.annotations({ description: "Shell command text, run as if typed at the pane's prompt. May span lines." }),
    timeout: timeoutArgument,
    ...outputArguments,
    force: optional(Schema.Boolean, "Run even in the pane this MCP server runs in, or in a pane a person is watching. Default false."),
    generation: generationArgument,
    ...socketArguments
  }),
  output: CommandResult,
  payloadArguments: ["command"],
  textArguments: { command: "text" },
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      yield* refuseCallerPaneUnlessForced(socket, input, "run a command in", "running a command in your own terminal")
      return yield* runCommand(socket, input.pane_id, {
        command: input.command,
        timeout: yield* effectiveTimeout(input.timeout),
        interruptOnTimeout: input.interrupt_on_timeout ?? false,
        force: input.force ?? false,
        generation: input.generation,
        ...outputOptions(input)
      })
    })
})

export const waitForCommandTool = defineTool({
  name: "wait_for_command",
  title: "Wait for Command in tmux Pane",
  description:
    "Keeps waiting for a command that run_command (or an earlier wait_for_command) left running when its wait ran out, given the handle it returned. Returns the output printed since that call, and the exit status once the command completes (same result shape as run_command). A handle is valid while the pane and its tmux server live, until its command's end is reported; a restarted tmux server is refused. interrupt_on_timeout is refused in the pane this MCP server runs in unless force is true.",
  tier: "mutating",
  group: "terminal",
  hints: { idempotent: false },
  input: Schema.Struct({
    handle: Schema.String.annotations({ description: "The handle field of a timed_out run_command or wait_for_command result." }),
    timeout: timeoutArgument,
    ...outputArguments,
    force: optional(Schema.Boolean, "Allow interrupt_on_timeout to press C-c in the pane this MCP server runs in. Default false.")
  }),
  output: CommandResult,
  handler: (input) =>
    Effect.gen(function*() {
      const handle = yield* openHandle(input.handle)
      const socket = (yield* SocketResolver).fromPath(handle.socket, "socket_path argument")
      if (input.interrupt_on_timeout === true) {
        yield* refuseCallerPaneUnlessForced(
          socket,
          { pane_id: handle.pane_id, force: input.force },
          "type into",
          "pressing C-c in your own terminal"
        )
      }
      return yield* waitForCommand(socket, handle, {
        timeout: yield* effectiveTimeout(input.timeout),
        interruptOnTimeout: input.interrupt_on_timeout ?? false,
        ...outputOptions(input)
      })
    })
})

export const commandTools = [runCommandTool, waitForCommandTool]
