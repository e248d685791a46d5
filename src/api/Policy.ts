/** The safety tier (readonly < mutating < destructive): which tools are listed and allowed. */
import type * as Layer from "effect/Layer"
import type { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { Policy } from "../services/Policy.js"

export { Policy, type PolicyShape } from "../services/Policy.js"

/** The policy of the configuration's safety level. */
export const layer: Layer.Layer<Policy, never, TmuxMcpConfig> = Policy.layer
