/**
 * Turning a terminal's raw output stream (what `pipe-pane` records) into the text a person would
 * read: escape sequences removed, a carriage return or backspace overwriting what came before on
 * the line, other control characters dropped. Works one line at a time (the stream split on "\n").
 */

/**
 * CSI (`ESC [` … final), OSC (`ESC ]` … BEL or ST), DCS/SOS/PM/APC strings (… ST), charset
 * selections (`ESC ( B`) and the remaining two-character escapes (`ESC =`, `ESC 7`, …).
 */
const ESCAPES =
  // eslint-disable-next-line no-control-regex
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[()*+][0-~]|\x1b[ -/]*[0-~]|\x9b[0-?]*[ -/]*[@-~]/g

/** One line of output without its escape sequences, otherwise untouched (except a trailing "\r"). */
export const keepEscapesLine = (line: string): string => (line.endsWith("\r") ? line.slice(0, -1) : line)

/** One line of raw output as it reads on a screen. */
export const plainLine = (line: string): string => {
  const text = line.replace(ESCAPES, "")
  // Fast path: nothing that moves the cursor back or needs dropping.
  // eslint-disable-next-line no-control-regex
  if (!/[\x00-\x08\x0b-\x1f\x7f]/.test(text)) return text
  const cells: Array<string> = []
  let column = 0
  for (const character of text) {
    if (character === "\r") column = 0
    else if (character === "\b") column = Math.max(0, column - 1)
    else if (character === "\t" || character >= " ") {
      if (character === "\x7f") continue
      cells[column] = character
      column++
    }
  }
  return cells.join("").replace(/\s+$/, "")
}
