/**
 * The record codecs the operations ask tmux for. Plain `#{variable}` references only: no
 * conditionals and no `#(...)`, so nothing in a format can run a command.
 */
import * as Format from "./Format.js"

/** The server answering: works on a server with no sessions, never starts one (callers pass -N). */
export const serverRecord = Format.record("srv", {
  pid: Format.int("pid"),
  start_time: Format.int("start_time"),
  version: Format.string("version"),
  socket_path: Format.string("socket_path")
})

/**
 * In session context `window_id`/`pane_id` are the session's current window and its active pane.
 * The field tables are exported so that a listing can ask for only the fields it returns.
 */
export const sessionFields = {
  session_id: Format.string("session_id"),
  session_name: Format.string("session_name"),
  window_count: Format.int("session_windows"),
  session_attached: Format.int("session_attached"),
  session_created: Format.int("session_created"),
  active_window_id: Format.string("window_id"),
  active_pane_id: Format.string("pane_id")
}
export const sessionRecord = Format.record("ses", sessionFields)

export const windowFields = {
  window_id: Format.string("window_id"),
  window_name: Format.string("window_name"),
  window_index: Format.int("window_index"),
  session_id: Format.string("session_id"),
  session_name: Format.string("session_name"),
  pane_count: Format.int("window_panes"),
  active: Format.bool("window_active"),
  zoomed: Format.bool("window_zoomed_flag"),
  width: Format.int("window_width"),
  height: Format.int("window_height"),
  layout: Format.string("window_layout"),
  active_pane_id: Format.string("pane_id")
}
export const windowRecord = Format.record("win", windowFields)

export const paneFields = {
  pane_id: Format.string("pane_id"),
  pane_index: Format.int("pane_index"),
  window_id: Format.string("window_id"),
  window_index: Format.int("window_index"),
  window_name: Format.string("window_name"),
  session_id: Format.string("session_id"),
  session_name: Format.string("session_name"),
  active: Format.bool("pane_active"),
  width: Format.int("pane_width"),
  height: Format.int("pane_height"),
  left: Format.int("pane_left"),
  top: Format.int("pane_top"),
  command: Format.string("pane_current_command"),
  cwd: Format.string("pane_current_path"),
  pid: Format.nullableInt("pane_pid"),
  title: Format.string("pane_title"),
  dead: Format.bool("pane_dead"),
  in_mode: Format.bool("pane_in_mode"),
  window_zoomed: Format.bool("window_zoomed_flag")
}
export const paneRecord = Format.record("pan", paneFields)

/** In client context `window_id`/`pane_id` are what the client shows. */
export const clientRecord = Format.record("cli", {
  flags: Format.string("client_flags"),
  session_id: Format.string("session_id"),
  window_id: Format.string("window_id"),
  pane_id: Format.string("pane_id")
})

/** Only the ids, for counting objects cheaply. */
export const paneIdsRecord = Format.record("ids", {
  session_id: Format.string("session_id"),
  window_id: Format.string("window_id"),
  pane_id: Format.string("pane_id")
})

/** Only the session id, to tell an empty server from a failing command. */
export const sessionIdRecord = Format.record("sid", { session_id: Format.string("session_id") })

/** Where a window is linked: one record per session holding it. */
export const placementRecord = Format.record("plc", {
  window_id: Format.string("window_id"),
  session_id: Format.string("session_id"),
  session_name: Format.string("session_name"),
  window_index: Format.int("window_index")
})
