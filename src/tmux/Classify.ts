/**
 * Turns tmux's stderr (and a missed deadline) into the closed error set, once, for every transport.
 */
import * as Duration from "effect/Duration"
import { Failed, NoServer, NotFound, type ObjectKind, type TmuxError } from "../domain/Errors.js"

/** tmux's error text is not bounded; an agent needs the first lines, not a flood. */
const MAX_STDERR_CHARS = 1000

const bound = (text: string): string =>
  text.length <= MAX_STDERR_CHARS ? text : `${text.slice(0, MAX_STDERR_CHARS)}… (${text.length - MAX_STDERR_CHARS} more characters)`

// What tmux >= 3.3 tells a client its server-access list does not allow (an exit message, so the
// CLI prints it on stderr; 3.3a's exit status is 0).
const ACCESS_REFUSED = /^access not allowed$/m

/** Whether a client's stderr is the server refusing it access, whatever its exit status. */
export const refusedAccess = (stderr: string): boolean => ACCESS_REFUSED.test(stderr)

const NO_SERVER = /no server running on |error connecting to |server exited unexpectedly/
// set-environment and show-environment say "no such session" where other commands say "can't find".
const NOT_FOUND = /(?:can't find|no such) (session|window|pane): ?(.*)/

/** Classifies a failed invocation (or an access refusal) from its stderr and exit code. */
export const classifyFailure = (params: {
  readonly stderr: string
  readonly exitCode: number | null
  readonly socketLabel: string
  readonly command: string
}): TmuxError => {
  const stderr = params.stderr.trim()
  if (refusedAccess(stderr)) {
    return new Failed({ command: params.command, reason: "access", exitCode: params.exitCode, stderr: "access not allowed" })
  }
  if (NO_SERVER.test(stderr)) return new NoServer({ socket: params.socketLabel })
  const notFound = NOT_FOUND.exec(stderr)
  if (notFound !== null) {
    return new NotFound({
      kind: notFound[1] as ObjectKind,
      target: (notFound[2] ?? "").trim(),
      socket: params.socketLabel
    })
  }
  return new Failed({
    command: params.command,
    reason: "exit",
    exitCode: params.exitCode,
    stderr: bound(stderr === "" ? "(tmux printed no message)" : stderr)
  })
}

/** A call that missed its deadline; `unanswered` says what did not happen in time (tmux's answer by default). */
export const timedOut = (command: string, timeout: Duration.Duration, unanswered = "no answer"): Failed =>
  new Failed({ command, reason: "timeout", exitCode: null, stderr: `${unanswered} within ${Duration.format(timeout)}` })
