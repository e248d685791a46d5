/** tmux `wait-for` channels: wait for a signal (with a timeout) and send one. */
export { ChannelName, ChannelSignalled, ChannelWaited, signalChannel, waitForChannel } from "../operations/watching/Channels.js"
