/**
 * tmux formats as the operations write them: `#{variable}` (options too, e.g. `#{@name}`,
 * `#{exit-empty}`), `##`, `#,`, `#}`, the comparisons `#{==:a,b}` `#{!=:a,b}` `#{&&:a,b}`
 * `#{||:a,b}`, the glob match `#{m:pattern,text}`, the conditional `#{?cond,a,b}` and the loops
 * `#{S:…}` (every session, in name order), `#{W:…}` (the session's windows, in index order) and
 * `#{P:…}` (the window's panes), each with tmux's optional `,…` for the current one. An unknown
 * variable is empty, as in tmux; anything else (other modifiers, `#(…)`, `#S`-style aliases) is
 * refused, so a format the fake cannot read fails a test instead of reading as empty.
 */
import type { FakeBuffer, FakeClient, FakePane, FakeServer, FakeSession, FakeWindow, FakeWinlink } from "../FakeWorld.js"
import { layoutString } from "./Layout.js"
import {
  activePaneOf,
  attachedClients,
  currentWinlink,
  cursorOf,
  historySize,
  sessionOptions,
  sessionsHolding,
  sessionsOf,
  windowOf,
  windowOptions,
  winlinksOf
} from "./World.js"

/** What a format is expanded against. As in tmux, a window without a pane means its active pane. */
export interface FormatTarget {
  readonly server: FakeServer
  readonly path: string
  readonly session?: FakeSession | undefined
  readonly winlink?: FakeWinlink | undefined
  readonly pane?: FakePane | undefined
  readonly client?: FakeClient | undefined
  readonly buffer?: FakeBuffer | undefined
}

export class FormatError {
  constructor(readonly message: string) {}
}

type Value = string | number | boolean | null | undefined

/** Option defaults tmux 3.3a starts with, for the options a format or the fake reads. */
export const OPTION_DEFAULTS: Readonly<Record<string, string>> = {
  "exit-empty": "on",
  "exit-unattached": "off",
  "destroy-unattached": "off",
  "detach-on-destroy": "on",
  "history-limit": "2000",
  "base-index": "0",
  "remain-on-exit": "off",
  "automatic-rename": "on",
  "window-size": "latest",
  "main-pane-height": "24",
  "main-pane-width": "80"
}

/** An option's value as the target sees it: pane, window, session, then global (options_parse_get order, simplified). */
export const optionValue = (t: FormatTarget, name: string): string | undefined => {
  if (name === "exit-empty") return t.server.exitEmpty ? "on" : "off"
  const window = t.winlink === undefined ? undefined : windowOf(t.server, t.winlink)
  const pane = t.pane ?? (window === undefined ? undefined : activePaneOf(window))
  return pane?.options.get(name) ?? (window === undefined ? undefined : windowOptions(window).get(name)) ??
    (t.session === undefined ? undefined : sessionOptions(t.session).get(name)) ?? t.server.options.get(name) ?? OPTION_DEFAULTS[name]
}

/** Flags print as 1 or 0 in formats. */
const formatOption = (value: string): string => (value === "on" ? "1" : value === "off" ? "0" : value)

/** What a variable is read from: the target, and its window and pane (a window's active pane unless one was named). */
interface Scope {
  readonly t: FormatTarget
  readonly window: FakeWindow | undefined
  readonly pane: FakePane | undefined
}

