/**
 * Valid arguments for every tool of the registry, aimed at the objects of a one-session world
 * (session `main` = `$0` with window `@0` and panes `%0` and `%1`, a buffer `b`). For sweeps that
 * must reach tmux with every tool: a test compares the keys with the registry, so a new tool needs
 * an entry here.
 */
type Args = Record<string, unknown>

export const validCallsOfEveryTool = (handle: string): Record<string, ReadonlyArray<Args>> => ({
  where_am_i: [{}],
  list_servers: [{}],
  get_server_info: [{}],
  run_batch: [{ operations: [{ tool: "list_panes" }, { tool: "capture_pane", arguments: { pane_id: "%0" } }] }],
  start_server: [{}],
  kill_server: [{}],
  list_sessions: [{}, { where: { session_name: "main" } }],
  get_session_info: [{ session_id: "$0" }, { session_name: "main" }],
  list_windows: [{}, { session_id: "$0" }, { where: { window_name: "^.", regex: true } }],
  get_window_info: [{ window_id: "@0" }],
  list_panes: [{}, { window_id: "@0" }, { where: { command: "sh", active: true } }, { where: { right_of: "%0" } }],
  get_pane_info: [{ pane_id: "%0" }, { pane_id: "%0", variables: ["pane_tty", "client_termname"] }],
  capture_pane: [{ pane_id: "%0" }],
  snapshot_pane: [{ pane_id: "%0" }],
  capture_since: [{ pane_id: "%0" }],
  wait_for_text: [{ pane_id: "%0", patterns: ["x"], timeout: 1 }],
  search_panes: [{ patterns: ["x"] }],
  create_session: [{ session_name: "x" }],
  create_window: [{ session_id: "$0" }],
  split_window: [{ pane_id: "%0" }],
  respawn_pane: [{ pane_id: "%0" }],
  kill_session: [{ session_id: "$0" }],
  kill_window: [{ window_id: "@0" }],
  kill_pane: [{ pane_id: "%0" }],
  send_keys: [{ pane_id: "%0", keys: "x" }],
  send_keys_batch: [{ pane_id: "%0", operations: [{ keys: "x" }] }],
  paste_text: [{ pane_id: "%0", text: "x" }],
  clear_pane: [{ pane_id: "%0" }, { pane_id: "%0", screen: true }],
  run_command: [{ pane_id: "%0", command: "true" }],
  wait_for_command: [{ handle, timeout: 1 }],
  set_environment: [{ global: true, name: "A", value: "b" }],
  unset_environment: [{ session_id: "$0", name: "A" }],
  show_environment: [{ global: true }, { session_id: "$0", name: "PATH" }],
  show_options: [{ scope: "pane", target: "%0" }, { scope: "session", global: true, name: "mouse" }, {
    scope: "window",
    target: "@0",
    hooks: true
  }],
  set_option: [{ name: "mode-keys", value: "vi", target: "@0" }, { name: "mouse", unset: true, global: true }],
  rename_session: [{ session_id: "$0", name: "x" }],
  rename_window: [{ window_id: "@0", name: "x" }],
  select_window: [{ window_id: "@0" }],
  select_pane: [{ pane_id: "%0" }],
  select_layout: [{ window_id: "@0", layout: "tiled" }],
  resize_pane: [{ pane_id: "%0", zoom: true }],
  resize_window: [{ window_id: "@0", width: 60 }],
  swap_pane: [{ source_pane_id: "%0", target_pane_id: "%1" }],
  move_window: [{ window_id: "@0", session_id: "$0", index: 5 }],
  set_pane_title: [{ pane_id: "%0", title: "x" }],
  list_buffers: [{}],
  load_buffer: [{ name: "b", text: "x" }],
  show_buffer: [{ name: "b" }],
  paste_buffer: [{ name: "b", pane_id: "%0" }],
  delete_buffer: [{ name: "b" }],
  wait_for_channel: [{ channel: "c", timeout: 1 }],
  signal_channel: [{ channel: "c" }]
})
