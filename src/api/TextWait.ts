/** Waiting until new output in a pane matches a pattern (literal or time-boxed regex), a stop pattern, the timeout or the pane's end. */
export type { PatternSpec } from "../operations/bounds/TextMatcher.js"
export { type TextWaitRequest, TextWaitResult, waitForText } from "../operations/watching/TextWait.js"
