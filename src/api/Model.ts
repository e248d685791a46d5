/**
 * The domain models the operations return, as schemas (each name is the schema and its type):
 * sessions, windows, panes, servers, captures, where the caller is, and what a kill closed.
 */
export {
  CallerStatus,
  Capture,
  ClosedSession,
  ClosedWindow,
  Generation,
  LiveServer,
  Pane,
  PaneDetail,
  PanePlacement,
  ServerIdentity,
  ServerInfo,
  Session,
  Teardown,
  UnresponsiveSocket,
  WhereAmI,
  Window
} from "../domain/Model.js"
