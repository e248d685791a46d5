/** Destroying objects: kill_session, kill_window, kill_pane (destructive tier, explicit ids only). */
import type { AnyTool } from "./Tool.js"

export const teardownTools: ReadonlyArray<AnyTool> = []
