/** Session read tools. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSocket } from "../context/SocketResolver.js"
import { InvalidInput } from "../domain/Errors.js"
import { SessionId } from "../domain/Ids.js"
import { Session } from "../domain/Model.js"
import { paginate } from "../operations/bounds/Paging.js"
import { projected, SESSION_FIELDS, SESSION_KEY, type SessionField } from "../operations/hierarchy/Fields.js"
import { getSession, listSessionFields } from "../operations/hierarchy/Hierarchy.js"
import { callerPaneId } from "./internal/CallerTarget.js"
import { fieldsArgument, fieldsOf } from "./internal/Fields.js"
import { Page, pageArguments } from "./internal/Paging.js"
import { itemFilterOf, whereArgument } from "./internal/Where.js"
import { defineTool, optional, socketArguments } from "./Tool.js"

/** What list_sessions returns per session unless asked (not the creation time or active ids). */
export const DEFAULT_SESSION_FIELDS: ReadonlyArray<SessionField> = ["session_id", "session_name", "window_count", "session_attached"]

export const listSessionsTool = defineTool({
  name: "list_sessions",
  title: "List tmux Sessions",
  description: "Sessions of the server, paged. no_server when none runs.",
  tier: "readonly",
  group: "read",
  hints: { idempotent: true },
  input: Schema.Struct({
    fields: fieldsArgument(SESSION_FIELDS, DEFAULT_SESSION_FIELDS),
    where: whereArgument(Session.fields),
    ...socketArguments,
    ...pageArguments
  }),
  output: Page(projected(Session, SESSION_KEY)),
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      const fields = fieldsOf(input.fields, SESSION_FIELDS, SESSION_KEY, DEFAULT_SESSION_FIELDS)
      const { items } = yield* listSessionFields(socket, fields, itemFilterOf(input.where))
      return paginate(items, input)
    })
})

export const getSessionInfoTool = defineTool({
  name: "get_session_info",
  title: "Get tmux Session Info",
  description: "One session by id or exact name; default the caller's own.",
  tier: "readonly",
  group: "read",
  hints: { idempotent: true },
  input: Schema.Struct({
    session_id: optional(SessionId),
    session_name: optional(Schema.String),
    ...socketArguments
  }),
  output: Session,
  handler: (input) =>
    Effect.gen(function*() {
      const socket = yield* resolveSocket(input)
      if (input.session_id !== undefined && input.session_name !== undefined) {
        return yield* Effect.fail(new InvalidInput({ reason: "Pass session_id or session_name, not both." }))
      }
      if (input.session_id !== undefined) return yield* getSession(socket, { session_id: input.session_id })
      if (input.session_name !== undefined) return yield* getSession(socket, { session_name: input.session_name })
      return yield* getSession(socket, { pane_id: yield* callerPaneId(socket, "session_id") })
    })
})
