/** Creating sessions, windows and panes: create_session, create_window, split_window, respawn_pane. */
import type { AnyTool } from "./Tool.js"

export const createTools: ReadonlyArray<AnyTool> = []
