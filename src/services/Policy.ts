/**
 * Safety tiers: readonly < mutating < destructive. LIBTMUX_SAFETY enables every tool up to its
 * level; tools above it are hidden from tools/list and denied if called anyway. A host of the hosts
 * file may cap it lower (its "safety"): a tool above that cap is denied on that host.
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
export class Policy extends Context.Service<Policy, PolicyShape>()("effect-tmux-mcp/Policy") {
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

/**
 * The cap of `host` (the hosts file's "safety", below the server's level): a tool above it is
 * denied there. Checked for the host a call names, and for the host a call reaches through what it
 * was given (wait_for_command's handle names its host, the call none).
 */
export const checkHostCap = (
  tool: { readonly name: string; readonly tier: SafetyLevel },
  host: string
): Effect.Effect<void, Denied, TmuxMcpConfig> =>
  Effect.flatMap(TmuxMcpConfig, (config) => {
    const cap = config.hosts?.hosts.find((entry) => entry.name === host)?.safety
    if (cap === undefined || rank[tool.tier] <= rank[cap]) return Effect.void
    return Effect.fail(
      new Denied({
        kind: "host_safety",
        reason: `${tool.name} is a ${tool.tier} tool and host ${host} allows ${cap} tools only (the hosts file's "safety").`
      })
    )
  })
