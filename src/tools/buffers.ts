/**
 * tmux paste buffers namespaced to this server: list_buffers, load_buffer, show_buffer, paste_buffer,
 * delete_buffer. A tool takes the short name the agent chose; tmux holds it as `etm.<name>`, and no
 * tool reads, lists, pastes or deletes a buffer outside that namespace.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { PaneId } from "../domain/Ids.js"
import { paginate } from "../operations/bounds/Paging.js"
import {
  BUFFER_PREFIX,
  BufferContent,
  BufferDeleted,
  BufferInfo,
  BufferLoaded,
  BufferName,
  BufferPasted,
  DEFAULT_SHOW_MAX_BYTES,
  deleteBuffer,
  listBuffers,
  loadBuffer,
  MAX_BUFFER_BYTES,
  pasteBuffer,
  showBuffer
} from "../operations/input/Buffers.js"
import { forceArgument, generationArgument } from "./internal/Arguments.js"
import { Page, pageArguments } from "./internal/Paging.js"
import { refuseCallerPaneUnlessForced } from "./internal/PaneGuard.js"
import { defineTool, Int, optional, socketArguments } from "./Tool.js"

const NAMESPACE =
  `Buffers are this server's own: the name you give is held in tmux as ${BUFFER_PREFIX}<name>, and buffers of other programs are never read or touched.`

export const listBuffersTool = defineTool({
  name: "list_buffers",
  title: "List tmux Buffers of This Server",
  description:
    `The buffers made with load_buffer (and paste_text's, while one is in flight), newest first, paged: name, tmux_buffer, bytes, created. ${NAMESPACE} Metadata only: show_buffer reads one.`,
  tier: "readonly",
  group: "buffers",
  hints: { idempotent: true },
  input: Schema.Struct({ ...socketArguments, ...pageArguments }),
  output: Page(BufferInfo),
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      return paginate(yield* listBuffers(socket), input)
    })
})

export const loadBufferTool = defineTool({
  name: "load_buffer",
  title: "Load tmux Buffer",
  description:
    `Stores text in a named tmux buffer, creating it or replacing its text (replaced says which). The text goes to tmux on stdin, never in a command line or a temporary file. paste_buffer pastes it into panes; scripts can use it as tmux paste-buffer -b ${BUFFER_PREFIX}<name>. ${NAMESPACE} Buffers live as long as the tmux server; delete_buffer removes one. 1 to ${MAX_BUFFER_BYTES} bytes; the text is kept out of the audit log.`,
  tier: "mutating",
  group: "buffers",
  hints: { idempotent: true, destructive: true },
  input: Schema.Struct({
    name: BufferName,
    text: Schema.String.annotations({ description: `The buffer's text, 1 to ${MAX_BUFFER_BYTES} bytes.` }),
    ...socketArguments
  }),
  output: BufferLoaded,
  payloadArguments: ["text"],
  textArguments: { text: "binary" },
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      return yield* loadBuffer(socket, input.name, input.text)
    })
})

export const showBufferTool = defineTool({
  name: "show_buffer",
  title: "Show tmux Buffer",
  description:
    `A buffer's text, at most max_bytes of it (default ${DEFAULT_SHOW_MAX_BYTES}, cut at a character boundary; truncated and bytes say what was left out). A name with no buffer is invalid_input. ${NAMESPACE}`,
  tier: "readonly",
  group: "buffers",
  hints: { idempotent: true },
  input: Schema.Struct({
    name: BufferName,
    max_bytes: optional(
      Int.pipe(Schema.between(1, MAX_BUFFER_BYTES)),
      `Return at most this many bytes of text, 1-${MAX_BUFFER_BYTES} (default ${DEFAULT_SHOW_MAX_BYTES}).`
    ),
    ...socketArguments
  }),
  output: BufferContent,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      return yield* showBuffer(socket, input.name, input.max_bytes ?? DEFAULT_SHOW_MAX_BYTES)
    })
})

export const pasteBufferTool = defineTool({
  name: "paste_buffer",
  title: "Paste tmux Buffer into Pane",
  description:
    `Pastes a buffer made with load_buffer into a pane, as one paste. bracketed (default true) asks for bracketed paste: tmux adds the brackets only if the program turned that mode on, so a shell shows multi-line text without running it; a buffer holding the paste-end sequence ESC[201~ is then refused. Newlines are sent as carriage returns, as a terminal paste does. delete_after (default false) removes the buffer after pasting. Refuses the pane this MCP server runs in unless force is true, and dead panes. ${NAMESPACE} For one-off text, paste_text does load, paste and delete in one call.`,
  tier: "mutating",
  group: "buffers",
  hints: { idempotent: false, openWorld: true },
  input: Schema.Struct({
    name: BufferName,
    pane_id: PaneId,
    bracketed: optional(Schema.Boolean, "Bracketed paste when the program asked for it. Default true."),
    delete_after: optional(Schema.Boolean, "Delete the buffer after pasting. Default false."),
    force: forceArgument,
    generation: generationArgument,
    ...socketArguments
  }),
  output: BufferPasted,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      yield* refuseCallerPaneUnlessForced(socket, input, "paste into", "pasting into your own terminal")
      return yield* pasteBuffer(socket, input.name, input.pane_id, {
        bracketed: input.bracketed ?? true,
        deleteAfter: input.delete_after ?? false,
        generation: input.generation
      })
    })
})

export const deleteBufferTool = defineTool({
  name: "delete_buffer",
  title: "Delete tmux Buffer",
  description: `Deletes a buffer made with load_buffer. Deleting a buffer that does not exist succeeds with deleted: false. ${NAMESPACE}`,
  tier: "mutating",
  group: "buffers",
  hints: { idempotent: true, destructive: true },
  input: Schema.Struct({ name: BufferName, ...socketArguments }),
  output: BufferDeleted,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      return yield* deleteBuffer(socket, input.name)
    })
})

export const bufferTools = [listBuffersTool, loadBufferTool, showBufferTool, pasteBufferTool, deleteBufferTool]
