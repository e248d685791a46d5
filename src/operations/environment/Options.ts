/**
 * tmux options (and hooks, which tmux keeps as options): reading them at server, session, window
 * or pane scope, and setting the few on the allowlist (OptionTable).
 *
 * A listing (`show-options -A`) prints each value escaped for tmux's parser (quotes, `\n`, octal
 * escapes, differing between versions), so names and the `*` that marks an inherited value are
 * read from it, and values from `show-options -v NAME`, which prints the value as tmux stores it.
 * The names come back in a first invocation; the values of one page of them in a second.
 * show-options and set-option expand formats in an option's name (tmux 3.3a..3.8: `show -v
 * '@x#(cmd)'` runs cmd), so a name reaches tmux literalized, or only from the allowlist.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { InvalidInput, NotFound, type TmuxError } from "../../domain/Errors.js"
import { runInBatches } from "../../tmux/CommandBatches.js"
import * as Format from "../../tmux/Format.js"
import { literalizeFormat } from "../../tmux/Literal.js"
import { noCurrentTargetIsNotFound, type QueryTarget, runTree } from "../../tmux/Query.js"
import type { Tmux, TmuxCommand } from "../../tmux/Tmux.js"
import { MAX_PAGE_LIMIT, type PageOf, paginate } from "../bounds/Paging.js"
import { ensureGeneration, type GenerationCheck } from "../servers/Servers.js"
import { ALLOWED_OPTIONS, normalizeValue, refusalOf } from "./OptionTable.js"

/** Where options live: the server, a session, a window or a pane (a pane inherits from its window, a session or window from the global options). */
export const OptionScope = Schema.Literals(["server", "session", "window", "pane"])
export type OptionScope = typeof OptionScope.Type

/** One option (an array option's items one by one, as `name[index]`) and its value. */
export const OptionEntry = Schema.Struct({
  name: Schema.String,
  value: Schema.String,
  inherited: Schema.optionalKey(Schema.Literals(["global", "window"])).annotate({
    description: "Not set in this scope: the value comes from the window's options or the global ones."
  })
})
export type OptionEntry = typeof OptionEntry.Type

/** What set_option leaves: the option as tmux then reports it in that scope. */
export const OptionSet = Schema.Struct({
  ...OptionEntry.fields,
  scope: OptionScope,
  target: Schema.NullOr(Schema.String).annotate({ description: "The object set; null for the server or global options." })
})
export type OptionSet = typeof OptionSet.Type

/** Where options are read or set: a scope, and an object (`%N`, `@N`, `$N`) or the global options. */
export interface OptionsWhere {
  readonly scope: OptionScope
  /** Ignored for the server scope and for global options. */
  readonly target?: string | undefined
  readonly global?: boolean | undefined
}

/** What show_options reads: a scope, one name or all, options or hooks, and a page. */
export interface OptionsRequest extends OptionsWhere {
  /** One option, or an array option's items; all when omitted. */
  readonly name?: string | undefined
  /** Hooks (show-hooks) instead of options. */
  readonly hooks?: boolean | undefined
  readonly offset?: number
  readonly limit?: number
}

/** An option name as tmux prints it: a table option (an array's item with its index) or a user `@option`. */
// eslint-disable-next-line no-control-regex
const OPTION_NAME = /^(?:[a-z][a-z0-9-]*(?:\[\d+\])?|@[^\s\0-\x1f\x7f]+)$/
const TARGET = /^[%@$]\d+$/

const checkWhere = (where: OptionsWhere): Effect.Effect<void, InvalidInput> =>
  where.target !== undefined && !TARGET.test(where.target)
    ? Effect.fail(new InvalidInput({ reason: "target must be a pane (%N), window (@N) or session ($N) id." }))
    : Effect.void

const isGlobal = (where: OptionsWhere): boolean => where.scope === "server" || where.global === true

/** show-options / set-option flags for a scope: -s, (none), -w, -p; -g for the global options. */
const scopeFlags = (where: OptionsWhere): ReadonlyArray<string> => [
  ...(where.scope === "server" ? ["-s"] : where.scope === "window" ? ["-w"] : where.scope === "pane" ? ["-p"] : []),
  ...(where.scope !== "server" && where.global === true ? ["-g"] : []),
  ...(isGlobal(where) || where.target === undefined ? [] : ["-t", where.target])
]

const queryTarget = (where: OptionsWhere): QueryTarget => {
  const id = where.target ?? ""
  return { kind: id.startsWith("%") ? "pane" : id.startsWith("@") ? "window" : id.startsWith("$") ? "session" : "object", id }
}

