/**
 * Reading the session / window / pane tree, each call one tmux round trip whatever the number of
 * objects: lists (with the server's identity) and single objects by id, name or the caller's pane.
 */
export {
  getPane,
  getPaneWindow,
  getSession,
  getWindow,
  type Listing,
  listPanes,
  listSessions,
  listWindows,
  type SessionTarget,
  type TreeScope
} from "../operations/hierarchy/Hierarchy.js"
export { MAX_VARIABLES, readVariables, VARIABLE_NAME } from "../operations/hierarchy/Variables.js"
