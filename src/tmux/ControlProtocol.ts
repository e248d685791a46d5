/**
 * The text protocol of a tmux control-mode client (`tmux -C`), without any process: how a command
 * list becomes one input line, and how output lines become reply blocks.
 *
 * Input: each line is parsed by tmux's configuration-file parser, not split like argv, so every
 * argument is double-quoted with the parser's own escapes; nothing in it can expand (`$VAR`, `~`),
 * end the line or separate commands.
 *
 * Output: every command run for the client prints `%begin <time> <number> <flags>`, its output
 * lines, then `%end` or `%error` with the same three fields. Flags 1 marks commands we sent; hooks
 * run on our behalf print blocks with flags 0. Between blocks come notifications (`%…` lines),
 * which tmux never puts inside a block.
 */
import type { TmuxCommand } from "./Tmux.js"

/** Characters the parser treats specially inside double quotes; each gets a backslash. */
const BACKSLASHED = new Set(["\\", "\"", "$", "~"])

/** One argument as a double-quoted token that tmux's parser reads back exactly. */
export const quoteArgument = (argument: string): string => {
  let quoted = "\""
  for (const char of argument) {
    const code = char.codePointAt(0)!
    if (BACKSLASHED.has(char)) quoted += `\\${char}`
    // Control characters as three-digit octal: a raw newline would end the line.
    else if (code < 0x20 || code === 0x7f) quoted += `\\${code.toString(8).padStart(3, "0")}`
    else quoted += char
  }
  return `${quoted}"`
}

/** A command list as one input line (commands separated by an unquoted `;`), without the newline. */
export const commandLine = (commands: ReadonlyArray<TmuxCommand>): string =>
  commands.map((command) => command.map(quoteArgument).join(" ")).join(" ; ")

/** A finished reply block. */
export interface Block {
  /** True for `%end`, false for `%error`. */
  readonly ok: boolean
  /** True when the command came from our input (flags 1), false for hooks and the initial command. */
  readonly fromInput: boolean
  readonly lines: ReadonlyArray<string>
}

export type ParsedLine =
  | { readonly _tag: "Pending" }
  | { readonly _tag: "Block"; readonly block: Block }
  | { readonly _tag: "Exit" }
  | { readonly _tag: "Notification" }
  | { readonly _tag: "ProtocolError"; readonly line: string }

const GUARD = /^%(begin|end|error) (\d+) (\d+) (\d+)$/

/**
 * Reads output lines one at a time and reports finished blocks. A block ends only at a guard whose
 * time, number and flags equal its `%begin`, so output that merely looks like a guard (a pane
 * printing "%end …") stays content; a forged guard that did match leaves an orphan guard or
 * content line behind, which is reported as a protocol error instead of a wrong answer.
 */
export class BlockReader {
  private open: { readonly key: string; readonly fromInput: boolean; readonly lines: Array<string> } | undefined

  read(line: string): ParsedLine {
    const guard = GUARD.exec(line)
    if (this.open !== undefined) {
      if (guard !== null && guard[1] !== "begin" && `${guard[2]} ${guard[3]} ${guard[4]}` === this.open.key) {
        const { fromInput, lines } = this.open
        this.open = undefined
        return { _tag: "Block", block: { ok: guard[1] === "end", fromInput, lines } }
      }
      this.open.lines.push(line)
      return { _tag: "Pending" }
    }
    if (guard !== null && guard[1] === "begin") {
      this.open = { key: `${guard[2]} ${guard[3]} ${guard[4]}`, fromInput: guard[4] === "1", lines: [] }
      return { _tag: "Pending" }
    }
    if (line === "%exit" || line.startsWith("%exit ")) return { _tag: "Exit" }
    if (line.startsWith("%") && guard === null) return { _tag: "Notification" }
    return { _tag: "ProtocolError", line }
  }
}

/** What a command list printed, as the spawn-per-call transport would see it on stdout. */
export const blockOutput = (blocks: ReadonlyArray<Block>): string =>
  blocks.map((block) => block.lines.map((line) => `${line}\n`).join("")).join("")
