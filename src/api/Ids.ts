/** tmux's object ids, as schemas: pane `%N`, window `@N`, session `$N`. */
export { PaneId, SessionId, WindowId } from "../domain/Ids.js"
