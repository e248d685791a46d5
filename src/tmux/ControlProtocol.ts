/**
 * A tmux command list as one line of tmux's command parser: what `if-shell`, `run-shell` and the
 * like parse (and what a control-mode client writes, hence the name).
 *
 * Each line is parsed by tmux's configuration-file parser, not split like argv, so every argument
 * is double-quoted with the parser's own escapes; nothing in it can expand (`$VAR`, `~`), end the
 * line or separate commands.
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

/**
 * `if-shell -F`: tmux expands `condition` (for `target`, when given) and runs `then` when it is
 * neither empty nor 0, else `otherwise`, inside the same invocation. The lists travel as command
 * lines (above); if-shell expands no format in them.
 */
export const ifFormat = (
  condition: string,
  then: ReadonlyArray<TmuxCommand>,
  { otherwise, target }: { readonly target?: string; readonly otherwise?: ReadonlyArray<TmuxCommand> } = {}
): TmuxCommand => [
  "if-shell",
  "-F",
  ...(target === undefined ? [] : ["-t", target]),
  condition,
  commandLine(then),
  ...(otherwise === undefined ? [] : [commandLine(otherwise)])
]
