/** Running commands in a pane's shell: run_command, wait_for_command. */
import type { AnyTool } from "./Tool.js"

export const commandTools: ReadonlyArray<AnyTool> = []
