/** The tmux environment: set_environment, unset_environment, show_environment. */
import type { AnyTool } from "./Tool.js"

export const environmentTools: ReadonlyArray<AnyTool> = []
