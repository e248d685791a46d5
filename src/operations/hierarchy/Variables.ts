/**
 * tmux format variables by name (`pane_tty`, `client_termname`, `session_path`, …) for one pane.
 * The format is built here from names that can only be plain variable names: no `#(`, no
 * modifiers, nothing of the caller's but the validated names reaches it. tmux expands a name it
 * does not know to an empty string, the same as a known variable that is empty, so an empty value
 * means either.
 */
import * as Effect from "effect/Effect"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { InvalidInput, type TmuxError } from "../../domain/Errors.js"
import * as Format from "../../tmux/Format.js"
import { queryTree } from "../../tmux/Query.js"
import type { Tmux } from "../../tmux/Tmux.js"

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

/** The named variables' values for a pane, in one invocation. */
export const readVariables = Effect.fn("Variables.readVariables")((
  socket: ResolvedSocket,
  paneId: string,
  names: ReadonlyArray<string>
): Effect.Effect<Record<string, string>, TmuxError | InvalidInput, Tmux> =>
  Effect.gen(function*() {
    yield* checkNames(names)
    const unique = [...new Set(names)]
    // Field keys are positions: a variable's name may be any plain name, "constructor" too.
    const codec = Format.record("vars", Object.fromEntries(unique.map((name, index) => [`v${index}`, Format.string(name)])))
    const output = yield* queryTree(socket, (marks) => [["display-message", "-p", "-t", paneId, codec.format(marks)]], {
      kind: "pane",
      id: paneId
    })
    const row = yield* codec.decodeFirst(output)
    return Object.fromEntries(unique.map((name, index) => [name, row[`v${index}`]!]))
  })
)
