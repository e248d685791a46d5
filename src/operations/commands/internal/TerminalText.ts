/**
 * Turning a terminal's raw output stream (what `pipe-pane` records) into the text a person would
 * read: escape sequences removed, a carriage return or backspace overwriting what came before on
 * the line, other control characters dropped. Works one line at a time (the stream split on "\n").
 * The result holds no control a client's terminal would act on, but tab: neither the 7-bit
 * C0 controls nor the 8-bit C1 controls (U+0080–U+009F, which a UTF-8 terminal may honour as
 * CSI, OSC, DCS, … — an OSC 52 written that way sets the clipboard).
 */

/**
 * CSI (`ESC [` or U+009B … final), OSC (`ESC ]` or U+009D … BEL or ST), DCS/SOS/PM/APC strings
 * (`ESC P X ^ _` or U+0090/0098/009E/009F … ST), charset selections (`ESC ( B`) and the remaining
 * two-character escapes (`ESC =`, `ESC 7`, …). ST is `ESC \` or U+009C. A string cut by the end of
 * the line runs to the end of the line.
 */
const ESCAPES =
  // eslint-disable-next-line no-control-regex
  /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c]*(?:\x1b\\|\x9c)?|\x1b[()*+][0-~]|\x1b[ -/]*[0-~]/g

/** C0 controls but tab, DEL, and the C1 controls: what remains of them after the escapes is dropped. */
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/

/** One line of output with its escape sequences kept, otherwise untouched (except a trailing "\r"). */
export const keepEscapesLine = (line: string): string => (line.endsWith("\r") ? line.slice(0, -1) : line)

/** One line of raw output as it reads on a screen. */
export const plainLine = (line: string): string => {
  const text = line.replace(ESCAPES, "")
  // Fast path: nothing that moves the cursor back or needs dropping.
  if (!CONTROLS.test(text)) return text
  const cells: Array<string> = []
  let column = 0
  for (const character of text) {
    if (character === "\r") column = 0
    else if (character === "\b") column = Math.max(0, column - 1)
    else if (character === "\t" || !CONTROLS.test(character)) {
      cells[column] = character
      column++
    }
  }
  return cells.join("").replace(/\s+$/, "")
}
