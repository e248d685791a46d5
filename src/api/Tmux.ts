/**
 * The `Tmux` service: run a list of tmux commands against one server in one round trip, failing
 * only with `NoServer | NotFound | Failed`. Its layers are `TmuxSocket` (the default), `TmuxExec` and `TmuxLive`
 * (and `FakeTmux` in `effect-tmux-mcp/testing`).
 */
export { type RunOptions, Tmux, type TmuxCommand, type TmuxShape, type TransportInUse } from "../tmux/Tmux.js"
