/**
 * What one entry of FakeTmux's command table is, and what it runs in: the invocation (one client's
 * command list on one server). An entry declares its argv like tmux's cmd_entry (template, bounds,
 * the target flags it resolves and whether a missing target may pass), and its handler changes the
 * world and says what it printed, that it failed (with tmux's text), or that it waits.
 */
import type * as Effect from "effect/Effect"
import type { TmuxCommand } from "../../tmux/Tmux.js"
import type { FakeServer, FakeSession } from "../FakeWorld.js"
import type { Arguments } from "./Arguments.js"
import type { FormatTarget } from "./Formats.js"
import type { Found, TargetKind } from "./Targets.js"

export type Outcome =
  | { readonly printed: string }
  | { readonly error: string }
  /** The command waits (wait-for): the list carries on once the effect ends. */
  | { readonly waits: Effect.Effect<void> }

export const printed = (text: string): Outcome => ({ printed: text })
export const done: Outcome = { printed: "" }
export const failed = (error: string): Outcome => ({ error })

/** A wait-for channel: a signal kept for the next waiter, or the clients waiting. */
export interface Channel {
  woken: boolean
  /** Released by the next signal, including waiters whose client went away (tmux never removes them). */
  waiters: Array<() => void>
}

export interface Invocation {
  readonly path: string
  readonly server: FakeServer
  /** The list's current session: the best one, until a new-session makes its session current. */
  current: FakeSession | undefined
  /** The client's standard input (`load-buffer -`). */
  readonly stdin: string | undefined
  /** Unix seconds. */
  readonly now: number
  /** kill-server ran: the server exits once the list is done. */
  killServer: boolean
  /** Errors of nested lists (if-shell), which stop only their own list but fail the invocation. */
  readonly errors: Array<string>
  /** Runs a nested command list (if-shell's) in this invocation; its errors go to `errors`. */
  readonly runNested: (commands: ReadonlyArray<TmuxCommand>) => string
  readonly channel: (name: string) => Channel
}

export interface TargetSpec {
  readonly flag: string
  readonly kind: TargetKind
  /** tmux's CMD_FIND_CANFAIL: a target that does not resolve reaches the handler as undefined. */
  readonly canFail?: boolean
}

export interface Resolved {
  readonly target?: Found | undefined
  readonly source?: Found | undefined
}

export interface CommandEntry {
  readonly name: string
  readonly alias?: string
  /** tmux's getopt template, e.g. "at:" (`x:` takes a value). */
  readonly template: string
  readonly lower: number
  /** -1: no bound. */
  readonly upper: number
  readonly target?: TargetSpec
  readonly source?: TargetSpec
  readonly run: (invocation: Invocation, args: Arguments, resolved: Resolved) => Outcome
}

/** A format target from a resolved target (or the server alone). */
export const formatTarget = (invocation: Invocation, found: Found | undefined): FormatTarget =>
  found === undefined
    ? { server: invocation.server, path: invocation.path }
    : { server: invocation.server, path: invocation.path, session: found.session, winlink: found.winlink, pane: found.pane }

/** A command the fake recognises but not in this form: fails loudly, naming what it does not model. */
export const unmodelled = (command: string, what: string): Outcome => failed(`FakeTmux does not model ${command} ${what}`)
