/**
 * Clearing a pane: its scrollback (`clear-history`) and, when asked, its visible screen. tmux has
 * no command that only blanks a screen; `send-keys -R` resets the pane's terminal (screen blank,
 * cursor home, modes a program set such as bracketed paste back to their defaults) without sending
 * the program a byte, so nothing it would run reaches it. Measured on 3.3a, 3.5a and 3.8: after
 * `send-keys -R` then `clear-history` in one invocation, history is 0 and the screen blank.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { NotFound, type TmuxError } from "../../domain/Errors.js"
import { PaneId } from "../../domain/Ids.js"
import { NonNegativeInt } from "../../domain/Model.js"
import * as Format from "../../tmux/Format.js"
import { decode, queryTree } from "../../tmux/Query.js"
import type { Tmux } from "../../tmux/Tmux.js"
import { ensureGeneration, type GenerationCheck } from "../servers/Servers.js"

/** What `clearPane` cleared. */
export const PaneCleared = Schema.Struct({
  pane_id: PaneId,
  history_lines_cleared: NonNegativeInt.annotate({ description: "Lines of scrollback there were; history is 0 now." }),
  screen_cleared: Schema.Boolean,
  history_size: NonNegativeInt.annotate({ description: "Lines of scrollback after (0 unless the program printed meanwhile)." })
})
export type PaneCleared = typeof PaneCleared.Type

/** Which parts of the pane to clear. */
export interface ClearPaneRequest extends GenerationCheck {
  /** Also blank the visible screen (a terminal reset of the pane). Default false. */
  readonly screen: boolean
}

const historyRecord = Format.record("hst", { pane_id: Format.string("pane_id"), history_size: Format.int("history_size") })

/** Clears a pane's scrollback, and its screen with `screen`, in one invocation that reads the history size before and after. */
export const clearPane = Effect.fn("ClearPane.clearPane")((
  socket: ResolvedSocket,
  paneId: string,
  request: ClearPaneRequest
): Effect.Effect<PaneCleared, TmuxError, Tmux> =>
  Effect.gen(function*() {
    yield* ensureGeneration(socket, request.generation)
    const output = yield* queryTree(socket, (m) => {
      const size = ["display-message", "-p", "-t", paneId, historyRecord.format(m)]
      return [size, ...(request.screen ? [["send-keys", "-R", "-t", paneId]] : []), ["clear-history", "-t", paneId], size]
    }, { kind: "pane", id: paneId })
    const [before, after] = (yield* decode(historyRecord, output)).filter((row) => row.pane_id === paneId)
    if (before === undefined || after === undefined) {
      return yield* Effect.fail(new NotFound({ kind: "pane", target: paneId, socket: socket.label }))
    }
    return { pane_id: paneId, history_lines_cleared: before.history_size, screen_cleared: request.screen, history_size: after.history_size }
  })
)
