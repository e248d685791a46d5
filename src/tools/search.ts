/** Searching pane text across a server or session: search_panes. */
import type { AnyTool } from "./Tool.js"

export const searchTools: ReadonlyArray<AnyTool> = []
