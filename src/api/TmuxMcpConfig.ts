/**
 * The settings every service reads: `loadConfig` validates them from the environment (the
 * `LIBTMUX_*` variables) and flags, and `layer` provides the `TmuxMcpConfig` service.
 */
import type * as Layer from "effect/Layer"
import { TmuxMcpConfig, type TmuxMcpConfigShape } from "../context/TmuxMcpConfig.js"

export {
  ConfigError,
  type ConfigFlags,
  type ConfigSources,
  loadConfig,
  SAFETY_LEVELS,
  type SafetyLevel,
  TmuxMcpConfig,
  type TmuxMcpConfigShape,
  type Transport,
  TRANSPORTS
} from "../context/TmuxMcpConfig.js"

/** Provides `TmuxMcpConfig` with the given settings (from `loadConfig`). */
export const layer: (config: TmuxMcpConfigShape) => Layer.Layer<TmuxMcpConfig> = TmuxMcpConfig.layer
