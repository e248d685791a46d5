/**
 * Escaping of caller text on its way into tmux, done once at the edge that needs it.
 */

/**
 * tmux expands formats in names, titles and start directories, so `#(cmd)` would run `cmd`.
 * Doubling every `#` makes tmux store and show the text exactly as given, except in a run of `#`
 * right before `[`: tmux copies such a run verbatim (it is left for style drawing), so doubling it
 * would store `##[` for `#[`. That run is passed as it is.
 */
export const literalizeFormat = (text: string): string =>
  text.replace(/#+(\[?)/g, (run, bracket: string) => (bracket === "[" ? run : run + run))

/**
 * tmux splits a command line given as argv at every argument that ends in `;` (the argument minus
 * its `;` ends the command), and turns a trailing `\;` into a literal `;`. So an argument that ends
 * in `;` gets a backslash before that `;`; tmux removes it again, and the argument arrives intact.
 */
export const escapeArgvArgument = (argument: string): string => argument.endsWith(";") ? `${argument.slice(0, -1)}\\;` : argument
