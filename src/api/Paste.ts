/** Pasting text into a pane as one exact paste, bracketed when the program asked for it. */
export { pasteText, type PasteTextRequest, TextPasted } from "../operations/input/Paste.js"
