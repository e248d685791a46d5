/** The timeout a waiting operation takes: a request clamped to the configured ceiling, and said so. */
export { type EffectiveTimeout, effectiveTimeout } from "../operations/bounds/Waiting.js"
