/**
 * tmux paste buffers, namespaced to effect-tmux-mcp: a caller names a buffer `notes`, tmux holds it as
 * `etm.notes`. Every buffer operation here builds that name itself, so no tool can read, paste, list
 * or delete a buffer another program (or a person's copy mode) made. The prefix is fixed rather than
 * per process, so an agent whose MCP server restarted finds its buffers again.
 *
 * Text reaches tmux on the client's standard input (`load-buffer -b NAME -`), never in an argv or a
 * temporary file.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { DisplayText } from "../../domain/ControlText.js"
import { type Conflict, InvalidInput, type TmuxError } from "../../domain/Errors.js"
import { PaneId } from "../../domain/Ids.js"
import { NonNegativeInt } from "../../domain/Model.js"
import * as Format from "../../tmux/Format.js"
import { decode, query } from "../../tmux/Query.js"
import { Tmux, type TmuxCommand } from "../../tmux/Tmux.js"
import { ensureGeneration, type GenerationCheck } from "../servers/Servers.js"
import { typablePane } from "./Input.js"
import { refusePasteEnd } from "./internal/BracketedPaste.js"
import { runExactPaste, unescapedPaste } from "./internal/ExactPaste.js"

/** What every buffer of this server's tools starts with in tmux. */
export const BUFFER_PREFIX = "etm."
/** The most UTF-8 bytes a buffer (or a pasted text) holds. */
export const MAX_BUFFER_BYTES = 1_048_576
export const DEFAULT_SHOW_MAX_BYTES = 65_536

/** A buffer name as callers give it (1-64 of A-Z a-z 0-9 _ . -); tmux holds it as `etm.<name>`. */
export const BufferName = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[A-Za-z0-9_.-]{1,64}$/u, {
    message: "must be 1-64 characters of A-Z, a-z, 0-9, '_', '.' and '-'"
  }))
)

export const tmuxBufferName = (name: string): string => `${BUFFER_PREFIX}${name}`

/** Text for a buffer: not empty (tmux would store nothing) and within the size limit. */
export const checkBufferText = (text: string): Effect.Effect<number, InvalidInput> => {
  const bytes = Buffer.byteLength(text, "utf8")
  if (bytes === 0) return Effect.fail(new InvalidInput({ reason: "text must not be empty." }))
  if (bytes > MAX_BUFFER_BYTES) {
    return Effect.fail(new InvalidInput({ reason: `text must be at most ${MAX_BUFFER_BYTES} bytes (it has ${bytes}); split it.` }))
  }
  return Effect.succeed(bytes)
}

/** tmux's words for a buffer that does not exist: "no buffer X" (show, paste), "unknown buffer: X" (delete). */
const isMissingBuffer = (error: TmuxError): boolean =>
  error._tag === "Failed" && error.reason === "exit" && /(?:^|\n)(?:no buffer|unknown buffer:) /.test(error.stderr)

const missingBuffer = (name: string) =>
  new InvalidInput({
    reason: `no buffer named ${name} (tmux buffer ${
      tmuxBufferName(name)
    }) exists on this server. load_buffer creates one; list_buffers shows those that exist.`
  })

const bufferRecord = Format.record("buf", {
  name: Format.string("buffer_name"),
  bytes: Format.int("buffer_size"),
  created: Format.int("buffer_created")
})

/** Our buffers only, filtered by tmux; `exact` narrows to one name. */
const listOurs = (marks: Format.Marks, exact?: string) => [
  "list-buffers",
  "-F",
  bufferRecord.format(marks),
  "-f",
  // Names are [A-Za-z0-9_.-] (checked by BufferName), so nothing here can end or inject a format.
  exact === undefined ? `#{m:${BUFFER_PREFIX}*,#{buffer_name}}` : `#{==:#{buffer_name},${exact}}`
]

/** One of this library's buffers, as `listBuffers` reports it. */
export const BufferInfo = Schema.Struct({
  // A script may name a buffer of ours anything: names are listed as display text.
  name: DisplayText.annotate({ description: "The name the tools take." }),
  tmux_buffer: DisplayText.annotate({ description: "The name tmux knows it by, for scripts: tmux paste-buffer -b <tmux_buffer>." }),
  bytes: NonNegativeInt,
  created: NonNegativeInt.annotate({ description: "When it was last loaded, in Unix seconds." })
})
export type BufferInfo = typeof BufferInfo.Type

/** This server's buffers, newest first (tmux's order). Other programs' buffers are never read. */
export const listBuffers = Effect.fn("Buffers.listBuffers")((socket: ResolvedSocket): Effect.Effect<Array<BufferInfo>, TmuxError, Tmux> =>
  query(socket, (m) => [listOurs(m)]).pipe(
    Effect.flatMap((output) => decode(bufferRecord, output)),
    Effect.map((rows) =>
      rows.map((row) => ({ name: row.name.slice(BUFFER_PREFIX.length), tmux_buffer: row.name, bytes: row.bytes, created: row.created }))
    )
  )
)

