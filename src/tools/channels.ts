/** tmux wait-for channels: wait_for_channel, signal_channel. */
import type { AnyTool } from "./Tool.js"

export const channelTools: ReadonlyArray<AnyTool> = []
