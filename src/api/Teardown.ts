/**
 * Killing sessions, windows and panes by id, reporting what closed with them; the caller's own
 * session, window and pane are refused.
 */
export { killPane, killSession, killWindow, type TeardownKind, type TeardownOptions } from "../operations/lifecycle/Teardown.js"
