/**
 * Safety tiers: readonly < mutating < destructive. LIBTMUX_SAFETY enables every tool up to its
 * level; tools above it are hidden from tools/list and denied if called anyway.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type SafetyLevel, TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { Denied } from "../domain/Errors.js"

const rank: Record<SafetyLevel, number> = { readonly: 0, mutating: 1, destructive: 2 }

/** The safety level and what it allows. */
export interface PolicyShape {
  readonly safety: SafetyLevel
  readonly allows: (tier: SafetyLevel) => boolean
  /** Fails with a denial that names the tier the tool needs. */
  readonly check: (tool: { readonly name: string; readonly tier: SafetyLevel }) => Effect.Effect<void, Denied>
}

/** The safety tier: which tools are listed and allowed; `layer` takes the configuration's level. */
export class Policy extends Context.Tag("effect-tmux-mcp/Policy")<Policy, PolicyShape>() {
  static readonly layer: Layer.Layer<Policy, never, TmuxMcpConfig> = Layer.effect(
    Policy,
    Effect.map(TmuxMcpConfig, (config) => makePolicy(config.safety))
  )
}

export const makePolicy = (safety: SafetyLevel): PolicyShape => {
  const allows = (tier: SafetyLevel) => rank[tier] <= rank[safety]
  return {
    safety,
    allows,
    check: (tool) =>
      allows(tool.tier)
        ? Effect.void
        : Effect.fail(
          new Denied({
            kind: "tier",
            reason: `${tool.name} is a ${tool.tier} tool and this server runs at the ${safety} safety level.`,
            requiredTier: tool.tier
          })
        )
  }
}
