/** tmux wait-for channels: wait_for_channel, signal_channel. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { effectiveTimeout } from "../operations/bounds/Waiting.js"
import { ChannelName, ChannelSignalled, ChannelWaited, signalChannel, waitForChannel } from "../operations/watching/Channels.js"
import { timeoutArgument } from "./internal/Arguments.js"
import { defineTool, socketArguments } from "./Tool.js"

export const waitForChannelTool = defineTool({
  name: "wait_for_channel",
  title: "Wait for tmux Channel",
  description: "Blocks until a tmux wait-for channel is signalled (a script's `tmux wait-for -S name`, or signal_channel).",
  tier: "mutating",
  group: "terminal",
  hints: { idempotent: false },
  input: Schema.Struct({ channel: ChannelName, timeout: timeoutArgument, ...socketArguments }),
  output: ChannelWaited,
  handler: (input) =>
    Effect.gen(function*() {
      const timeout = yield* effectiveTimeout(input.timeout)
      const socket = yield* resolveSocket(input)
      return yield* waitForChannel(socket, input.channel, timeout)
    })
})

export const signalChannelTool = defineTool({
  name: "signal_channel",
  title: "Signal tmux Channel",
  description: "Signals a tmux wait-for channel: wakes its waiters, or is kept for the next wait.",
  tier: "mutating",
  group: "terminal",
  hints: { idempotent: false },
  input: Schema.Struct({ channel: ChannelName, ...socketArguments }),
  output: ChannelSignalled,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      return yield* signalChannel(socket, input.channel)
    })
})

export const channelTools = [waitForChannelTool, signalChannelTool]
