/**
 * The commands that reshape: select-window (and next-, previous-, last-window), select-pane (by
 * id, by direction, -l, -T), last-pane, select-layout (presets and layout strings), resize-pane
 * (-x, -y, -Z), resize-window (-x, -y), swap-pane and move-window.
 */
import type { FakePane, FakeSession, FakeWindow } from "../../FakeWorld.js"
import { type Arguments, has, number, value } from "../Arguments.js"
import { activatePane, mostRecentlyActive, selectWinlink, unlinkWinlink } from "../Changes.js"
import { type CommandEntry, done, failed, type Invocation, type Outcome, unmodelled } from "../Command.js"
import { FormatError, tryExpand } from "../Formats.js"
import { applyLayoutString, applyPreset, presetNamed, refreshLayout, reinstall, resizeCell, resizeLayout, swapCells } from "../Layout.js"
import type { Found } from "../Targets.js"
import { windowOptions, winlinksOf } from "../World.js"

const unzoom = (window: FakeWindow): void => {
  if (!window.zoomed) return
  window.zoomed = false
  refreshLayout(window)
}

const refuse = (command: string, args: Arguments, flags: string): Outcome | undefined => {
  for (const flag of flags) if (has(args, flag)) return unmodelled(command, `-${flag}`)
  return undefined
}

/** The window after (step 1) or before (-1) the current one, wrapping; undefined when it is the only one. */
const neighbourWindow = (session: FakeSession, step: 1 | -1): number | undefined => {
  const links = winlinksOf(session)
  const at = links.findIndex((w) => w.index === session.current)
  const next = links[(at + step + links.length) % links.length]!
  return next.index === session.current ? undefined : next.index
}

const stepWindow = (session: FakeSession, how: "next" | "previous" | "last"): Outcome => {
  const index = how === "last" ? session.last : neighbourWindow(session, how === "next" ? 1 : -1)
  if (index === undefined || !session.winlinks.some((w) => w.index === index)) return failed(`no ${how} window`)
  selectWinlink(session, index)
  return done
}

const selectWindow: CommandEntry = {
  name: "select-window",
  alias: "selectw",
  template: "lnpTt:",
  lower: 0,
  upper: 0,
  target: { flag: "t", kind: "window" },
  run: (_invocation, args, { target }) => {
    const refused = refuse("select-window", args, "T")
    if (refused !== undefined) return refused
    const { session, winlink } = target as Found
    if (has(args, "l")) return stepWindow(session, "last")
    if (has(args, "n")) return stepWindow(session, "next")
    if (has(args, "p")) return stepWindow(session, "previous")
    selectWinlink(session, winlink.index)
    return done
  }
}

const windowStep = (
  name: "next-window" | "previous-window" | "last-window",
  alias: string,
  how: "next" | "previous" | "last"
): CommandEntry => ({
  name,
  alias,
  template: how === "last" ? "t:" : "at:",
  lower: 0,
  upper: 0,
  target: { flag: "t", kind: "session" },
  run: (_invocation, args, { target }) => refuse(name, args, "a") ?? stepWindow((target as Found).session, how)
})

type PaneDirection = "U" | "D" | "L" | "R"

/** The pane next to `pane` in a direction, wrapping at the window's edge (window_pane_find_up and friends). */
const paneTowards = (window: FakeWindow, pane: FakePane, direction: PaneDirection): FakePane | undefined => {
  const vertical = direction === "U" || direction === "D"
  const overlaps = (other: FakePane) =>
    vertical
      ? !(other.left + other.width < pane.left || other.left > pane.left + pane.width)
      : !(other.top + other.height < pane.top || other.top > pane.top + pane.height)
  const candidates = window.panes.filter((other) => {
    if (other === pane || !overlaps(other)) return false
    switch (direction) {
      case "U":
        return other.top + other.height + 1 === (pane.top === 0 ? window.height + 1 : pane.top)
      case "D": {
        const edge = pane.top + pane.height + 1
        return other.top === (edge >= window.height ? 0 : edge)
      }
      case "L":
        return other.left + other.width + 1 === (pane.left === 0 ? window.width + 1 : pane.left)
      case "R": {
        const edge = pane.left + pane.width + 1
        return other.left === (edge >= window.width ? 0 : edge)
      }
    }
  })
  return mostRecentlyActive(window, candidates)
}