/** Prints a line that separates what the commands around it printed. */
const markCommand = (mark: string): TmuxCommand => ["display-message", "-p", mark]

/** The text printed before each mark, and after the last. */
const splitAt = (output: string, mark: string): Array<string> => output.split(`${mark}\n`)

const lines = (text: string): Array<string> => text.split("\n").filter((line) => line !== "")

/** A listing line `name[*] value` (or a bare `name` for an empty array): the name and whether it is inherited. */
const listedName = (line: string): { readonly name: string; readonly inherited: boolean } => {
  const head = line.split(" ", 1)[0]!
  return head.endsWith("*") ? { name: head.slice(0, -1), inherited: true } : { name: head, inherited: false }
}

const matchesName = (listed: string, name: string | undefined): boolean =>
  name === undefined || listed === name || listed.startsWith(`${name}[`)

interface Listed {
  readonly name: string
  readonly inherited?: "global" | "window"
}

/**
 * First invocation: the names in the scope, inherited ones marked with where they come from.
 * `before` runs first in the same command list and must print nothing (set_option's change).
 */
const listNames = (
  socket: ResolvedSocket,
  where: OptionsWhere,
  request: OptionsRequest,
  before: ReadonlyArray<TmuxCommand> = []
): Effect.Effect<Array<Listed>, TmuxError, Tmux> =>
  Effect.gen(function*() {
    const hooks = request.hooks === true
    // Inheritance exists below the global options; a pane inherits from its window first.
    const inheritable = !hooks && !isGlobal(where)
    const windowOwn = inheritable && where.scope === "pane"
    // Printable, so that no version escapes it; random, so that no option name is it.
    const mark = `etm-own-${randomBytes(6).toString("hex")}`
    const commands: Array<TmuxCommand> = [
      ...before,
      [hooks ? "show-hooks" : "show-options", ...(inheritable ? ["-A"] : []), ...scopeFlags(where)],
      ...(windowOwn ? [markCommand(mark), ["show-options", "-w", "-t", where.target!]] : [])
    ]
    const output = yield* runTree(socket, commands, queryTarget(where))
    const [listing = "", own = ""] = splitAt(output, mark)
    const setInWindow = new Set(lines(own).map((line) => listedName(line).name))
    const names: Array<Listed> = []
    for (const line of lines(listing)) {
      const { inherited, name } = listedName(line)
      // A hook that is not set is listed by its bare name: it holds nothing to show.
      if (hooks && !line.includes(" ")) continue
      if (!matchesName(name, request.name)) continue
      names.push(inherited ? { name, inherited: windowOwn && setInWindow.has(name) ? "window" : "global" } : { name })
    }
    return names
  })

/** Second invocation: each name's value as tmux stores it (`show-options -v`), after a mark naming its index. */
const readValues = (
  socket: ResolvedSocket,
  where: OptionsWhere,
  names: ReadonlyArray<Listed>
): Effect.Effect<Array<OptionEntry>, TmuxError, Tmux> =>
  Effect.gen(function*() {
    if (names.length === 0) return []
    const marks = Format.newMarks()
    const flags = [...(isGlobal(where) ? [] : ["-A"]), ...scopeFlags(where)]
    const units = names.map((listed, index): Array<TmuxCommand> => [
      ["display-message", "-p", `${marks.record}v${marks.field}${index}`],
      // show-options expands formats in the name (`#(…)` would run): the name tmux listed goes in literalized.
      // -q: a name the listing cut short (a user option's name holding a space) reads as empty, not as a failed call.
      ["show-options", "-q", "-v", ...flags, "--", literalizeFormat(listed.name)]
    ])
    // A page of long names, or of 100 (tmux 3.7+ takes at most 1000 argv strings), can need more than one invocation.
    const printed = yield* runInBatches(socket, units).pipe(noCurrentTargetIsNotFound(socket, queryTarget(where)))
    const output = Format.withRawMarks(printed, marks)
    const values = new Map<number, string>()
    for (const chunk of output.split(marks.record).slice(1)) {
      const body = chunk.slice(`v${marks.field}`.length)
      const newline = body.indexOf("\n")
      const text = body.slice(newline + 1)
      // tmux ends the value with a newline; an empty array option prints nothing at all.
      values.set(Number(body.slice(0, newline)), text.endsWith("\n") ? text.slice(0, -1) : text)
    }
    if (values.size !== names.length) return yield* Effect.fail(Format.unreadable("show-options", "a value mark is missing"))
    return names.map((listed, index) => ({ ...listed, value: values.get(index)! }))
  })

