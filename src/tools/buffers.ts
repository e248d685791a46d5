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

export const listBuffersTool = defineTool({
  name: "list_buffers",
  title: "List tmux Buffers of This Server",
  description: "This server's tmux buffers (load_buffer), newest first, paged.",
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
  description: "Stores text in a named buffer of this server, for paste_buffer or scripts.",
  tier: "mutating",
  group: "buffers",
  hints: { idempotent: true, destructive: true },
  input: Schema.Struct({
    name: BufferName,
    text: Schema.String,
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
  description: "A buffer's text, at most max_bytes.",
  tier: "readonly",
  group: "buffers",
  hints: { idempotent: true },
  input: Schema.Struct({
    name: BufferName,
    max_bytes: optional(
      Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: MAX_BUFFER_BYTES })))
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
  description: "Pastes a buffer into a pane (bracketed); delete_after removes it.",
  tier: "mutating",
  group: "buffers",
  hints: { idempotent: false, openWorld: true },
  input: Schema.Struct({
    name: BufferName,
    pane_id: PaneId,
    bracketed: optional(Schema.Boolean, "Default true."),
    delete_after: optional(Schema.Boolean),
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
  description: "Deletes a buffer of this server (deleted=false if none).",
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
