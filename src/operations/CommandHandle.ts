/**
 * The handle run_command returns when its wait ran out while the command still runs: everything a
 * later wait_for_command needs, carried by the caller (no state in this process, so a restarted MCP
 * server can carry on). It is opaque to the caller but not trusted: every field is checked again,
 * and it can only name a log file by a run id (see RunLogs).
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { InvalidInput } from "../domain/Errors.js"

const PREFIX = "cmd1."

export const OutputSource = Schema.Literal("pipe", "scrollback").annotations({
  description:
    "pipe: the command's whole output, recorded by tmux pipe-pane. scrollback: read from the pane's history (the pane already had a pipe-pane of its own), so the start of a long output may have scrolled away."
})
export type OutputSource = typeof OutputSource.Type

const HandleFields = Schema.Struct({
  id: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{16}$/)),
  socket: Schema.String,
  generation: Schema.String,
  pane_id: Schema.String.pipe(Schema.pattern(/^%\d+$/)),
  pane_pid: Schema.NullOr(Schema.Number),
  shell: Schema.String,
  source: OutputSource,
  /** Bytes of the log already read (pipe source). */
  offset: Schema.Number.pipe(Schema.int(), Schema.nonNegative()),
  /** Whether the start marker was seen. */
  started: Schema.Boolean,
  /** Output lines already handed to the caller. */
  returned_lines: Schema.Number.pipe(Schema.int(), Schema.nonNegative()),
  /** When the command was typed (ms since the epoch). */
  typed_at: Schema.Number
})
export type CommandHandle = typeof HandleFields.Type

const codec = Schema.compose(Schema.StringFromBase64Url, Schema.parseJson(HandleFields))

export const encodeHandle = (handle: CommandHandle): string => PREFIX + Schema.encodeSync(codec)(handle)

export const decodeHandle = (text: string): Effect.Effect<CommandHandle, InvalidInput> => {
  const decoded = text.startsWith(PREFIX) ? Schema.decodeUnknownEither(codec)(text.slice(PREFIX.length)) : Either.left(null)
  return Either.isRight(decoded)
    ? Effect.succeed(decoded.right)
    : Effect.fail(
        new InvalidInput({
          reason: "handle is not a handle from run_command or wait_for_command (pass the handle field of their result unchanged)."
        })
      )
}
