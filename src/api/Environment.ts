/**
 * tmux's environments, global or one session's: set and unset variables for the processes tmux
 * starts later, and show them with exact values, bounded.
 */
export {
  DEFAULT_ENVIRONMENT_MAX_BYTES,
  EnvironmentListing,
  EnvironmentSet,
  type EnvironmentTarget,
  EnvironmentUnset,
  MAX_ENVIRONMENT_VALUE_BYTES,
  setEnvironment,
  showEnvironment,
  unsetEnvironment
} from "../operations/environment/Environment.js"