/**
 * tmux names the scope it looked the target up in ("can't find session: %9" for a session option
 * on a pane): a missing id is named as the kind the caller gave (a pane), the way every tool says it.
 */
const namedAsGiven = (where: OptionsWhere, error: TmuxError | InvalidInput): TmuxError | InvalidInput => {
  if (error._tag !== "NotFound" || error.kind === "server" || error.target !== where.target) return error
  const { kind } = queryTarget(where)
  return kind === "object" || kind === error.kind ? error : new NotFound({ kind, target: error.target, socket: error.socket })
}

const readOptions = (
  socket: ResolvedSocket,
  request: OptionsRequest,
  before: ReadonlyArray<TmuxCommand> = []
): Effect.Effect<PageOf<OptionEntry>, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    yield* checkWhere(request)
    if (request.name !== undefined && !OPTION_NAME.test(request.name)) {
      return yield* Effect.fail(new InvalidInput({ reason: "name must be an option name (e.g. mode-keys, status-format[0], @name)." }))
    }
    if (request.hooks === true && request.scope === "server") {
      return yield* Effect.fail(new InvalidInput({ reason: "hooks live at session, window or pane scope, not server." }))
    }
    if (!isGlobal(request) && request.target === undefined) {
      return yield* Effect.fail(new InvalidInput({ reason: "Pass a target, or global: true." }))
    }
    if ((request.offset ?? 0) < 0 || (request.limit ?? 1) < 1 || (request.limit ?? 1) > MAX_PAGE_LIMIT) {
      return yield* Effect.fail(new InvalidInput({ reason: `offset must be 0 or more, limit from 1 to ${MAX_PAGE_LIMIT}.` }))
    }
    const page = paginate(yield* listNames(socket, request, request, before), request)
    return { ...page, items: yield* readValues(socket, request, page.items) }
  }).pipe(Effect.mapError((error) => namedAsGiven(request, error)))

/** The options (or hooks) of a scope, one page of them with their values. */
export const showOptions = Effect.fn("Options.showOptions")((
  socket: ResolvedSocket,
  request: OptionsRequest
): Effect.Effect<PageOf<OptionEntry>, TmuxError | InvalidInput, Tmux> => readOptions(socket, request))

/**
 * Sets (or unsets) one allowlisted option, then reads it back. The scope follows the option: a
 * server option is set on the server, a session option on the target's session, a window option on
 * the target's window, or on the pane itself when the target is a pane and tmux keeps the option
 * per pane.
 */
export const setOption = Effect.fn("Options.setOption")((
  socket: ResolvedSocket,
  request: {
    readonly name: string
    readonly value?: string | number | boolean | undefined
    readonly unset?: boolean | undefined
    readonly target?: string | undefined
    readonly global?: boolean | undefined
  },
  options: GenerationCheck = {}
): Effect.Effect<OptionSet, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    const refusal = refusalOf(request.name)
    if (refusal !== undefined) return yield* Effect.fail(new InvalidInput({ reason: `name: ${refusal}` }))
    const option = ALLOWED_OPTIONS[request.name]!
    const unset = request.unset === true
    if (unset === (request.value !== undefined)) {
      return yield* Effect.fail(new InvalidInput({ reason: "Pass value, or unset: true (not both)." }))
    }
    const value = unset ? undefined : normalizeValue(option, request.value!)
    if (typeof value === "object") return yield* Effect.fail(new InvalidInput({ reason: `value: ${request.name} ${value.invalid}` }))
    const scope: OptionScope = option.kind === "window" && option.pane === true && request.target?.startsWith("%") === true
      ? "pane"
      : option.kind
    const where: OptionsWhere = { scope, target: request.target, global: request.global }
    yield* checkWhere(where)
    if (!isGlobal(where) && request.target === undefined) {
      return yield* Effect.fail(new InvalidInput({ reason: `Pass a target, or global: true: ${request.name} is a ${scope} option.` }))
    }
    yield* ensureGeneration(socket, options.generation)
    const command = [
      "set-option",
      ...(unset ? ["-u"] : []),
      ...scopeFlags(where),
      "--",
      request.name,
      ...(value === undefined ? [] : [value])
    ]
    // The change and the read-back's listing share one invocation: set-option prints nothing.
    const [entry] = (yield* readOptions(socket, { ...where, name: request.name }, [command])).items
    return {
      name: request.name,
      value: entry?.value ?? "",
      ...(entry?.inherited === undefined ? {} : { inherited: entry.inherited }),
      scope,
      target: isGlobal(where) ? null : request.target ?? null
    }
  })
)
