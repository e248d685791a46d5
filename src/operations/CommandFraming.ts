/**
 * How run_command frames a command in a pane's own shell so that its start, end and exit status can
 * be read back with certainty.
 *
 * The command text never travels through the terminal: it waits in a tmux buffer, and the line we
 * type asks the pane's shell to fetch it (`tmux show-buffer`, which also deletes it) and `eval` it
 * in the shell itself, so `cd` and `export` persist and multi-line text, heredocs and quotes need no
 * escaping. Around it, two `printf`s print the start and end markers. The markers hold a random id
 * and appear only in printf's output, never in the typed line (its format and its argument are
 * split: `printf 'ETM%s\n' _S_<id>`), so neither the echo of the typed line nor text that looks like
 * a marker with another id can end a wait early.
 */
import { randomBytes } from "node:crypto"
import { HeadTail } from "./OutputBudget.js"
import { keepEscapesLine, plainLine } from "./TerminalText.js"

/** Shells whose syntax the framing is written in (POSIX `printf`, `eval`, `$(…)`, `$?`). */
const FRAMEABLE_SHELLS = new Set(["bash", "zsh", "sh", "dash", "ksh", "ksh93", "mksh", "pdksh", "ash", "yash", "posh", "busybox"])
/** Shells with other syntax: refused by name rather than fed text they would misread. */
const OTHER_SHELLS = new Set(["fish", "nu", "pwsh", "powershell", "xonsh", "elvish", "tcsh", "csh", "ion", "murex", "rc", "es"])

export type ShellVerdict =
  | { readonly _tag: "Frameable"; readonly shell: string }
  | { readonly _tag: "OtherShell"; readonly shell: string }
  | { readonly _tag: "NotAShell"; readonly program: string }

/** Judges a pane's foreground program (`pane_current_command`; a login shell shows as "-bash"). */
export const judgeShell = (currentCommand: string): ShellVerdict => {
  const name = currentCommand.replace(/^-/, "").split("/").pop() ?? ""
  if (FRAMEABLE_SHELLS.has(name)) return { _tag: "Frameable", shell: name }
  if (OTHER_SHELLS.has(name)) return { _tag: "OtherShell", shell: name }
  return { _tag: "NotAShell", program: name }
}

/** A fresh id for one command: 16 hex digits, unguessable. */
export const newRunId = (): string => randomBytes(8).toString("hex")

export const isRunId = (value: string): boolean => /^[0-9a-f]{16}$/.test(value)

/** The tmux buffer that holds a command's text until its shell fetches it. */
export const commandBufferName = (id: string): string => `etm.run.${id}`

const startMarker = (id: string) => `ETM_S_${id}`
const endMarker = (id: string) => `ETM_E_${id}`

/** Quotes a word for any POSIX shell. */
export const shellQuote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`

export interface TypedLineOptions {
  readonly id: string
  /** The tmux server's socket, so the shell fetches from the right server even if $TMUX was changed. */
  readonly socketPath: string
  /** The tmux program as the pane's shell should run it. */
  readonly tmuxProgram: string
  /** A leading space keeps the line out of history in shells set to ignore such lines. */
  readonly suppressHistory: boolean
}

/** The one line typed into the pane (followed by Enter). */
export const typedLine = ({ id, socketPath, suppressHistory, tmuxProgram }: TypedLineOptions): string => {
  const buffer = commandBufferName(id)
  // If the buffer is gone, `false` makes the run fail visibly (tmux's message is in the output) instead of reporting success.
  const fetch = `${shellQuote(tmuxProgram)} -S ${shellQuote(socketPath)} show-buffer -b ${buffer} \\; delete-buffer -b ${buffer} || echo false`
  return `${suppressHistory ? " " : ""}printf 'ETM%s\\n' _S_${id}; eval "$(${fetch})"; printf 'ETM%s %s\\n' _E_${id} "$?"`
}

/** Where a framed command's output stands after the text seen so far. */
export interface FrameState {
  readonly started: boolean
  readonly ended: boolean
  readonly exitStatus: number | null
}

/**
 * Reads a pane's output stream (raw bytes from `pipe-pane`, or rendered lines from a capture) and
 * keeps the lines between the markers within the output budget. Only complete lines are read; the
 * byte offset of the first unread byte lets a later call carry on where this one stopped.
 */
export class FramedOutput {
  private pending: Buffer = Buffer.alloc(0)
  private consumed: number
  private startedFlag: boolean
  private endedFlag = false
  private status: number | null = null
  private toSkip: number
  private current: HeadTail
  private readonly endPattern: RegExp

  constructor(
    private readonly id: string,
    private readonly makeBudget: () => HeadTail,
    private readonly keepEscapes: boolean,
    state: { readonly started: boolean; readonly offset: number; readonly skipLines?: number }
  ) {
    this.startedFlag = state.started
    this.consumed = state.offset
    this.toSkip = state.skipLines ?? 0
    this.current = makeBudget()
    this.endPattern = new RegExp(`${endMarker(id)} (\\d+)`)
  }

  get state(): FrameState {
    return { started: this.startedFlag, ended: this.endedFlag, exitStatus: this.status }
  }

  get budget(): HeadTail {
    return this.current
  }

  /** Bytes of the stream read so far (complete lines only). */
  get offset(): number {
    return this.consumed
  }

  /** Bytes fed but not yet part of a complete line. */
  get pendingLength(): number {
    return this.pending.length
  }

  /** Feeds more of the stream. */
  feed(bytes: Buffer): void {
    if (this.endedFlag) return
    this.pending = this.pending.length === 0 ? bytes : Buffer.concat([this.pending, bytes])
    let lineStart = 0
    for (;;) {
      const newline = this.pending.indexOf(0x0a, lineStart)
      if (newline < 0) break
      this.line(this.pending.subarray(lineStart, newline).toString("utf8"))
      this.consumed += newline + 1 - lineStart
      lineStart = newline + 1
      if (this.endedFlag) break
    }
    this.pending = this.pending.subarray(lineStart)
  }

  /**
   * Reads a whole new snapshot of the stream (a capture of the pane's history) from the start,
   * skipping as many output lines as before.
   */
  rescan(bytes: Buffer, skipLines: number): void {
    this.pending = Buffer.alloc(0)
    this.consumed = 0
    this.startedFlag = false
    this.endedFlag = false
    this.status = null
    this.toSkip = skipLines
    this.current = this.makeBudget()
    this.feed(bytes)
  }

  private line(raw: string): void {
    const plain = plainLine(raw)
    const end = this.endPattern.exec(plain)
    if (end !== null) {
      // A start scrolled out of a pane's history cannot hide the end.
      this.startedFlag = true
      this.endedFlag = true
      this.status = Number(end[1])
      // Output without a final newline shares the marker's line: it is output all the same.
      const before = plain.slice(0, end.index)
      if (before !== "") this.output(this.keepEscapes ? keepEscapesLine(raw).slice(0, raw.indexOf(endMarker(this.id))) : before)
      return
    }
    if (!this.startedFlag) {
      if (plain.includes(startMarker(this.id))) this.startedFlag = true
      return
    }
    this.output(this.keepEscapes ? keepEscapesLine(raw) : plain)
  }

  private output(line: string): void {
    if (this.toSkip > 0) this.toSkip--
    else this.current.push(line)
  }
}