/** The variables the fake knows, each computed only when a format asks for it. */
const VARIABLES: Readonly<Record<string, (scope: Scope) => Value>> = {
  pid: ({ t }) => t.server.pid,
  start_time: ({ t }) => t.server.startTime,
  version: ({ t }) => t.server.version,
  socket_path: ({ t }) => t.path,
  session_id: ({ t }) => t.session?.id,
  session_name: ({ t }) => t.session?.name,
  session_windows: ({ t }) => t.session?.winlinks.length,
  // tmux counts control-mode clients as attached too.
  session_attached: ({ t }) => t.session && attachedClients(t.server, t.session).length,
  session_created: ({ t }) => t.session?.created,
  session_path: ({ t }) => t.session && (t.session.cwd ?? t.server.cwd),
  window_id: ({ window }) => window?.id,
  window_name: ({ window }) => window?.name,
  window_index: ({ t }) => t.winlink?.index,
  window_panes: ({ window }) => window?.panes.length,
  window_active: ({ t }) => t.session && t.winlink && t.session.current === t.winlink.index,
  window_zoomed_flag: ({ window }) => window?.zoomed,
  window_width: ({ window }) => window?.width,
  window_height: ({ window }) => window?.height,
  window_layout: ({ window }) => window && layoutString(window),
  window_linked: ({ t, window }) => window && sessionsHolding(t.server, window.id).length > 1,
  pane_id: ({ pane }) => pane?.id,
  pane_index: ({ window, pane }) => pane && window?.panes.indexOf(pane),
  pane_active: ({ window, pane }) => pane && window?.activePane === pane.id,
  pane_last: ({ window, pane }) => pane && window?.lastPane === pane.id,
  pane_width: ({ pane }) => pane?.width,
  pane_height: ({ pane }) => pane?.height,
  pane_left: ({ pane }) => pane?.left,
  pane_top: ({ pane }) => pane?.top,
  pane_current_command: ({ pane }) => pane?.command,
  pane_current_path: ({ pane }) => pane?.cwd,
  pane_start_path: ({ pane }) => pane?.startPath,
  pane_pid: ({ pane }) => pane?.pid,
  pane_title: ({ pane }) => pane?.title,
  pane_dead: ({ pane }) => pane?.dead,
  pane_in_mode: ({ pane }) => pane?.inMode,
  pane_mode: ({ pane }) => pane && (pane.inMode ? "copy-mode" : ""),
  scroll_position: ({ pane }) => pane && (pane.inMode ? 0 : ""),
  alternate_on: ({ pane }) => pane?.alternate,
  pane_pipe: ({ pane }) => pane && pane.pipe !== null,
  cursor_x: ({ pane }) => pane && cursorOf(pane).x,
  cursor_y: ({ pane }) => pane && Math.max(0, cursorOf(pane).row - historySize(pane)),
  history_size: ({ pane }) => pane && historySize(pane),
  history_limit: ({ pane }) => pane?.historyLimit,
  client_flags: ({ t }) => t.client?.flags,
  client_name: ({ t }) => t.client?.name,
  buffer_name: ({ t }) => t.buffer?.name,
  buffer_size: ({ t }) => t.buffer && Buffer.byteLength(t.buffer.data, "utf8"),
  buffer_created: ({ t }) => t.buffer?.created,
  buffer_sample: ({ t }) => t.buffer?.data.slice(0, 50)
}

const text = (
  value: Value
): string => (typeof value === "boolean" ? (value ? "1" : "0") : value === null || value === undefined ? "" : String(value))

const lookup = (name: string, t: FormatTarget): string => {
  const variable = VARIABLES[name]
  if (variable !== undefined) {
    const window = t.winlink === undefined ? undefined : windowOf(t.server, t.winlink)
    return text(variable({ t, window, pane: t.pane ?? (window === undefined ? undefined : activePaneOf(window)) }))
  }
  const option = optionValue(t, name)
  return option === undefined ? "" : formatOption(option)
}

/** Where a `#{` that opens at `open` closes, counting nested `#{`; -1 when it does not. */
const closing = (format: string, open: number): number => {
  let depth = 0
  for (let i = open; i < format.length; i++) {
    if (format[i] === "#" && format[i + 1] === "{") {
      depth++
      i++
    } else if (format[i] === "#" && format[i + 1] !== undefined) {
      i++
    } else if (format[i] === "}" && --depth === 0) {
      return i
    }
  }
  return -1
}

/** Splits at the commas outside nested `#{…}` (an escaped `#,` stays in its part). */
const splitTop = (body: string): Array<string> => {
  const parts: Array<string> = []
  let start = 0
  let depth = 0
  for (let i = 0; i < body.length; i++) {
    if (body[i] === "#" && body[i + 1] === "{") {
      depth++
      i++
    } else if (body[i] === "#" && body[i + 1] !== undefined) {
      i++
    } else if (body[i] === "}" && depth > 0) {
      depth--
    } else if (body[i] === "," && depth === 0) {
      parts.push(body.slice(start, i))
      start = i + 1
    }
  }
  parts.push(body.slice(start))
  return parts
}

