/**
 * This library's own tmux paste buffers (named `etm.<name>` in tmux; other programs' buffers are
 * never listed or touched): list, load, show, paste and delete.
 */
export {
  BufferContent,
  BufferDeleted,
  BufferInfo,
  BufferLoaded,
  BufferName,
  BufferPasted,
  deleteBuffer,
  listBuffers,
  loadBuffer,
  MAX_BUFFER_BYTES,
  pasteBuffer,
  type PasteOptions,
  showBuffer
} from "../operations/input/Buffers.js"
