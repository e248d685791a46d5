/** Typing into panes: send_keys. */
import type { AnyTool } from "./Tool.js"

export const inputTools: ReadonlyArray<AnyTool> = []
