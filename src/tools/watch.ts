/** Watching panes: snapshot_pane, capture_since, wait_for_text. */
import type { AnyTool } from "./Tool.js"

export const watchTools: ReadonlyArray<AnyTool> = []
