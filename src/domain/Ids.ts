/**
 * tmux object ids as they appear on the wire: pane `%N`, window `@N`, session `$N`.
 * They are only unique within one tmux server instance (see `generation` for restarts).
 */
import * as Schema from "effect/Schema"

/** A pane id, `%N`. */
export const PaneId = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^%\d+$/u, {
    message: "must be a pane id such as %3",
    description: "A tmux pane id such as %3 (from list_panes or where_am_i)."
  }))
)
export type PaneId = typeof PaneId.Type

/** A window id, `@N`. */
export const WindowId = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^@\d+$/u, {
    message: "must be a window id such as @2",
    description: "A tmux window id such as @2 (from list_windows)."
  }))
)
export type WindowId = typeof WindowId.Type

/** A session id, `$N`. */
export const SessionId = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^\$\d+$/u, {
    message: "must be a session id such as $1",
    description: "A tmux session id such as $1 (from list_sessions)."
  }))
)
export type SessionId = typeof SessionId.Type

/** The number inside an id (`%12` -> 12), for sorting by creation order rather than as text. */
export const idNumber = (id: string): number => Number(id.slice(1))

/** Orders records by the numeric part of an id field, so `%2` comes before `%10`. */
export const byNumericId = <K extends string>(key: K) => (a: { readonly [P in K]: string }, b: { readonly [P in K]: string }): number =>
  idNumber(a[key]) - idNumber(b[key])
