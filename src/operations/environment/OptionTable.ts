/**
 * The options set_option may change: only those whose values tmux never runs or expands. Every
 * other option is refused, and the reason names why (docs/tools.md, "set_option", has the same
 * table): hooks and options holding commands or shells run something; formats (`status-left`,
 * `*-format`, `set-titles-string`, …) run `#(…)`; a user `@option` can be expanded by any format
 * with `#{E:@name}`, so its value is a format too.
 */

/** Where an option lives in tmux: the server, a session, or a window (and, where tmux has them, its panes). */
export type OptionKind = "server" | "session" | "window"

/** An option's type, as set_option checks a value: a flag, a number within bounds, or one of a list of words. */
export type OptionType =
  | { readonly type: "flag" }
  | { readonly type: "number"; readonly min: number; readonly max: number }
  | { readonly type: "choice"; readonly choices: ReadonlyArray<string> }

/** An allowlisted option: its type, where it lives, and whether tmux keeps it per pane. */
export type AllowedOption = OptionType & {
  readonly kind: OptionKind
  /** A window option tmux also keeps per pane (`set -p`), so a pane target sets it for that pane only. */
  readonly pane?: true
}

const flag = (kind: OptionKind, pane?: true): AllowedOption => ({ type: "flag", kind, ...(pane ? { pane } : {}) })
const number = (kind: OptionKind, min: number, max: number): AllowedOption => ({ type: "number", kind, min, max })
const choice = (kind: OptionKind, choices: ReadonlyArray<string>, pane?: true): AllowedOption => ({
  type: "choice",
  kind,
  choices,
  ...(pane ? { pane } : {})
})

const VI_EMACS = ["vi", "emacs"]

/**
 * The allowlist. Choices are the union of tmux 3.3a..3.8's; a value the running tmux does not know
 * is tmux's own error (failed). Bounds are tmux's where they are small, tighter where tmux's would
 * let one call exhaust memory (history-limit) or freeze a server for hours.
 */
export const ALLOWED_OPTIONS: Readonly<Record<string, AllowedOption>> = {
  "escape-time": number("server", 0, 60_000),
  "history-limit": number("session", 0, 1_000_000),
  "mouse": flag("session"),
  "status-keys": choice("session", VI_EMACS),
  "base-index": number("session", 0, 65_535),
  "renumber-windows": flag("session"),
  "display-time": number("session", 0, 3_600_000),
  "remain-on-exit": choice("window", ["off", "on", "failed"], true),
  "synchronize-panes": flag("window", true),
  "allow-rename": flag("window", true),
  "alternate-screen": flag("window", true),
  "automatic-rename": flag("window"),
  "monitor-activity": flag("window"),
  "monitor-silence": number("window", 0, 86_400),
  "pane-border-status": choice("window", ["off", "top", "bottom"]),
  "window-size": choice("window", ["largest", "smallest", "manual", "latest"]),
  "mode-keys": choice("window", VI_EMACS),
  "aggressive-resize": flag("window"),
  "pane-base-index": number("window", 0, 65_535),
  "wrap-search": flag("window")
}

/** tmux's hooks (3.3a..3.8): each runs a command when its event happens. */
const HOOK =
  /^(after-.+|alert-(activity|bell|silence)|client-(active|attached|detached|focus-in|focus-out|resized|session-changed|light-theme|dark-theme)|command-error|pane-(died|exited|focus-in|focus-out|mode-changed|set-clipboard|title-changed)|session-(closed|created|renamed|window-changed)|window-(layout-changed|linked|pane-changed|renamed|resized|unlinked))(\[\d+\])?$/

/** Options whose values are commands, shells or formats (tmux runs `#(…)` in a format). */
const RUNS_OR_EXPANDS =
  /(^default-(command|shell)$|^status-(left|right)$|-format$|-string$|^command-alias$|^lock-command$|^user-keys$|^status$|^editor$|^copy-command$)/

/** Why set_option refuses `name`, or undefined when the allowlist has it. */
export const refusalOf = (name: string): string | undefined => {
  if (Object.hasOwn(ALLOWED_OPTIONS, name)) return undefined
  if (name.startsWith("@")) return "user @options are refused: any format can expand one with #{E:@name}, so its value could run #(…)."
  // An array option's item (`status-format[0]`) is refused as the option is.
  if (RUNS_OR_EXPANDS.test(name.replace(/\[\d+\]$/, ""))) {
    return "this option holds a command, shell or format that tmux runs or expands; it is refused."
  }
  if (HOOK.test(name)) return "hooks are refused: a hook runs commands."
  return `the option is not on set_option's allowlist: ${Object.keys(ALLOWED_OPTIONS).join(", ")}.`
}

/** The value as tmux takes it, or why it does not fit the option's type (never echoing the value). */
export const normalizeValue = (option: AllowedOption, value: string | number | boolean): string | { readonly invalid: string } => {
  switch (option.type) {
    case "flag": {
      const text = String(value)
      return text === "on" || text === "true"
        ? "on"
        : text === "off" || text === "false"
        ? "off"
        : { invalid: "a flag takes on, off, true or false." }
    }
    case "number": {
      const text = String(value)
      const parsed = /^-?\d+$/.test(text) ? Number(text) : Number.NaN
      return Number.isSafeInteger(parsed) && parsed >= option.min && parsed <= option.max
        ? String(parsed)
        : { invalid: `takes an integer from ${option.min} to ${option.max}.` }
    }
    case "choice":
      return typeof value === "string" && option.choices.includes(value)
        ? value
        : { invalid: `takes one of ${option.choices.join(", ")} (the running tmux may know fewer).` }
  }
}
