/**
 * The sessions this process created as owned (`create_session` with `owned: true`): marked in tmux
 * and killed when the layer is released, so a program's scratch sessions end with it.
 */
import type * as Layer from "effect/Layer"
import { Ownership } from "../services/Ownership.js"
import type { Tmux } from "../tmux/Tmux.js"

export { Ownership, type OwnershipShape } from "../services/Ownership.js"

/** Ownership that kills the owned sessions still marked as this process's when its scope closes. */
export const layer: Layer.Layer<Ownership, never, Tmux> = Ownership.layer
