/** What a pane printed since a cursor from an earlier call, bounded; says `missed` when that cannot be told for sure. */
export { CapturedSince, captureSince, type CaptureSinceOptions } from "../operations/watching/PaneCursor.js"
