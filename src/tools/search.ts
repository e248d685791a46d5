/** Searching pane text across a server, a session or a window: search_panes. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { InvalidInput } from "../domain/Errors.js"
import { SessionId, WindowId } from "../domain/Ids.js"
import { PANE_FIELDS, PANE_KEY, type PaneField } from "../operations/hierarchy/Fields.js"
import {
  DEFAULT_HISTORY_LINES,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_MATCHES_PER_PANE,
  DEFAULT_MAX_PANES,
  MAX_HISTORY_LINES,
  MAX_HISTORY_ROWS,
  MAX_MATCHES_PER_PANE,
  MAX_MAX_BYTES,
  MAX_MAX_PANES,
  MIN_MAX_BYTES,
  searchPanes,
  SearchResult
} from "../operations/watching/Search.js"
import { patternArguments } from "./internal/Arguments.js"
import { fieldsArgument, fieldsOf } from "./internal/Fields.js"
import { pageArguments } from "./internal/Paging.js"
import { type AnyTool, defineTool, Int, optional, socketArguments } from "./Tool.js"

/** What search_panes says of each pane with matches unless asked: which pane, where, what runs there. */
export const DEFAULT_SEARCH_PANE_FIELDS: ReadonlyArray<PaneField> = ["pane_id", "session_id", "window_id", "command", "is_caller"]

export const searchPanesTool = defineTool({
  name: "search_panes",
  title: "Search tmux Panes",
  description:
    "Finds text on the screens and scrollback of panes (of the server, a session or a window); matches carry capture_pane line numbers.",
  tier: "readonly",
  group: "read",
  hints: { idempotent: true },
  input: Schema.Struct({
    patterns: Schema.Array(Schema.String),
    ...patternArguments,
    session_id: optional(SessionId),
    window_id: optional(WindowId),
    history_lines: optional(
      Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: MAX_HISTORY_LINES }))),
      `Default ${DEFAULT_HISTORY_LINES}.`
    ),
    offset: pageArguments.offset,
    max_panes: optional(
      Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: MAX_MAX_PANES }))),
      `Default ${DEFAULT_MAX_PANES}.`
    ),
    max_matches_per_pane: optional(
      Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: MAX_MATCHES_PER_PANE }))),
      `Default ${DEFAULT_MAX_MATCHES_PER_PANE}.`
    ),
    max_bytes: optional(
      Int.pipe(Schema.check(Schema.isBetween({ minimum: MIN_MAX_BYTES, maximum: MAX_MAX_BYTES }))),
      `Default ${DEFAULT_MAX_BYTES}.`
    ),
    fields: fieldsArgument(PANE_FIELDS, DEFAULT_SEARCH_PANE_FIELDS, "list_panes"),
    ...socketArguments
  }),
  output: SearchResult,
  handler: (input) =>
    Effect.gen(function*() {
      if (input.session_id !== undefined && input.window_id !== undefined) {
        return yield* Effect.fail(
          new InvalidInput({ reason: "Pass session_id or window_id, not both (neither searches the whole server)." })
        )
      }
      const historyLines = input.history_lines ?? DEFAULT_HISTORY_LINES
      const maxPanes = input.max_panes ?? DEFAULT_MAX_PANES
      if (historyLines * maxPanes > MAX_HISTORY_ROWS) {
        return yield* Effect.fail(
          new InvalidInput({
            reason:
              `history_lines (${historyLines}) x max_panes (${maxPanes}) is more than ${MAX_HISTORY_ROWS} lines; lower one of them (page through panes with offset).`
          })
        )
      }
      const socket = yield* resolveSocket(input)
      return yield* searchPanes(socket, {
        scope: { session_id: input.session_id, window_id: input.window_id },
        fields: fieldsOf(input.fields, PANE_FIELDS, PANE_KEY, DEFAULT_SEARCH_PANE_FIELDS),
        patterns: { patterns: input.patterns, regex: input.regex, ignoreCase: input.ignore_case },
        historyLines,
        offset: input.offset ?? 0,
        maxPanes,
        maxMatchesPerPane: input.max_matches_per_pane ?? DEFAULT_MAX_MATCHES_PER_PANE,
        maxBytes: input.max_bytes ?? DEFAULT_MAX_BYTES
      })
    })
})

export const searchTools: ReadonlyArray<AnyTool> = [searchPanesTool]
