/**
 * Projections of the tree's listings: the fields of a session, window or pane a listing can return,
 * and the record codec that asks tmux for only what those fields need. A field tmux computes per
 * pane from /proc (`pane_current_command`, `pane_current_path`) costs tmux as much again as all the
 * others at 500 panes, so a listing that does not return it does not ask for it.
 */
import * as Schema from "effect/Schema"
import { PaneDetail, Session, Window } from "../../domain/Model.js"
import * as Format from "../../tmux/Format.js"
import { paneFields, sessionFields, windowFields } from "../../tmux/Records.js"
import { PLACEMENT_FIELDS, PLACEMENT_SOURCES } from "./Placements.js"

/** A pane's fields include its placements, made from a list of window links asked for only with them. */
export type PaneField = keyof typeof PaneDetail.fields
export type WindowField = keyof typeof Window.fields
export type SessionField = keyof typeof Session.fields

/** Every field, in the models' order (the order of a projection's keys). */
export const PANE_FIELDS = Object.keys(PaneDetail.fields) as ReadonlyArray<PaneField>
export const WINDOW_FIELDS = Object.keys(Window.fields) as ReadonlyArray<WindowField>
export const SESSION_FIELDS = Object.keys(Session.fields) as ReadonlyArray<SessionField>

/** What identifies an item, returned whatever the projection (a window link is a window in a session). */
export const PANE_KEY: ReadonlyArray<PaneField> = ["pane_id"]
export const WINDOW_KEY: ReadonlyArray<WindowField> = ["window_id", "session_id"]
export const SESSION_KEY: ReadonlyArray<SessionField> = ["session_id"]

/** A listed item with the fields asked for (and its key, always). */
export type Projected<A> = Partial<A>

/** The requested fields plus the key, deduplicated, in the model's order. */
export const withKey = <K extends string>(all: ReadonlyArray<K>, key: ReadonlyArray<K>, fields: ReadonlyArray<K>): Array<K> =>
  all.filter((field) => key.includes(field) || fields.includes(field))

/** The item with only these fields, in this order. */
export const project = <A extends object>(item: A, fields: ReadonlyArray<string>): Projected<A> => {
  const projected: Record<string, unknown> = {}
  for (const field of fields) if (field in item) projected[field] = (item as Record<string, unknown>)[field]
  return projected as Projected<A>
}

/** The model's struct with every field but the key optional: an item of a projected listing. */
export const projected = <F extends Schema.Struct.Fields>(
  model: Schema.Struct<F>,
  key: ReadonlyArray<keyof F>
): Schema.Struct<{ [P in keyof F]: Schema.optionalKey<F[P]> }> =>
  Schema.Struct(
    Object.fromEntries(
      Object.entries(model.fields).map(([name, field]) => [
        name,
        key.includes(name) ? field : Schema.optionalKey(field)
      ])
    )
  ) as never

/** A codec for the record fields named, in the table's order, under the table's usual tag. */
const codecOf = <F extends Format.Fields>(tag: string, table: F, needed: ReadonlySet<string>) =>
  Format.record(tag, Object.fromEntries(Object.entries(table).filter(([name]) => needed.has(name))) as Partial<F> as F)

/**
 * The pane record for these fields: `is_caller` needs only the id; `is_attended` needs the window,
 * whether the pane is its active one and whether the window is zoomed; the placements need the
 * pane's own link (and `placementsCommand`'s list).
 */
export const paneCodec = (fields: ReadonlyArray<PaneField>) => {
  const needed = new Set<string>(["pane_id"])
  for (const field of fields) {
    if (field === "is_attended") { for (const source of ["window_id", "active", "window_zoomed"]) needed.add(source) }
    else if (PLACEMENT_FIELDS.includes(field)) { for (const source of PLACEMENT_SOURCES) needed.add(source) }
    else if (field !== "is_caller") needed.add(field)
  }
  return codecOf("pan", paneFields, needed)
}

/** Whether these fields need `placementsCommand`'s list of window links. */
export const needsPlacements = (fields: ReadonlyArray<PaneField>): boolean => fields.some((field) => PLACEMENT_FIELDS.includes(field))

export const windowCodec = (fields: ReadonlyArray<WindowField>) => codecOf("win", windowFields, new Set([...WINDOW_KEY, ...fields]))

export const sessionCodec = (fields: ReadonlyArray<SessionField>) => codecOf("ses", sessionFields, new Set([...SESSION_KEY, ...fields]))
