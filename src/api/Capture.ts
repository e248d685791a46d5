/** What a pane shows, the screen or a history range, keeping the newest lines when it is too long. */
export { type CaptureLine, type CaptureOptions, capturePane } from "../operations/watching/Capture.js"
