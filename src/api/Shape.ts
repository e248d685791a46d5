/**
 * Changing names and arrangement: rename sessions and windows, retitle panes, select windows, panes
 * and layouts, resize and zoom, swap panes, move windows. Names are stored literally (`#(…)` never runs).
 */
export {
  isLayout,
  LAYOUT_NAMES,
  MovedWindow,
  moveWindow,
  type PaneDirection,
  type PaneSelection,
  type PaneSize,
  renameSession,
  renameWindow,
  ResizedPane,
  resizePane,
  resizeWindow,
  selectLayout,
  selectPane,
  selectWindow,
  setPaneTitle,
  swapPanes,
  SwappedPanes,
  type WindowDirection,
  type WindowSelection,
  zoomPane
} from "../operations/layout/Shape.js"
