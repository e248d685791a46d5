/**
 * Reading the session / window / pane tree, each call one tmux round trip whatever the number of
 * objects: lists (with the server's identity) and single objects by id, name or the caller's pane.
 */
export {
  getPane,
  getPaneDetail,
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
export { MAX_PLACEMENT_NAME_CHARS, MAX_PLACEMENTS } from "../operations/hierarchy/Placements.js"
export { MAX_VARIABLES, readVariables, VARIABLE_NAME } from "../operations/hierarchy/Variables.js"
