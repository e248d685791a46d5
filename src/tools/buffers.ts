/** tmux paste buffers namespaced to this server: load_buffer, paste_buffer, show_buffer, delete_buffer. */
import type { AnyTool } from "./Tool.js"

export const bufferTools: ReadonlyArray<AnyTool> = []
