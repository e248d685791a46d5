/**
 * Which tmux server a call talks to: per-call `socket_name` / `socket_path`, else the configured
 * socket, else the caller's own (from `$TMUX`), else tmux's default. Every operation takes the
 * `ResolvedSocket` this service gives.
 */
import type * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { type ResolvedSocket, resolveSocket, SocketResolver, type SocketSelector } from "../context/SocketResolver.js"
import type { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import type { Failed, InvalidInput } from "../domain/Errors.js"

export {
  type ResolvedSocket,
  SocketResolver,
  type SocketResolverShape,
  type SocketRule,
  type SocketSelector
} from "../context/SocketResolver.js"

/** The server `selector` names (`socket_name` or `socket_path`), or the default one without it. */
export const resolve: (selector?: SocketSelector) => Effect.Effect<ResolvedSocket, InvalidInput | Failed, SocketResolver> = resolveSocket

/** The resolver over the configuration's socket settings. */
export const layer: Layer.Layer<SocketResolver, never, TmuxMcpConfig> = SocketResolver.layer
