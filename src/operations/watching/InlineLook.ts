/**
 * A look at a pane for a cursor, taken inside another command list: the one that sends the
 * caller's keys or paste. tmux runs a command list to its end before it reads any pane's output
 * again (its command queue does not yield between these commands), so a cursor from this look
 * stands exactly where the program's answer to the input begins: nothing printed after the input
 * can fall before it, and nothing printed before it counts as new.
 */
import * as Result from "effect/Result"
import { Failed } from "../../domain/Errors.js"
import * as Format from "../../tmux/Format.js"
import type { TmuxCommand } from "../../tmux/Tmux.js"
import { CURSOR_LOOK_START } from "./PaneCursor.js"
import { type PaneView, paneViewCommands, parsePaneView } from "./Snapshot.js"

/** The lines printed around the look, so what the rest of the list prints cannot run into it. */
const openMark = (marks: Format.Marks): string => `${marks.record}look<`
const closeMark = (marks: Format.Marks): string => `${marks.record}look>`

/** The commands of a look at `paneId`, framed by marks, to place in a command list built with the same marks. */
export const lookCommands = (paneId: string, marks: Format.Marks): ReadonlyArray<TmuxCommand> => [
  ["display-message", "-p", openMark(marks)],
  ...paneViewCommands(paneId, CURSOR_LOOK_START, false, marks),
  ["display-message", "-p", closeMark(marks)]
]

/** What a command list holding `lookCommands` printed: the look, and everything printed outside it. */
export interface Looked {
  readonly view: PaneView
  readonly rest: string
}

/** Reads the look out of a command list's output (a list that stopped before it ran has none: Failed). */
export const takeLook = (printed: string, marks: Format.Marks): Result.Result<Looked, Failed> => {
  const raw = Format.withRawMarks(printed, marks)
  const open = raw.indexOf(`${openMark(marks)}\n`)
  const close = raw.indexOf(`${closeMark(marks)}\n`)
  if (open < 0 || close < open) {
    return Result.fail(
      new Failed({
        command: "display-message ; capture-pane",
        reason: "unparseable",
        exitCode: null,
        stderr: "no look at the pane in the output"
      })
    )
  }
  const inside = raw.slice(open + openMark(marks).length + 1, close)
  const rest = raw.slice(0, open) + raw.slice(close + closeMark(marks).length + 1)
  return Result.map(parsePaneView(inside, marks, CURSOR_LOOK_START), (view) => ({ view, rest }))
}
