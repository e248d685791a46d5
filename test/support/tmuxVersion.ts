/**
 * The version of the tmux the tests run: the first `tmux` on PATH, which a project of the version
 * matrix sets (test/support/setup.ts). For tests whose expectations differ between versions.
 */
import { spawnSync } from "node:child_process"

let known: string | undefined

/** e.g. "3.3a", from `tmux -V`. */
export const tmuxVersion = (): string => {
  if (known === undefined) {
    const printed = spawnSync("tmux", ["-V"], { encoding: "utf8" }).stdout.trim()
    const version = /^tmux (\d+\.\d+[a-z]?)$/.exec(printed)?.[1]
    if (version === undefined) throw new Error(`cannot tell the tmux version from ${JSON.stringify(printed)}`)
    known = version
  }
  return known
}

/** [major, minor, letter] with the letter as a number (none 0, "a" 1 …), for comparisons. */
const parts = (version: string): [number, number, number] => {
  const match = /^(\d+)\.(\d+)([a-z]?)$/.exec(version)
  if (match === null) throw new Error(`not a tmux version: ${version}`)
  return [Number(match[1]), Number(match[2]), match[3] === "" ? 0 : match[3]!.charCodeAt(0) - 96]
}

/** Whether the tests' tmux is `version` (e.g. "3.7c") or later. */
export const tmuxAtLeast = (version: string): boolean => {
  const [have, want] = [parts(tmuxVersion()), parts(version)]
  for (let i = 0; i < 3; i++) if (have[i] !== want[i]) return have[i]! > want[i]!
  return true
}

/**
 * tmux 3.4 and 3.5 print what a command prints vis-escaped: a control character as `\ooo` (octal),
 * backslashes left as they are, so a value's exact bytes cannot be read back; 3.6 stopped escaping.
 */
export const tmuxEscapesCommandOutput = (): boolean => {
  const [major = 0, minor = 0] = tmuxVersion().split(".").map((part) => parseInt(part, 10))
  return major === 3 && (minor === 4 || minor === 5)
}

/** `text` as this tmux prints it in a format's expansion: on 3.4 and 3.5, C0 controls but tab and newline, and DEL, as `\ooo`. */
export const asTmuxPrints = (text: string): string =>
  tmuxEscapesCommandOutput()
    // eslint-disable-next-line no-control-regex
    ? text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => `\\${c.charCodeAt(0).toString(8).padStart(3, "0")}`)
    : text