const lastPaneOf = (window: FakeWindow): Outcome => {
  const active = window.panes.findIndex((p) => p.id === window.activePane)
  // Without a last pane, a window of two panes takes the other one (tmux 3.3a).
  const last = window.panes.find((p) => p.id === window.lastPane) ??
    (window.panes.length === 2 ? (window.panes[active - 1] ?? window.panes[active + 1]) : undefined)
  if (last === undefined) return failed("no last pane")
  unzoom(window)
  activatePane(window, last.id)
  return done
}

/** A pane title as tmux stores it: formats expanded; a title holding a control character is ignored. */
const setTitle = (invocation: Invocation, found: Found, title: string): Outcome => {
  const expanded = tryExpand(title, {
    server: invocation.server,
    path: invocation.path,
    session: found.session,
    winlink: found.winlink,
    pane: found.pane
  })
  if (expanded instanceof FormatError) return failed(expanded.message)
  // eslint-disable-next-line no-control-regex
  if (!/[\u0000-\u001f\u007f]/.test(expanded)) found.pane.title = expanded
  return done
}

const selectPane: CommandEntry = {
  name: "select-pane",
  alias: "selectp",
  template: "DdegLlMmP:RT:t:UZ",
  lower: 0,
  upper: 0,
  target: { flag: "t", kind: "pane" },
  run: (invocation, args, { target }) => {
    const refused = refuse("select-pane", args, "degMmPZ")
    if (refused !== undefined) return refused
    const found = target as Found
    const { window, pane } = found
    if (has(args, "T")) return setTitle(invocation, found, value(args, "T") ?? "")
    if (has(args, "l")) return lastPaneOf(window)
    const direction = (["U", "D", "L", "R"] as const).find((d) => has(args, d))
    const chosen = direction === undefined ? pane : paneTowards(window, pane, direction)
    // No pane that way: nothing changes, and no error (tmux 3.3a).
    if (chosen === undefined) return done
    unzoom(window)
    activatePane(window, chosen.id)
    return done
  }
}

const lastPane: CommandEntry = {
  name: "last-pane",
  alias: "lastp",
  template: "det:Z",
  lower: 0,
  upper: 0,
  target: { flag: "t", kind: "window" },
  run: (_invocation, args, { target }) => refuse("last-pane", args, "deZ") ?? lastPaneOf((target as Found).window)
}

const selectLayout: CommandEntry = {
  name: "select-layout",
  alias: "selectl",
  template: "Enopt:",
  lower: 0,
  upper: 1,
  target: { flag: "t", kind: "pane" },
  run: (_invocation, args, { target }) => {
    const refused = refuse("select-layout", args, "Enop")
    if (refused !== undefined) return refused
    const layout = args.values[0]
    if (layout === undefined) return unmodelled("select-layout", "without a layout (the last one used)")
    const { window } = target as Found
    unzoom(window)
    const preset = presetNamed(layout)
    if (preset !== undefined) {
      applyPreset(window, preset)
      return done
    }
    const cause = applyLayoutString(window, layout)
    return cause === undefined ? done : failed(`${cause}: ${layout}`)
  }
}

/** -x / -y as resize-pane and resize-window read them. */
const dimension = (args: Arguments, flag: "x" | "y", min: number, max: number): number | undefined | { readonly error: string } => {
  const given = value(args, flag)
  if (given === undefined) return undefined
  const n = number(given, min, max)
  return typeof n === "number" ? n : { error: `${flag === "x" ? "width" : "height"} ${n}` }
}

const resizePane: CommandEntry = {
  name: "resize-pane",
  alias: "resizep",
  template: "DLMRTt:Ux:y:Z",
  lower: 0,
  upper: 1,
  target: { flag: "t", kind: "pane" },
  run: (_invocation, args, { target }) => {
    const refused = refuse("resize-pane", args, "DLMRTU") ??
      (args.values.length > 0 ? unmodelled("resize-pane", "with an adjustment") : undefined)
    if (refused !== undefined) return refused
    const { window, pane } = target as Found
    if (has(args, "Z")) {
      if (window.zoomed) window.zoomed = false
      else if (window.panes.length > 1) {
        activatePane(window, pane.id)
        window.zoomed = true
      }
      refreshLayout(window)
      return done
    }
    const width = dimension(args, "x", 0, 2 ** 31 - 1)
    if (typeof width === "object") return failed(width.error)
    const height = dimension(args, "y", 0, 2 ** 31 - 1)
    if (typeof height === "object") return failed(height.error)
    unzoom(window)
    if (width !== undefined) resizeCell(window, pane.id, "leftright", width)
    if (height !== undefined) resizeCell(window, pane.id, "topbottom", height)
    return done
  }
}

