/**
 * Environments and options: set-environment (-g, -t, -u, -r, -F), show-environment (-g, -t, -s),
 * set-option (user options at any scope, and the few tmux options the operations and the fake
 * read: exit-empty, exit-unattached, history-limit, …) and show-options -v. The global session,
 * window and server options share one map (`FakeServer.options`): tmux's option names do not clash.
 */
import type { FakeEnvironment } from "../../FakeWorld.js"
import { type Arguments, has, value } from "../Arguments.js"
import { type CommandEntry, done, failed, type Invocation, type Outcome, printed, type Resolved, unmodelled } from "../Command.js"
import { FormatError, OPTION_DEFAULTS, tryExpand } from "../Formats.js"
import type { Found } from "../Targets.js"
import { sessionEnvironment, sessionOptions, windowOptions } from "../World.js"

// ---- environment --------------------------------------------------------------------------------

/** The environment -g or -t names, or tmux's error when the session is missing. */
const scopeOf = (invocation: Invocation, args: Arguments, { target }: Resolved): FakeEnvironment | { readonly error: string } => {
  if (has(args, "g")) return invocation.server.environment
  if (target !== undefined) return sessionEnvironment(target.session)
  const given = value(args, "t")
  return { error: given === undefined ? "no current session" : `no such session: ${given}` }
}

const setEnvironment: CommandEntry = {
  name: "set-environment",
  alias: "setenv",
  template: "Fhgrt:u",
  lower: 1,
  upper: 2,
  target: { flag: "t", kind: "session", canFail: true },
  run: (invocation, args, resolved) => {
    if (has(args, "h")) return unmodelled("set-environment", "-h")
    const name = args.values[0]!
    if (name === "") return failed("empty variable name")
    if (name.includes("=")) return failed("variable name contains =")
    let given = args.values[1]
    if (given !== undefined && has(args, "F")) {
      const expanded = tryExpand(given, { server: invocation.server, path: invocation.path, session: resolved.target?.session })
      if (expanded instanceof FormatError) return failed(expanded.message)
      given = expanded
    }
    const environment = scopeOf(invocation, args, resolved)
    if ("error" in environment) return failed(environment.error as string)
    if (has(args, "u")) {
      if (given !== undefined) return failed("can't specify a value with -u")
      environment.delete(name)
    } else if (has(args, "r")) {
      if (given !== undefined) return failed("can't specify a value with -r")
      environment.set(name, null)
    } else {
      if (given === undefined) return failed("no value specified")
      environment.set(name, given)
    }
    return done
  }
}