/** A buffer was loaded, and whether it replaced one of the same name. */
export const BufferLoaded = Schema.Struct({
  name: Schema.String,
  tmux_buffer: Schema.String,
  bytes: NonNegativeInt,
  replaced: Schema.Boolean.annotate({ description: "A buffer of this name existed and now holds the new text." })
})
export type BufferLoaded = typeof BufferLoaded.Type

/** Loads text into the buffer (creating or replacing it) in one invocation, the text on stdin. */
export const loadBuffer = Effect.fn("Buffers.loadBuffer")((
  socket: ResolvedSocket,
  name: string,
  text: string,
  options: GenerationCheck = {}
): Effect.Effect<BufferLoaded, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    const bytes = yield* checkBufferText(text)
    const buffer = tmuxBufferName(name)
    const output = yield* query(socket, (m) => [listOurs(m, buffer), ["load-buffer", "-b", buffer, "-"]], { stdin: text })
    const before = yield* decode(bufferRecord, output)
    return { name, tmux_buffer: buffer, bytes, replaced: before.length > 0 }
  })
)

/** A buffer's exact text, bounded by bytes. */
export const BufferContent = Schema.Struct({
  name: Schema.String,
  tmux_buffer: Schema.String,
  content: Schema.String.annotate({ description: "The buffer's text, cut at a character boundary when truncated." }),
  bytes: NonNegativeInt.annotate({ description: "The whole buffer's size in UTF-8 bytes." }),
  returned_bytes: NonNegativeInt,
  truncated: Schema.Boolean.annotate({ description: "content is only the first returned_bytes of the buffer." })
})
export type BufferContent = typeof BufferContent.Type

/** The longest prefix of `text` that fits in `limit` UTF-8 bytes without cutting a character. */
export const prefixWithin = (text: string, limit: number): string => {
  if (Buffer.byteLength(text, "utf8") <= limit) return text
  let size = 0
  let end = 0
  for (const character of text) {
    const bytes = Buffer.byteLength(character, "utf8")
    if (size + bytes > limit) break
    size += bytes
    end += character.length
  }
  return text.slice(0, end)
}

/**
 * The buffer's whole text, in an invocation of its own: tmux 3.3a's show-buffer fails after, and
 * silences, anything else a command list prints.
 */
const readBufferText = (socket: ResolvedSocket, name: string): Effect.Effect<string, TmuxError | InvalidInput, Tmux> =>
  Effect.flatMap(Tmux, (tmux) =>
    // A command list of its own, whose stdout is the text exactly as the tmux CLI prints it.
    tmux
      .run(socket, [["show-buffer", "-b", tmuxBufferName(name)]])
      .pipe(Effect.catchIf(isMissingBuffer, () => Effect.fail(missingBuffer(name)))))

/** The buffer's text, at most `maxBytes` of it. One invocation. */
export const showBuffer = Effect.fn("Buffers.showBuffer")((
  socket: ResolvedSocket,
  name: string,
  maxBytes: number
): Effect.Effect<BufferContent, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    const buffer = tmuxBufferName(name)
    const text = yield* readBufferText(socket, name)
    const content = prefixWithin(text, maxBytes)
    const returned = Buffer.byteLength(content, "utf8")
    const bytes = Buffer.byteLength(text, "utf8")
    return { name, tmux_buffer: buffer, content, bytes, returned_bytes: returned, truncated: returned < bytes }
  })
)

/** A buffer was pasted into a pane. */
export const BufferPasted = Schema.Struct({
  name: Schema.String,
  pane_id: PaneId,
  bracketed: Schema.Boolean.annotate({
    description: "Bracketed paste was asked for (tmux adds the brackets only when the pane's program turned that mode on)."
  }),
  deleted: Schema.Boolean.annotate({ description: "The buffer was deleted after pasting (delete_after)." }),
  pane_in_mode: Schema.Boolean.annotate({
    description:
      "The pane was in copy mode or another tmux mode: the text went to the program all the same, and the pane is still in the mode."
  })
})
export type BufferPasted = typeof BufferPasted.Type

/** How `pasteBuffer` pastes: bracketed or not, and whether the buffer is deleted afterwards. */
export interface PasteOptions {
  /** `paste-buffer -p`: brackets around the text when the program asked for them. */
  readonly bracketed: boolean
  readonly deleteAfter: boolean
}

/** A buffer name no one else uses, in this server's namespace, for one paste. */
const privateBufferName = (): string => `${BUFFER_PREFIX}paste.${randomBytes(8).toString("hex")}`

/**
 * Pastes `text` through a buffer of its own: `load-buffer` from the client's stdin, `paste-buffer
 * -d`, then `after` (e.g. an Enter), in one invocation. The buffer is removed on every path: `-d`
 * removes it after a paste, and any failure or interruption deletes it explicitly. `serverVersion`
 * (the server's `#{version}`) says whether the paste needs -S to arrive exactly.
 */