const resizeWindow: CommandEntry = {
  name: "resize-window",
  alias: "resizew",
  template: "aADLRt:Ux:y:",
  lower: 0,
  upper: 1,
  target: { flag: "t", kind: "window" },
  run: (_invocation, args, { target }) => {
    const refused = refuse("resize-window", args, "aADLRU") ??
      (args.values.length > 0 ? unmodelled("resize-window", "with an adjustment") : undefined)
    if (refused !== undefined) return refused
    const { window } = target as Found
    const width = dimension(args, "x", 1, 10_000)
    if (typeof width === "object") return failed(width.error)
    const height = dimension(args, "y", 1, 10_000)
    if (typeof height === "object") return failed(height.error)
    windowOptions(window).set("window-size", "manual")
    resizeLayout(window, width ?? window.width, height ?? window.height)
    return done
  }
}

const swapPane: CommandEntry = {
  name: "swap-pane",
  alias: "swapp",
  template: "dDs:t:UZ",
  lower: 0,
  upper: 0,
  target: { flag: "t", kind: "pane" },
  source: { flag: "s", kind: "pane" },
  run: (_invocation, args, { target, source }) => {
    const refused = refuse("swap-pane", args, "DUZ") ??
      (has(args, "s") ? undefined : unmodelled("swap-pane", "without -s (the marked pane)"))
    if (refused !== undefined) return refused
    const destination = target as Found
    const origin = source as Found
    if (origin.pane === destination.pane) return done
    unzoom(origin.window)
    unzoom(destination.window)
    swapCells(origin, destination)
    const a = origin.window.panes.indexOf(origin.pane)
    const b = destination.window.panes.indexOf(destination.pane)
    origin.window.panes[a] = destination.pane
    destination.window.panes[b] = origin.pane
    reinstall(origin.window)
    reinstall(destination.window)
    if (!has(args, "d")) {
      if (origin.window !== destination.window) {
        activatePane(origin.window, destination.pane.id)
        activatePane(destination.window, origin.pane.id)
      } else activatePane(origin.window, destination.pane.id)
    } else {
      // -d: focus stays where it was on screen, so the pane that takes an active pane's place becomes active.
      const originActive = origin.window.activePane === origin.pane.id
      const destinationActive = destination.window.activePane === destination.pane.id
      if (originActive) origin.window.activePane = destination.pane.id
      if (destinationActive) destination.window.activePane = origin.pane.id
    }
    return done
  }
}

const moveWindow: CommandEntry = {
  name: "move-window",
  alias: "movew",
  template: "abdkrs:t:",
  lower: 0,
  upper: 0,
  target: { flag: "t", kind: "window-index" },
  source: { flag: "s", kind: "window" },
  run: (invocation, args, { target, source }) => {
    const refused = refuse("move-window", args, "abkr")
    if (refused !== undefined) return refused
    const from = source as Found
    const { session, index: asked } = target as Found
    if (asked !== undefined) {
      const there = session.winlinks.find((w) => w.index === asked)
      if (there?.window === from.window.id) return failed(`same index: ${asked}`)
      if (there !== undefined) return failed(`index in use: ${asked}`)
    }
    let index = asked ?? 0
    // The first free index is taken before the window leaves its old place (so a move within a session goes after it).
    if (asked === undefined) { while (session.winlinks.some((w) => w.index === index)) index++ }
    session.winlinks.push({ index, window: from.window.id })
    if (!has(args, "d")) selectWinlink(session, index)
    unlinkWinlink(invocation.server, from.session, from.winlink)
    return done
  }
}

export const shapeCommands: ReadonlyArray<CommandEntry> = [
  selectWindow,
  windowStep("next-window", "next", "next"),
  windowStep("previous-window", "prev", "previous"),
  windowStep("last-window", "last", "last"),
  selectPane,
  lastPane,
  selectLayout,
  resizePane,
  resizeWindow,
  swapPane,
  moveWindow
]
