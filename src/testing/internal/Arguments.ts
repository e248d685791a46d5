/**
 * A command's argv read as tmux 3.3a reads it (arguments.c `args_parse`): flags from a template
 * (`x:` takes a value, either attached `-xVALUE` or the next word), grouped flags (`-dP`), `--` to
 * end them, a bound on the number of arguments, and tmux's own error texts. One quirk is kept:
 * 3.3a treats every flag value as optional, so a `-t` that ends the argv means "no value" (the
 * current target), not an error. Also the command line `if-shell` parses (as
 * `ControlProtocol.commandLine` writes it).
 */
import type { TmuxCommand } from "../../tmux/Tmux.js"

export interface Arguments {
  /** Each flag given, with its values in order (null for a flag without one). */
  readonly flags: ReadonlyMap<string, ReadonlyArray<string | null>>
  /** The arguments after the flags. */
  readonly values: ReadonlyArray<string>
}

export const has = (args: Arguments, flag: string): boolean => args.flags.has(flag)

/** A flag's last value, as tmux's args_get returns it (undefined when absent or given without one). */
export const value = (args: Arguments, flag: string): string | undefined => {
  const values = args.flags.get(flag)
  return values?.[values.length - 1] ?? undefined
}

/** Every value of a repeatable flag (`-e A=1 -e B=2`). */
export const values = (args: Arguments, flag: string): Array<string> => (args.flags.get(flag) ?? []).filter((v): v is string => v !== null)

/** Parses `argv` (after the command name) against a tmux template; the error text is tmux's own cause. */
export const parseArguments = (
  argv: ReadonlyArray<string>,
  template: string,
  lower: number,
  upper: number
): Arguments | { readonly error: string } => {
  const flags = new Map<string, Array<string | null>>()
  let i = 0
  for (; i < argv.length;) {
    const word = argv[i]!
    if (!word.startsWith("-") || word === "-") break
    i++
    if (word === "--") break
    for (let j = 1; j < word.length; j++) {
      const flag = word[j]!
      if (!/[A-Za-z0-9]/.test(flag)) return { error: `invalid flag -${flag}` }
      const at = template.indexOf(flag)
      if (at < 0) return { error: `unknown flag -${flag}` }
      const list = flags.get(flag) ?? []
      flags.set(flag, list)
      if (template[at + 1] !== ":") {
        list.push(null)
        continue
      }
      if (j + 1 < word.length) list.push(word.slice(j + 1))
      else if (i < argv.length) list.push(argv[i++]!)
      else list.push(null)
      break
    }
  }
  const rest = argv.slice(i)
  if (lower !== -1 && rest.length < lower) return { error: `too few arguments (need at least ${lower})` }
  if (upper !== -1 && rest.length > upper) return { error: `too many arguments (need at most ${upper})` }
  return { flags, values: rest }
}

/**
 * Reads a command line as `ControlProtocol.commandLine` writes it (what `if-shell` parses):
 * double-quoted arguments with backslash escapes and three-digit octal, commands separated by ` ; `.
 */
export const parseCommandLine = (line: string): Array<TmuxCommand> | { readonly error: string } => {
  const commands: Array<Array<string>> = [[]]
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!
    if (char === " ") continue
    if (char === ";") {
      commands.push([])
      continue
    }
    if (char !== "\"") return { error: `FakeTmux reads only double-quoted arguments, not ${line.slice(i, i + 12)}` }
    let argument = ""
    for (i++; i < line.length && line[i] !== "\""; i++) {
      if (line[i] !== "\\") {
        argument += line[i]
      } else if (/^[0-7]{3}$/.test(line.slice(i + 1, i + 4))) {
        argument += String.fromCharCode(parseInt(line.slice(i + 1, i + 4), 8))
        i += 3
      } else {
        argument += line[++i] ?? ""
      }
    }
    if (i >= line.length) return { error: "FakeTmux: an unterminated argument" }
    commands[commands.length - 1]!.push(argument)
  }
  return commands.filter((command) => command.length > 0)
}

/** tmux's strtonum causes, as commands word them ("width invalid", "lines too large"). */
export const number = (text: string, min: number, max: number): number | "invalid" | "too small" | "too large" => {
  if (!/^-?\d+$/.test(text)) return "invalid"
  const n = Number(text)
  return n < min ? "too small" : n > max ? "too large" : n
}
