/** Running commands in a pane's shell: run_command, wait_for_command. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { LOCAL_HOST } from "../context/HostsConfig.js"
import { onHost } from "../context/RemoteHosts.js"
import { resolveSocket } from "../context/SocketResolver.js"
import { InvalidInput } from "../domain/Errors.js"
import { PaneId } from "../domain/Ids.js"
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from "../operations/bounds/OutputBudget.js"
import { DEFAULT_MATCH_TAIL_LINES, MAX_MATCH_CONTEXT, MAX_MATCHES, MAX_TAIL_LINES } from "../operations/bounds/OutputMatches.js"
import { DEFAULT_WAIT_SECONDS, effectiveTimeout } from "../operations/bounds/Waiting.js"
import { handleSocket } from "../operations/commands/CommandHandle.js"
import { CommandResult, openHandle, type OutputOptions, runCommand, waitForCommand } from "../operations/commands/RunCommand.js"
import { checkHostCap } from "../services/Policy.js"
import { forceArgument, generationArgument, MaxOutputBytes, MaxOutputLines, PatternList, TimeoutSeconds } from "./internal/Arguments.js"
import { refuseCallerPaneUnlessForced } from "./internal/PaneGuard.js"
import { type AnyTool, defineTool, Int, optional, socketArguments } from "./Tool.js"

/**
 * run_command's waiting and output arguments. wait_for_command takes the same, undescribed: its
 * description points to run_command's (listed before it), so tools/list says them once.
 */
const waitArguments = (described: boolean) => {
  const said = (description: string) => (described ? description : undefined)
  return {
    timeout: optional(TimeoutSeconds, said(`Seconds, default ${DEFAULT_WAIT_SECONDS}.`)),
    max_lines: optional(MaxOutputLines, said(`Default ${DEFAULT_MAX_LINES}: head and tail kept.`)),
    max_bytes: optional(MaxOutputBytes, said(`Default ${DEFAULT_MAX_BYTES}.`)),
    keep_escapes: optional(Schema.Boolean),
    interrupt_on_timeout: optional(Schema.Boolean, said("C-c when the wait runs out.")),
    match: optional(
      described ? MatchInput : MatchInput.annotate({ "x-etm-json-schema": { type: "object" } }),
      said(`Lines to find in the whole output (context: 0-${MAX_MATCH_CONTEXT} lines around).`)
    ),
    tail_lines: optional(TailLines, said(`Only the last lines (default ${DEFAULT_MATCH_TAIL_LINES} with match).`))
  }
}

/** What run_command looks for in a command's output (OutputMatches). */
const MatchInput = Schema.Struct({
  patterns: PatternList,
  regex: optional(Schema.Boolean),
  ignore_case: optional(Schema.Boolean),
  context: optional(Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: MAX_MATCH_CONTEXT })))),
  max_matches: optional(Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: MAX_MATCHES }))))
})
const TailLines = Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: MAX_TAIL_LINES })))

type OutputInput = {
  readonly max_lines?: number
  readonly max_bytes?: number
  readonly keep_escapes?: boolean
  readonly match?: typeof MatchInput.Type
  readonly tail_lines?: number
}

const outputOptions = (input: OutputInput): Effect.Effect<OutputOptions, InvalidInput> =>
  input.max_lines !== undefined && (input.match !== undefined || input.tail_lines !== undefined)
    ? Effect.fail(
      new InvalidInput({
        reason:
          "max_lines keeps the output's head and tail; with match or tail_lines the output is its last tail_lines lines. Pass max_lines or tail_lines, not both."
      })
    )
    : Effect.succeed({
      maxLines: input.max_lines ?? DEFAULT_MAX_LINES,
      maxBytes: input.max_bytes ?? DEFAULT_MAX_BYTES,
      keepEscapes: input.keep_escapes ?? false,
      tailLines: input.tail_lines,
      match: input.match === undefined ? undefined : {
        patterns: input.match.patterns,
        regex: input.match.regex,
        ignoreCase: input.match.ignore_case,
        context: input.match.context,
        maxMatches: input.match.max_matches
      }
    })

export const runCommandTool = defineTool({
  name: "run_command",
  title: "Run Command in tmux Pane",
  description:
    "Runs a command in a pane's POSIX shell; returns exit_status and output (timed_out: wait_for_command with handle). Prefer it to send_keys and polling.",
  tier: "mutating",
  group: "terminal",
  hints: { idempotent: false, openWorld: true },
  input: Schema.Struct({
    pane_id: PaneId,
    command: Schema.String,
    ...waitArguments(true),
    force: forceArgument,
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
        ...(yield* outputOptions(input))
      })
    })
})

export const waitForCommandTool: AnyTool = defineTool({
  name: "wait_for_command",
  title: "Wait for Command in tmux Pane",
  description: "Keeps waiting for a timed-out run_command by its handle (arguments as run_command's): output since, exit_status once done.",
  tier: "mutating",
  group: "terminal",
  hints: { idempotent: false },
  input: Schema.Struct({
    handle: Schema.String,
    ...waitArguments(false),
    force: forceArgument
  }),
  output: CommandResult,
  handler: (input) =>
    Effect.gen(function*() {
      const handle = yield* openHandle(input.handle)
      const host = handle.host ?? LOCAL_HOST
      // The handle names its host (the call names none): the host's cap applies as to a call's `host`.
      yield* checkHostCap(waitForCommandTool, host)
      // The wait runs there, as the run_command call did.
      const socket = yield* handleSocket(handle)
      return yield* onHost(host)(Effect.gen(function*() {
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
          ...(yield* outputOptions(input))
        })
      }))
    })
})

export const commandTools = [runCommandTool, waitForCommandTool]