/** show-environment -s quoting: a backslash before $ ` " and \. */
const shellEscaped = (text: string): string => text.replace(/[$`"\\]/g, "\\$&")

const entryLine = (name: string, entry: string | null, shell: boolean): string =>
  shell
    ? (entry === null ? `unset ${name};\n` : `${name}="${shellEscaped(entry)}"; export ${name};\n`)
    : entry === null
    ? `-${name}\n`
    : `${name}=${entry}\n`

const showEnvironment: CommandEntry = {
  name: "show-environment",
  alias: "showenv",
  template: "hgst:",
  lower: 0,
  upper: 1,
  target: { flag: "t", kind: "session", canFail: true },
  run: (invocation, args, resolved) => {
    if (has(args, "h")) return unmodelled("show-environment", "-h")
    const environment = scopeOf(invocation, args, resolved)
    if ("error" in environment) return failed(environment.error as string)
    const shell = has(args, "s")
    const name = args.values[0]
    if (name !== undefined) {
      if (!environment.has(name)) return failed(`unknown variable: ${name}`)
      return printed(entryLine(name, environment.get(name)!, shell))
    }
    // tmux keeps an environment sorted by name (strcmp).
    const names = [...environment.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    return printed(names.map((n) => entryLine(n, environment.get(n)!, shell)).join(""))
  }
}

// ---- options ------------------------------------------------------------------------------------

type Scope = "server" | "session" | "window" | "pane"

interface OptionSpec {
  readonly scope: Scope | "window-or-pane"
  readonly type: "flag" | "number" | "string" | "choice"
  readonly choices?: ReadonlyArray<string>
}

/** The tmux options the fake knows (options-table.c); others are refused as tmux would refuse them. */
const OPTIONS: Readonly<Record<string, OptionSpec>> = {
  "exit-empty": { scope: "server", type: "flag" },
  "exit-unattached": { scope: "server", type: "flag" },
  "destroy-unattached": { scope: "session", type: "flag" },
  "detach-on-destroy": { scope: "session", type: "choice", choices: ["off", "on", "no-detached"] },
  "history-limit": { scope: "session", type: "number" },
  "base-index": { scope: "session", type: "number" },
  "remain-on-exit": { scope: "window-or-pane", type: "choice", choices: ["off", "on", "failed"] },
  "automatic-rename": { scope: "window", type: "flag" },
  "window-size": { scope: "window", type: "choice", choices: ["largest", "smallest", "manual", "latest"] },
  "main-pane-height": { scope: "window", type: "string" },
  "main-pane-width": { scope: "window", type: "string" }
}

/** The option map the flags and target pick (options_scope_from_name / _from_flags), or tmux's reason. */
const optionsFor = (
  invocation: Invocation,
  args: Arguments,
  name: string,
  target: Found | undefined
): Map<string, string> | { readonly error: string } => {
  const given = value(args, "t")
  const missing = (kind: string) => ({ error: given === undefined ? `no current ${kind}` : `no such ${kind}: ${given}` })
  const spec = OPTIONS[name]
  const scope: Scope = name.startsWith("@")
    ? has(args, "s")
      ? "server"
      : has(args, "p")
      ? "pane"
      : has(args, "w")
      ? "window"
      : "session"
    : spec!.scope === "window-or-pane"
    ? has(args, "p")
      ? "pane"
      : "window"
    : spec!.scope
  if (scope === "server" || (has(args, "g") && scope !== "pane")) return invocation.server.options
  if (scope === "pane") return target === undefined ? missing("pane") : target.pane.options
  if (scope === "window") return target === undefined ? missing("window") : windowOptions(target.window)
  return target === undefined ? missing("session") : sessionOptions(target.session)
}

const FLAG_VALUES: Readonly<Record<string, "on" | "off">> = { on: "on", yes: "on", "1": "on", off: "off", no: "off", "0": "off" }

/** A value as the option's type stores it, or tmux's reason. */
const parseOption = (
  spec: OptionSpec | undefined,
  given: string | undefined,
  current: string | undefined
): string | { readonly error: string } => {
  if (spec === undefined) return given ?? ""
  switch (spec.type) {
    case "flag": {
      if (given === undefined || given === "") return current === "on" ? "off" : "on"
      return FLAG_VALUES[given.toLowerCase()] ?? { error: `bad value: ${given}` }
    }
    case "number":
      return given !== undefined && /^\d+$/.test(given) ? given : { error: `value is invalid: ${given ?? ""}` }
    case "choice":
      return given !== undefined && spec.choices!.includes(given) ? given : { error: `unknown value: ${given ?? ""}` }
    case "string":
      return given ?? ""
  }
}

/** exit-empty lives on the server object itself (FakeServer.exitEmpty). */
const isExitEmpty = (options: Map<string, string>, invocation: Invocation, name: string) =>
  name === "exit-empty" && options === invocation.server.options

const setOption: CommandEntry = {
  name: "set-option",
  alias: "set",
  template: "aFgopqst:uUw",
  lower: 1,
  upper: 2,
  target: { flag: "t", kind: "pane", canFail: true },
  run: (invocation, args, { target }): Outcome => {
    for (const flag of ["a", "U"]) if (has(args, flag)) return unmodelled("set-option", `-${flag}`)
    const name = args.values[0]!
    if (!name.startsWith("@") && OPTIONS[name] === undefined) return has(args, "q") ? done : failed(`invalid option: ${name}`)
    const options = optionsFor(invocation, args, name, target)
    if ("error" in options) return failed(options.error as string)
    const exitEmpty = isExitEmpty(options, invocation, name)
    if (has(args, "u")) {
      if (exitEmpty) invocation.server.exitEmpty = true
      else options.delete(name)
      return done
    }
    const current = exitEmpty ? (invocation.server.exitEmpty ? "on" : "off") : options.get(name)
    if (has(args, "o") && current !== undefined && !exitEmpty) return failed(`already set: ${name}`)
    let given = args.values[1]
    if (given !== undefined && has(args, "F")) {
      const expanded = tryExpand(given, {
        server: invocation.server,
        path: invocation.path,
        session: target?.session,
        winlink: target?.winlink,
        pane: target?.pane
      })
      if (expanded instanceof FormatError) return failed(expanded.message)
      given = expanded
    }
    const parsed = parseOption(OPTIONS[name], given, current ?? OPTION_DEFAULTS[name])
    if (typeof parsed !== "string") return failed(parsed.error)
    if (exitEmpty) invocation.server.exitEmpty = parsed === "on"
    else options.set(name, parsed)
    return done
  }
}

const showOptions: CommandEntry = {
  name: "show-options",
  alias: "show",
  template: "AgHpqst:vw",
  lower: 0,
  upper: 1,
  target: { flag: "t", kind: "pane", canFail: true },
  run: (invocation, args, { target }) => {
    for (const flag of ["A", "H"]) if (has(args, flag)) return unmodelled("show-options", `-${flag}`)
    const name = args.values[0]
    if (name === undefined) return unmodelled("show-options", "without an option name")
    if (!name.startsWith("@") && OPTIONS[name] === undefined) return has(args, "q") ? done : failed(`invalid option: ${name}`)
    const options = optionsFor(invocation, args, name, target)
    if ("error" in options) return failed(options.error as string)
    const stored = isExitEmpty(options, invocation, name) ? (invocation.server.exitEmpty ? "on" : "off") : options.get(name)
    const shown = stored ?? (options === invocation.server.options ? OPTION_DEFAULTS[name] : undefined)
    if (shown === undefined) return name.startsWith("@") && !has(args, "q") ? failed(`invalid option: ${name}`) : done
    return printed(has(args, "v") ? `${shown}\n` : `${name} ${shown}\n`)
  }
}

export const settingsCommands: ReadonlyArray<CommandEntry> = [setEnvironment, showEnvironment, setOption, showOptions]
