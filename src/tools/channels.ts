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
  description:
    "Blocks until someone signals a tmux wait-for channel, e.g. a script in a pane that ends with `tmux wait-for -S build-done`, or signal_channel. Channel names are shared with scripts (not namespaced). outcome: signalled | timeout | server_died (the tmux server exited or restarted while waiting; tmux releases waiters when it exits, so the server is checked again after the wait). A signal sent while nobody waited is kept by tmux and makes this call return at once, consuming it: that is why this tool changes state (mutating tier). A tmux limitation: a wait that timed out or was cancelled stays registered in tmux until the channel's next signal, which it absorbs; so after a timeout, wait again before the signal is due (a signal wakes every waiter) rather than counting on tmux keeping it. Sends progress about once a second when the client asked for it; a cancelled call ends the wait at once and leaves no tmux process behind.",
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
  description:
    "Signals a tmux wait-for channel (tmux wait-for -S <channel>): wakes everyone waiting on it, or, with nobody waiting, is kept until the next wait, which then returns at once. Channel names are shared with scripts (not namespaced).",
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
