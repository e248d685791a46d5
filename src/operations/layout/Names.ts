/**
 * Names and titles as tmux stores them. tmux 3.3a rewrites some characters instead of refusing
 * them: session and window names are escaped C-style by vis(3) (a tab is stored as the two
 * characters `\t`, `\` as `\\`, `$` before a letter, `_` or `{` as `\$`, and anything the C
 * library's locale tables call unprintable as octal), session names get `:` and `.` replaced by
 * `_`, and a pane title holding such a character is ignored without an error (3.7 and later store
 * a title escaped as they do names, a backslash doubled). What can be known in
 * advance is refused here, so the name asked for is the name stored; the operations compare what
 * tmux stored with what was asked for and report a difference (e.g. an emoji newer than the C
 * library) as a failure. (`#` is fine: the operations literalize it before it reaches tmux.)
 */
import * as Effect from "effect/Effect"
import { Failed, InvalidInput } from "../../domain/Errors.js"

export type NameKind = "session name" | "window name" | "pane title"

export const MAX_NAME_LENGTH = 256

/** Controls, line/paragraph separators, unassigned code points and lone surrogates: never printable. */
const UNPRINTABLE = /[\p{Cc}\p{Zl}\p{Zp}\p{Cn}\p{Cs}]/u

const refuse = (argument: string, reason: string) => Effect.fail(new InvalidInput({ reason: `${argument} ${reason}` }))

/** Succeeds with the text unchanged when tmux would store it exactly as given. */
export const checkName = (kind: NameKind, text: string, argument: string): Effect.Effect<string, InvalidInput> => {
  if (kind !== "pane title" && text === "") return refuse(argument, `must not be empty.`)
  if ([...text].length > MAX_NAME_LENGTH) return refuse(argument, `must be at most ${MAX_NAME_LENGTH} characters.`)
  if (UNPRINTABLE.test(text)) {
    return refuse(
      argument,
      kind === "pane title"
        ? "must not contain control or unprintable characters (tabs, newlines, escapes): tmux silently ignores such a title."
        : `must not contain control or unprintable characters (tabs, newlines, escapes): tmux would store them escaped, e.g. a tab as "\\t".`
    )
  }
  if (kind !== "pane title" && text.includes("\\")) {
    return refuse(argument, `must not contain "\\": tmux stores it doubled in a ${kind}.`)
  }
  if (kind !== "pane title" && /\$[A-Za-z_{]/.test(text)) {
    return refuse(argument, `must not contain "$" before a letter, "_" or "{": tmux stores it as "\\$" in a ${kind}.`)
  }
  if (kind === "session name" && /[:.]/.test(text)) {
    return refuse(argument, `must not contain ":" or ".": tmux replaces them with "_" in session names.`)
  }
  return Effect.succeed(text)
}

/** The difference, if any, between the text asked for and what tmux stored. */
export const storedExactly = (kind: NameKind, requested: string, stored: string): Effect.Effect<void, Failed> =>
  requested === stored
    ? Effect.void
    : Effect.fail(
      new Failed({
        command: kind === "pane title" ? "select-pane -T" : kind === "session name" ? "rename-session" : "rename-window",
        reason: "exit",
        exitCode: null,
        stderr: kind === "pane title"
          ? `tmux did not store the title as given (before 3.7 it ignores a title holding a character the C library's locale tables call unprintable; 3.7 and later store such a character escaped and a backslash doubled); the title is ${
            JSON.stringify(stored)
          }.`
          : `tmux stored the ${kind} as ${
            JSON.stringify(stored)
          }: it escapes characters the C library's locale tables call unprintable. Rename again without them.`
      })
    )
