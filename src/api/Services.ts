/**
 * One layer for a program that embeds the library: every service the operations (and `callTool`)
 * run on, built from the settings the server itself reads, the `LIBTMUX_*` variables and flags.
 * A test swaps the tmux transport for `FakeTmux.layer(world)` from `effect-tmux-mcp/testing`.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type ConfigError, type ConfigFlags, loadConfig, type TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { Audit } from "../services/Audit.js"
import { type LiveServices, ServerLive } from "../services/ServerLive.js"
import type { Tmux } from "../tmux/Tmux.js"

export type { LiveServices } from "../services/ServerLive.js"

/** Where the services come from; every field is optional. */
export interface Settings<Extra = never> {
  /** The environment the settings and the caller's pane (`TMUX`, `TMUX_PANE`) are read from; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Values as the CLI's flags would give them; default none. */
  readonly flags?: ConfigFlags
  /** The tmux transport; default the one the settings name (the socket protocol unless `LIBTMUX_MCP_TRANSPORT=exec`). */
  readonly tmux?: Layer.Layer<Tmux | Extra, never, TmuxMcpConfig>
  /** Where `callTool` records its calls; default nowhere (the server's default is one JSON line per call on stderr). */
  readonly audit?: Layer.Layer<Audit>
}

/**
 * The services from `settings`; fails with `ConfigError` (its message says which setting is wrong)
 * when the environment or flags hold an invalid value. Sessions the program creates as owned are
 * killed when the layer is released.
 */
export const layer = <Extra = never>(settings: Settings<Extra> = {}): Layer.Layer<LiveServices | Extra, ConfigError> =>
  Layer.unwrap(
    Effect.map(
      Effect.fromResult(loadConfig({ env: settings.env ?? process.env, flags: settings.flags ?? {}, uid: process.getuid?.() ?? 0 })),
      (config) =>
        ServerLive.layer<Extra>(config, {
          audit: settings.audit ?? Audit.silent,
          ...(settings.tmux === undefined ? {} : { tmux: settings.tmux })
        })
    )
  )
