/**
 * A pane's placements: the session and window index through which its window is reachable. A
 * window linked into several sessions (link-window) has one per session, otherwise exactly one,
 * the pane's own row. So only the links of linked windows are listed (`-f '#{window_linked}'`,
 * usually none): 0.3 ms of tmux's time at 500 windows where every link cost 1.6 ms.
 */
import { byNumericId } from "../../domain/Ids.js"
import type { PanePlacement } from "../../domain/Model.js"
import type * as Format from "../../tmux/Format.js"
import { placementRecord } from "../../tmux/Records.js"
import type { TmuxCommand } from "../../tmux/Tmux.js"

/** At most this many placements are returned per pane (a window is rarely linked more often). */
export const MAX_PLACEMENTS = 16

/** A session name in a placement is cut to this many characters (names are anyone's, of any length), `…` saying so. */
export const MAX_PLACEMENT_NAME_CHARS = 128

/** The pane fields made from the placements (the rest are tmux's). */
export const PLACEMENT_FIELDS: ReadonlyArray<string> = ["placements", "placements_complete"]

/** The pane record fields a pane's own placement is read from. */
export const PLACEMENT_SOURCES = ["window_id", "session_id", "session_name", "window_index"] as const

/**
 * Lists the links of every window linked into more than one session; put it in the same command
 * list as the pane rows. On a server that may have no session, wrap it in `whenSessionsExist`.
 */
export const placementsCommand = (marks: Format.Marks): TmuxCommand => [
  "list-windows",
  "-a",
  "-f",
  "#{window_linked}",
  "-F",
  placementRecord.format(marks)
]

/** A window's link into a session: a row of `placementsCommand`, or a pane's own, as its pane row says it. */
export interface WindowLink {
  readonly window_id: string
  readonly session_id: string
  readonly session_name: string
  readonly window_index: number
}

const cutName = (name: string): string => {
  const characters = Array.from(name)
  return characters.length <= MAX_PLACEMENT_NAME_CHARS ? name : `${characters.slice(0, MAX_PLACEMENT_NAME_CHARS).join("")}…`
}

const placementOf = (link: WindowLink): PanePlacement => ({
  session_id: link.session_id,
  session_name: cutName(link.session_name),
  window_index: link.window_index
})

/** Indexes the links by window, to place many panes. */
export const linksByWindow = (links: ReadonlyArray<WindowLink>): ReadonlyMap<string, ReadonlyArray<WindowLink>> => {
  const byWindow = new Map<string, Array<WindowLink>>()
  for (const link of links) {
    const list = byWindow.get(link.window_id)
    if (list === undefined) byWindow.set(link.window_id, [link])
    else list.push(link)
  }
  return byWindow
}

/**
 * The placements of a pane, in session-id then index order, at most MAX_PLACEMENTS, and whether
 * that is all of them. A window not in the links is linked only where its pane row says.
 */
export const placementsOf = (
  pane: WindowLink,
  links: ReadonlyMap<string, ReadonlyArray<WindowLink>>
): { readonly placements: ReadonlyArray<PanePlacement>; readonly placements_complete: boolean } => {
  const all: ReadonlyArray<WindowLink> = links.get(pane.window_id) ?? [pane]
  const sorted = [...all].sort((a, b) => byNumericId("session_id")(a, b) || a.window_index - b.window_index)
  return {
    placements: sorted.slice(0, MAX_PLACEMENTS).map(placementOf),
    placements_complete: sorted.length <= MAX_PLACEMENTS
  }
}
