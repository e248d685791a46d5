/**
 * What every transport that runs a command list as one tmux client (a process, a socket
 * connection) does the same way: the lists it refuses before sending, the end mark that closes
 * each list, and how the client's stdout, stderr and exit status become an answer or an error.
 *
 * Every list ends with an end mark of its own, `display-message -p <token>` with a token chosen
 * afresh for the call: tmux prints it only after every command before it ran, so output without it
 * (nothing at all, garbage, a client cut short, a binary that is not tmux) is `Failed` with reason
 * `unparseable`, never read as an empty or partial answer. The mark is added below any recording
 * layer and stripped before the output is returned. Two kinds of list need another mark:
 * - `show-buffer` writes the buffer through a stream of its own that closes the CLI's stdout when
 *   done (tmux 3.3a: nothing printed after it arrives, and output printed before it makes the buffer
 *   go missing). Its mark is a refusal instead: `show-buffer -b <token>`, a buffer that does not
 *   exist, fails with "no buffer <token>" on stderr, which only a list that ran to its end prints.
 * - `kill-server`: nothing after it is read, and the server may be gone before a mark is printed.
 */
import * as Result from "effect/Result"
import { Failed, type TmuxError } from "../../domain/Errors.js"
import { classifyFailure, refusedAccess } from "../Classify.js"
import { commandListBytes, TMUX_ARGV_LIMIT } from "../CommandBatches.js"
import { escapeArgvArgument } from "../Literal.js"
import type { TmuxCommand } from "../Tmux.js"
import type { Finished } from "../TmuxProcess.js"
import { randomHex } from "./RandomHex.js"

/** The command closing one list, and how to tell that tmux ran the list to its end. */
interface EndMark {
  readonly command: TmuxCommand
  /** The output of a list that ran to its end, without the mark; undefined when it did not. */
  readonly strip: (result: Finished) => string | undefined
}

const endMarkFor = (commands: ReadonlyArray<TmuxCommand>): EndMark | undefined => {
  if (commands.some((command) => command[0] === "kill-server")) return undefined
  const token = `etm-end-${randomHex(16)}`
  if (commands.some((command) => command[0] === "show-buffer")) {
    const refusal = `no buffer ${token}\n`
    return {
      command: ["show-buffer", "-b", token],
      strip: ({ exitCode, stderr, stdout }) => (exitCode === 1 && stderr === refusal ? stdout : undefined)
    }
  }
  const line = `${token}\n`
  return {
    command: ["display-message", "-p", token],
    strip: ({ exitCode, stdout }) => (exitCode === 0 && stdout.endsWith(line) ? stdout.slice(0, stdout.length - line.length) : undefined)
  }
}

/** A list ready to send: the commands with their end mark, and the mark to read the answer by. */
export interface MarkedList {
  readonly sent: ReadonlyArray<TmuxCommand>
  readonly mark: EndMark | undefined
}

/**
 * Adds the end mark, or refuses a list no tmux client can carry: an argument with a NUL (no
 * program argument, and no NUL-terminated argument of tmux's command message, can hold one; Node
 * would throw quoting the argument, maybe a secret), or more argv than one client message holds.
 */
export const markList = (commands: ReadonlyArray<TmuxCommand>, description: string): Result.Result<MarkedList, Failed> => {
  const failed = (reason: Failed["reason"], stderr: string) => new Failed({ command: description, reason, exitCode: null, stderr })
  if (commands.some((args) => args.some((arg) => arg.includes("\0")))) {
    return Result.fail(failed("spawn", "an argument holds a NUL character, which no program argument can carry; remove it"))
  }
  const mark = endMarkFor(commands)
  const sent = mark === undefined ? commands : [...commands, mark.command]
  const bytes = commandListBytes(sent)
  if (bytes > TMUX_ARGV_LIMIT) {
    return Result.fail(
      failed(
        "exit",
        `the command list takes ${bytes} bytes, more than the ${TMUX_ARGV_LIMIT} one tmux invocation carries; send less at once`
      )
    )
  }
  return Result.succeed({ sent, mark })
}

/** The `;`-joined argv of a command list, each argument protected from tmux's separator parsing. */
export const listArgv = (commands: ReadonlyArray<TmuxCommand>): Array<string> => {
  const argv: Array<string> = []
  commands.forEach((command, index) => {
    if (index > 0) argv.push(";")
    argv.push(...command.map(escapeArgvArgument))
  })
  return argv
}

/** What a client's output says: the list's output, or the error tmux (or its silence) means. */
export const readAnswer = (
  result: Finished,
  list: MarkedList,
  socketLabel: string,
  description: string
): Result.Result<string, TmuxError> => {
  const failure = () => classifyFailure({ ...result, socketLabel, command: description })
  if (list.mark === undefined) return result.exitCode === 0 ? Result.succeed(result.stdout) : Result.fail(failure())
  const output = list.mark.strip(result)
  if (output !== undefined) return Result.succeed(output)
  if (result.exitCode !== 0 || refusedAccess(result.stderr)) return Result.fail(failure())
  return Result.fail(
    new Failed({
      command: description,
      reason: "unparseable",
      exitCode: null,
      stderr: result.stdout === "" && result.stderr === ""
        ? "it exited 0 without printing anything, not even the end mark every call asks for (is LIBTMUX_TMUX_BIN a tmux?)"
        : "it exited 0 but its output did not end with the end mark every call asks for: cut short, or not from tmux (is LIBTMUX_TMUX_BIN a tmux?)"
    })
  )
}