export const pasteThroughPrivateBuffer = (
  socket: ResolvedSocket,
  paneId: string,
  text: string,
  options: {
    readonly bracketed: boolean
    readonly serverVersion: string
    /** Run first, in the paste's own invocation (a look at the pane for a cursor). */
    readonly before?: ReadonlyArray<TmuxCommand>
    readonly after?: ReadonlyArray<TmuxCommand>
  }
): Effect.Effect<string, TmuxError, Tmux> =>
  Effect.gen(function*() {
    const buffer = privateBufferName()
    const commands = (unescaped: boolean) => [
      ...(options.before ?? []),
      ["load-buffer", "-b", buffer, "-"],
      pasteCommand(buffer, paneId, { bracketed: options.bracketed, deleteAfter: true, unescaped }),
      ...(options.after ?? [])
    ]
    return yield* runExactPaste(socket, unescapedPaste(options.serverVersion), commands, { stdin: text }).pipe(
      // The paste may not have happened (pane gone, server busy, the call cancelled): then -d did not run.
      Effect.onError(() => Effect.ignore(deleteTmuxBuffer(socket, buffer)))
    )
  })

/**
 * Pastes the buffer into a live pane; the pane is looked up first. Unbracketed, one paste-buffer
 * of the buffer itself. Bracketed, the text is read, checked for the paste-end sequence, and what
 * was checked is pasted through a private buffer: the named buffer could change between a check
 * and a paste of it.
 */
export const pasteBuffer = Effect.fn("Buffers.pasteBuffer")((
  socket: ResolvedSocket,
  name: string,
  paneId: string,
  options: PasteOptions & GenerationCheck
): Effect.Effect<BufferPasted, TmuxError | InvalidInput | Conflict, Tmux> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, options.generation)
    const pane = yield* typablePane(socket, paneId, "pasted")
    const result = { name, pane_id: paneId, bracketed: options.bracketed, deleted: options.deleteAfter, pane_in_mode: pane.in_mode }
    if (!options.bracketed) {
      yield* runExactPaste(
        socket,
        unescapedPaste(pane.server_version),
        (unescaped) => [pasteCommand(tmuxBufferName(name), paneId, { ...options, unescaped })]
      ).pipe(Effect.catchIf(isMissingBuffer, () => Effect.fail(missingBuffer(name))))
      return result
    }
    const text = yield* readBufferText(socket, name)
    // Bytes that are not UTF-8 reach us as U+FFFD: what was checked would not be what tmux holds.
    if (text.includes("\uFFFD")) {
      return yield* Effect.fail(
        new InvalidInput({
          reason:
            `buffer ${name} holds bytes that are not UTF-8 text (or U+FFFD), so a checked copy of it would not be exact. Paste it with bracketed: false, or read it with show_buffer and paste that text with paste_text. Nothing was pasted.`
        })
      )
    }
    yield* refusePasteEnd(text, `buffer ${name}`)
    yield* pasteThroughPrivateBuffer(socket, paneId, text, { bracketed: true, serverVersion: pane.server_version })
    if (options.deleteAfter) yield* deleteTmuxBuffer(socket, tmuxBufferName(name))
    return result
  })
)

/**
 * paste-buffer as this module runs it (newlines become carriage returns, as a terminal paste sends
 * them); `unescaped` adds -S, which tmux 3.7 and later need to paste the bytes as they are.
 */
export const pasteCommand = (
  buffer: string,
  paneId: string,
  options: PasteOptions & { readonly unescaped: boolean }
): Array<string> => [
  "paste-buffer",
  ...(options.deleteAfter ? ["-d"] : []),
  ...(options.bracketed ? ["-p"] : []),
  ...(options.unescaped ? ["-S"] : []),
  "-b",
  buffer,
  "-t",
  paneId
]

/** Whether `deleteBuffer` deleted a buffer. */
export const BufferDeleted = Schema.Struct({
  name: Schema.String,
  deleted: Schema.Boolean.annotate({ description: "False when no such buffer existed (nothing to do)." })
})
export type BufferDeleted = typeof BufferDeleted.Type

/** Deletes a tmux buffer by its tmux name; a buffer that is already gone is not an error. */
export const deleteTmuxBuffer = (socket: ResolvedSocket, buffer: string): Effect.Effect<boolean, TmuxError, Tmux> =>
  Effect.flatMap(Tmux, (tmux) => tmux.run(socket, [["delete-buffer", "-b", buffer]])).pipe(
    Effect.as(true),
    Effect.catchIf(isMissingBuffer, () => Effect.succeed(false))
  )

/** Deletes one of this library's buffers; one that does not exist is `deleted: false`, not an error. */
export const deleteBuffer = Effect.fn("Buffers.deleteBuffer")((
  socket: ResolvedSocket,
  name: string,
  options: GenerationCheck = {}
): Effect.Effect<BufferDeleted, TmuxError, Tmux> =>
  Effect.andThen(
    ensureGeneration(socket, options.generation),
    Effect.map(deleteTmuxBuffer(socket, tmuxBufferName(name)), (deleted) => ({ name, deleted }))
  )
)
