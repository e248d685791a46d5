/**
 * tmux format variables by name (`pane_tty`, `client_termname`, `session_path`, …) for one pane.
 * The format is built here from names that can only be plain variable names: no `#(`, no
 * modifiers, nothing of the caller's but the validated names reaches it. tmux expands a name it
 * does not know to an empty string, the same as a known variable that is empty, so an empty value
 * means either.
 */
import * as Effect from "effect/Effect"
import type { InvocationContext } from "../../context/InvocationContext.js"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { InvalidInput, type TmuxError } from "../../domain/Errors.js"
import type { PaneDetail } from "../../domain/Model.js"
import * as Format from "../../tmux/Format.js"
import { queryTree } from "../../tmux/Query.js"
import type { Tmux, TmuxCommand } from "../../tmux/Tmux.js"
import { lookupPaneDetail } from "./Hierarchy.js"

/** A format variable's name as `readVariables` takes it: nothing a format could read as a modifier or a job. */
export const VARIABLE_NAME = /^[a-z][a-z0-9_]*$/
/** How many names one `readVariables` call takes. */
export const MAX_VARIABLES = 64

const checkNames = (names: ReadonlyArray<string>): Effect.Effect<void, InvalidInput> =>
  names.length === 0 || names.length > MAX_VARIABLES
    ? Effect.fail(new InvalidInput({ reason: `variables takes 1 to ${MAX_VARIABLES} names.` }))
    : names.every((name) => VARIABLE_NAME.test(name))
    ? Effect.void
    : Effect.fail(new InvalidInput({ reason: "variables must be format variable names ([a-z][a-z0-9_]*)." }))

/** The command that prints the named variables of a pane, and how to read them back from its output. */
const variablesQuery = (paneId: string, names: ReadonlyArray<string>) => {
  const unique = [...new Set(names)]
  // Field keys are positions: a variable's name may be any plain name, "constructor" too.
  const codec = Format.record("vars", Object.fromEntries(unique.map((name, index) => [`v${index}`, Format.string(name)])))
  return {
    command: (marks: Format.Marks): TmuxCommand => ["display-message", "-p", "-t", paneId, codec.format(marks)],
    decode: (output: Format.ParsedOutput) =>
      Effect.map(
        Effect.fromResult(codec.decodeFirst(output)),
        (row) => Object.fromEntries(unique.map((name, index) => [name, row[`v${index}`]!]))
      )
  }
}

/** The named variables' values for a pane, in one invocation. */
export const readVariables = Effect.fn("Variables.readVariables")((
  socket: ResolvedSocket,
  paneId: string,
  names: ReadonlyArray<string>
): Effect.Effect<Record<string, string>, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    yield* checkNames(names)
    const query = variablesQuery(paneId, names)
    return yield* query.decode(yield* queryTree(socket, (marks) => [query.command(marks)], { kind: "pane", id: paneId }))
  })
)

/** One pane with its placements (as getPaneDetail) and the named variables' values, in the pane lookup's own invocation. */
export const getPaneWithVariables = Effect.fn("Variables.getPaneWithVariables")((
  socket: ResolvedSocket,
  paneId: string,
  names: ReadonlyArray<string>
): Effect.Effect<PaneDetail & { readonly variables: Record<string, string> }, TmuxError | InvalidInput, Tmux | InvocationContext> =>
  Effect.gen(function*() {
    yield* checkNames(names)
    const query = variablesQuery(paneId, names)
    // After the lookup, which fails on a missing pane, so display-message never falls back to another.
    const { output, pane } = yield* lookupPaneDetail(socket, paneId, (marks) => [query.command(marks)])
    return { ...pane, variables: yield* query.decode(output) }
  })
)
