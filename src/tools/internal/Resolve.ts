/**
 * The socket a mutating call targets, checked against the caller's `generation` when one is given:
 * ids repeat after a server restart, so a stale generation stops the call before anything is sent.
 */
import * as Effect from "effect/Effect"
import { type ResolvedSocket, SocketResolver, type SocketSelector } from "../../context/SocketResolver.js"
import type { ToolError } from "../../domain/Errors.js"
import { ensureGeneration } from "../../operations/servers/Generation.js"
import type { Tmux } from "../../tmux/Tmux.js"

export const resolveChecked = (
  input: SocketSelector & { readonly generation?: string | undefined }
): Effect.Effect<ResolvedSocket, ToolError, SocketResolver | Tmux> =>
  Effect.flatMap(SocketResolver, (resolver) => resolver.resolve(input)).pipe(
    Effect.tap((socket) => ensureGeneration(socket, input.generation))
  )