/** fnmatch(3) without flags, as `#{m:…}` uses it. */
const globMatches = (pattern: string, subject: string): boolean => {
  let regex = ""
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!
    if (char === "*") regex += ".*"
    else if (char === "?") regex += "."
    else if (char === "[") {
      const end = pattern.indexOf("]", i + 2)
      if (end < 0) regex += "\\["
      else {
        const set = pattern.slice(i + 1, end)
        regex += `[${set.startsWith("!") ? `^${set.slice(1)}` : set}]`
        i = end
      }
    } else if (char === "\\" && i + 1 < pattern.length) regex += `\\${pattern[++i]}`
    else regex += char.replace(/[.+^${}()|\\]/g, "\\$&")
  }
  return new RegExp(`^${regex}$`, "s").test(subject)
}

const truthy = (value: string): boolean => value !== "" && value !== "0"

const VARIABLE = /^[A-Za-z_@][A-Za-z0-9_@-]*$/

const loopTargets = (kind: string, t: FormatTarget): Array<{ readonly target: FormatTarget; readonly current: boolean }> => {
  if (kind === "S") {
    return sessionsOf(t.server).map((session) => ({
      target: { ...t, session, winlink: currentWinlink(session), pane: undefined },
      current: session === t.session
    }))
  }
  if (kind === "W") {
    if (t.session === undefined) return []
    const session = t.session
    return winlinksOf(session).map((winlink) => ({
      target: { ...t, winlink, pane: undefined },
      current: session.current === winlink.index
    }))
  }
  const window = t.winlink === undefined ? undefined : windowOf(t.server, t.winlink)
  return (window?.panes ?? []).map((pane) => ({ target: { ...t, pane }, current: pane.id === window!.activePane }))
}

const evaluate = (body: string, t: FormatTarget): string => {
  const loop = /^([SWP]):/.exec(body)
  if (loop !== null) {
    const [all = "", current = all] = splitTop(body.slice(2))
    return loopTargets(loop[1]!, t)
      .map((each) => expandFormat(each.current ? current : all, each.target))
      .join("")
  }
  const comparison = /^(==|!=|&&|\|\||m):/.exec(body)
  if (comparison !== null) {
    const args = splitTop(body.slice(comparison[0].length))
    if (args.length !== 2) throw new FormatError(`FakeTmux: #{${comparison[1]}:…} takes two arguments`)
    const [left, right] = args.map((arg) => expandFormat(arg, t)) as [string, string]
    switch (comparison[1]) {
      case "==":
        return left === right ? "1" : "0"
      case "!=":
        return left !== right ? "1" : "0"
      case "&&":
        return truthy(left) && truthy(right) ? "1" : "0"
      case "||":
        return truthy(left) || truthy(right) ? "1" : "0"
      default:
        return globMatches(left, right) ? "1" : "0"
    }
  }
  if (body.startsWith("?")) {
    const args = splitTop(body.slice(1))
    if (args.length < 2 || args.length > 3) throw new FormatError("FakeTmux: #{?cond,a,b} takes a condition and one or two choices")
    const condition = VARIABLE.test(args[0]!) ? lookup(args[0]!, t) : expandFormat(args[0]!, t)
    return expandFormat(truthy(condition) ? args[1]! : (args[2] ?? ""), t)
  }
  if (VARIABLE.test(body)) return lookup(body, t)
  throw new FormatError(`FakeTmux expands only variables, loops, comparisons, #{m:…} and #{?…}, not #{${body.slice(0, 20)}}`)
}

/** Expands a format against a target; throws FormatError on what the fake does not model. */
export const expandFormat = (format: string, t: FormatTarget): string => {
  let out = ""
  for (let i = 0; i < format.length; i++) {
    const char = format[i]!
    if (char !== "#") {
      out += char
      continue
    }
    const next = format[i + 1]
    if (next === "#" || next === "," || next === "}") {
      out += next
      i++
    } else if (next === "{") {
      const close = closing(format, i)
      if (close < 0) throw new FormatError("FakeTmux: an unterminated #{ in a format")
      out += evaluate(format.slice(i + 2, close), t)
      i = close
    } else if (next === "(") {
      throw new FormatError("FakeTmux never runs #(…) in a format (tmux would run it as a shell command)")
    } else if (next !== undefined && /[A-Za-z]/.test(next)) {
      throw new FormatError(`FakeTmux does not expand the alias #${next}`)
    } else {
      // tmux copies a # before anything else as it is.
      out += "#"
    }
  }
  return out
}

/** Expands, turning a FormatError into the reason. */
export const tryExpand = (format: string, t: FormatTarget): string | FormatError => {
  try {
    return expandFormat(format, t)
  } catch (error) {
    if (error instanceof FormatError) return error
    throw error
  }
}
