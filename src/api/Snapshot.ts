/** A pane's visible text with its cursor, modes, size and process, in one round trip. */
export { PaneSnapshot, snapshotPane } from "../operations/watching/Snapshot.js"
