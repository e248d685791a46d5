/**
 * How run_command frames a command in a pane's own shell so that its start, end and exit status can
 * be read back with certainty, even from a command that tries to fake them.
 *
 * Nothing but one short line travels through the terminal. The line typed into the pane asks the
 * shell to fetch a tmux buffer (`tmux show-buffer`, which also deletes it) and `eval` it in the shell
 * itself, so `cd` and `export` persist. The buffer holds a small script, parsed whole before any of
 * it runs: print the start marker, `eval` the command (a single-quoted word, so a syntax error in it
 * fails only that eval), print the end marker with the eval's status.
 *
 * The end marker carries a per-run secret besides the run id. The secret exists only in that script:
 * the buffer is gone before the command starts, the script is never an argv, never in the
 * environment, never on the screen before the end (the typed line turns the shell's xtrace and
 * verbose off around the fetch and the script turns them back on just for the command). A command
 * can read the run id off the screen, but only a line with the secret ends a wait. The markers also
 * never appear as such in the script's text (format and arguments of its printf are apart), so a
 * script printed by mistake (text left in the line editor, a tracer) cannot end a wait either.
 */
import { randomBytes } from "node:crypto"
import type { LineSink } from "../../bounds/OutputBudget.js"
import { keepEscapesLine, plainLine } from "./TerminalText.js"

/** Shells whose syntax the framing is written in (POSIX `printf`, `eval`, `$(…)`, `$?`, `case`). */
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

/** A fresh id for one command: 16 hex digits, unguessable, but visible on the pane's screen. */
export const newRunId = (): string => randomBytes(8).toString("hex")

export const isRunId = (value: string): boolean => /^[0-9a-f]{16}$/.test(value)

/** A fresh end secret: 32 hex digits that only the framing script and the run's handle hold. */
export const newRunSecret = (): string => randomBytes(16).toString("hex")

export const isRunSecret = (value: string): boolean => /^[0-9a-f]{32}$/.test(value)

/** What identifies one run's markers. */
export interface RunMarks {
  readonly id: string
  readonly secret: string
}

/** The tmux buffer that holds a command's script until its shell fetches it. */
export const commandBufferName = (id: string): string => `etm.run.${id}`

const startMarker = (id: string) => `ETM_S_${id}`
const endMarkerPrefix = (id: string): string => `ETM_E_${id}_`
const endMarker = ({ id, secret }: RunMarks) => `${endMarkerPrefix(id)}${secret}`
/**
 * What a recorder can look for without knowing the secret (an extended regular expression): a line
 * shaped like the end, so that a run id read off the screen, a cut marker or a tracer's line does
 * not stop the recording.
 */
export const endMarkerShape = (id: string): string => `${endMarkerPrefix(id)}[0-9a-f]{32} [0-9]`

/** Quotes a word for any POSIX shell. */
export const shellQuote = (word: string): string => `'${word.replaceAll("'", `'\\''`)}'`

/** The descriptor the framing group holds its lease on (a single digit, for every POSIX shell). */
export const LEASE_FD = 9

/** The shell variable that carries the shell's `$-` across the fetch (its xtrace and verbose flags). */
const FLAGS_VARIABLE = "_etm_f"

export interface TypedLineOptions {
  readonly id: string
  /** The tmux server's socket, so the shell fetches from the right server even if $TMUX was changed. */
  readonly socketPath: string
  /** The tmux program as the pane's shell should run it. */
  readonly tmuxProgram: string
  /** A leading space keeps the line out of history in shells set to ignore such lines. */
  readonly suppressHistory: boolean
}

/**
 * The one line typed into the pane (followed by Enter). It holds neither marker nor the secret.
 * xtrace would print the fetched script as eval's argument, and verbose would echo it: both are
 * turned off, quietly, before the fetch.
 */
export const typedLine = ({ id, socketPath, suppressHistory, tmuxProgram }: TypedLineOptions): string => {
  const buffer = commandBufferName(id)
  // If the buffer is gone, `false` makes the line fail visibly (tmux's message is in the output) instead of running anything.
  const fetch = `${shellQuote(tmuxProgram)} -S ${
    shellQuote(socketPath)
  } show-buffer -b ${buffer} \\; delete-buffer -b ${buffer} || echo false`
  return `${suppressHistory ? " " : ""}{ ${FLAGS_VARIABLE}=$-; set +xv; } 2>/dev/null; eval "$(${fetch})"`
}

/**
 * The script the typed line fetches and evals: one brace group, so the shell parses all of it
 * before the command runs (and a command that changes aliases or options cannot change the rest).
 * `command eval` keeps an error of a special builtin in the command (a syntax error, `set -o bogus`)
 * from aborting the whole group in shells that follow POSIX there (dash); zsh reads `command` as
 * "an external program", and does not abort there, so it gets a plain `eval`.
 *
 * xtrace stays off for all of the framing: a shell that traces turns it back on as the first
 * command inside the eval (so the eval itself is not traced, only what it runs), and off again,
 * quietly, in the group that keeps the eval's status; the end is printed untraced, and the shell's
 * xtrace is left as the command left it.
 *
 * The group holds the run's log open as LEASE_FD while it runs, and a shell closes it when the
 * group ends or is cut short (a C-c drops the rest of it): so the claim of a command made of
 * builtins only (`read x`) is seen live without any child process (see RunLease).
 */
export const framingScript = (marks: RunMarks, command: string, shell: string, lease: string): string => {
  const evaluate = shell === "zsh" ? "eval" : "command eval"
  const flags = `$${FLAGS_VARIABLE}`
  return [
    `{ printf 'ETM_S_%s\\n' ${marks.id}`,
    // What the eval runs first, so neither the eval nor this is traced or echoed: the variable
    // gone before the command starts, then xtrace and verbose as they were.
    `case ${flags} in *v*x* | *x*v*) ${FLAGS_VARIABLE}='set -vx';; *v*) ${FLAGS_VARIABLE}='set -v';; *x*) ${FLAGS_VARIABLE}='set -x';; *) ${FLAGS_VARIABLE}=:;; esac`,
    `${evaluate} "unset ${FLAGS_VARIABLE}; ${flags}\n"${shellQuote(command)}`,
    `{ ${FLAGS_VARIABLE}="$? $-"; set +x; } 2>/dev/null`,
    `printf 'ETM_E_%s %s\\n' ${marks.id}_${marks.secret} "\${${FLAGS_VARIABLE}%% *}"`,
    `case ${flags} in *x*) unset ${FLAGS_VARIABLE}; set -x;; *) unset ${FLAGS_VARIABLE};; esac; } ${LEASE_FD}<${shellQuote(lease)}`
  ].join("; ")
}

/** Where a framed command's output stands after the text seen so far. */
export interface FrameState {
  readonly started: boolean
  readonly ended: boolean
  readonly exitStatus: number | null
}

/** Lines kept from before the start marker: what the pane showed when a command did not start. */
const PREAMBLE_LINES = 20

/**
 * A line of more than PENDING_LIMIT bytes (escapes included) is kept as its first LINE_HEAD_BYTES
 * and its last LINE_TAIL_BYTES (which hold an end marker that shares its line) with the count of
 * bytes between; an unfinished line is shortened so as soon as it holds that much, so a line that
 * never ends costs no more memory than PENDING_LIMIT and a read chunk. Shorter lines are read
 * whole (their text without escapes is often much shorter) and cut by the output budget.
 */
const LINE_HEAD_BYTES = 2048
const LINE_TAIL_BYTES = 1536
const PENDING_LIMIT = 64 * 1024

/**
 * The head of a line too long to keep whole, and how many of its bytes after the head were dropped;
 * `unfetched` when some of them were never fetched (see FramedOutput.skip), not dropped for length.
 */
interface LongLine {
  readonly head: Buffer
  elided: number
  unfetched?: boolean
}

/** The last `length` bytes of `bytes`, starting at a character boundary, copied (so the rest can be freed). */
const lastBytes = (bytes: Buffer, length: number): Buffer => {
  let start = Math.max(0, bytes.length - length)
  // Skip UTF-8 continuation bytes: a character cut in two is left out whole.
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++
  return Buffer.from(bytes.subarray(start))
}

/** The first `length` bytes of `bytes`, ending at a character boundary. */
const firstBytes = (bytes: Buffer, length: number): Buffer => {
  if (bytes.length <= length) return Buffer.from(bytes)
  let end = length
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
  return Buffer.from(bytes.subarray(0, end))
}

/** What stands for the bytes a long line lost between its head and its tail. */
const elision = (bytes: number) => `[… ${bytes} bytes elided …]`

/**
 * Reads a pane's output stream (raw bytes from `pipe-pane`, or rendered lines from a capture) and
 * keeps the lines between the markers within the output budget. Only complete lines are read; the
 * byte offset of the first unread byte lets a later call carry on where this one stopped.
 */
export class FramedOutput {
  /** The unfinished line (its tail only once it is long). */
  private pending: Buffer = Buffer.alloc(0)
  private long: LongLine | undefined
  private cutCount = 0
  /** Of cutCount, the lines cut by a skip rather than for their length. */
  private skipCutCount = 0
  private skipped: { bytes: number; lines: number | null } = { bytes: 0, lines: 0 }
  private consumed: number
  private startedFlag: boolean
  /** The start was seen once (in the log, an earlier capture, a handle): a history that lost it cannot undo that. */
  private knownStarted: boolean
  private startMarkerSeen = false
  private typedSeen = false
  private lost = false
  private lastCapture: { readonly bytes: Buffer; readonly skipLines: number } | undefined
  private endedFlag = false
  private status: number | null = null
  private toSkip: number
  private current: LineSink
  private before: Array<string> = []
  private readonly endPattern: RegExp
  private readonly endText: string

  constructor(
    private readonly marks: RunMarks,
    private readonly makeBudget: () => LineSink,
    private readonly keepEscapes: boolean,
    state: { readonly started: boolean; readonly offset: number; readonly skipLines?: number }
  ) {
    this.startedFlag = state.started
    this.knownStarted = state.started
    this.consumed = state.offset
    this.toSkip = state.skipLines ?? 0
    this.current = makeBudget()
    this.endText = endMarker(marks)
    this.endPattern = new RegExp(`${this.endText} (\\d+)`)
  }

  get state(): FrameState {
    return { started: this.startedFlag || this.knownStarted, ended: this.endedFlag, exitStatus: this.status }
  }

  /**
   * The last capture read did not hold the command's start though it ran: lines scrolled out of the
   * pane's history before they were read, so the output holds what was left from its top on.
   */
  get startLost(): boolean {
    return this.lost
  }

  /** The line typed into the pane (it names the run's buffer) was in the stream before any start. */
  get typedLineSeen(): boolean {
    return this.typedSeen
  }

  /** The command is taken as started though its start was not seen; the last capture is read again so. */
  assumeStarted(): void {
    this.knownStarted = true
    if (this.lastCapture !== undefined && !this.startedFlag) this.rescan(this.lastCapture.bytes, this.lastCapture.skipLines)
  }

  get budget(): LineSink {
    return this.current
  }

  /** The last lines seen before the start marker (plain text). */
  get preamble(): ReadonlyArray<string> {
    return this.before
  }

  /** Bytes of the stream read so far (complete lines only). */
  get offset(): number {
    return this.consumed
  }

  /** Bytes fed but not yet part of a complete line. */
  get pendingLength(): number {
    return this.pending.length + (this.long === undefined ? 0 : this.long.head.length + this.long.elided)
  }

  /** Output lines kept as their head and tail only (see LINE_HEAD_BYTES, skip), and not cut again by the budget. */
  get cutLines(): number {
    return this.cutCount
  }

  /** Of cutLines, those cut for their length (over PENDING_LIMIT), not by a skip. */
  get longLinesCut(): number {
    return this.cutCount - this.skipCutCount
  }

  /** Output bytes not read (skip), and the line ends they held (null: not known). */
  get unfetched(): { readonly bytes: number; readonly lines: number | null } {
    return this.skipped
  }

  /** Feeds more of the stream. */
  feed(bytes: Buffer): void {
    if (this.endedFlag) return
    this.pending = this.pending.length === 0 ? bytes : Buffer.concat([this.pending, bytes])
    let lineStart = 0
    for (;;) {
      const newline = this.pending.indexOf(0x0a, lineStart)
      if (newline < 0) break
      const text = this.pending.subarray(lineStart, newline)
      const long = this.long
      this.consumed += newline + 1 - lineStart + (long === undefined ? 0 : long.head.length + long.elided)
      this.long = undefined
      if (long === undefined && text.length <= PENDING_LIMIT) this.line(text.toString("utf8"))
      else {
        const head = long?.head ?? firstBytes(text, LINE_HEAD_BYTES)
        const tail = lastBytes(long === undefined ? text.subarray(head.length) : text, LINE_TAIL_BYTES)
        const elided = (long?.elided ?? 0) + (long === undefined ? text.length - head.length : text.length) - tail.length
        this.line(tail.toString("utf8"), { head, elided, ...(long?.unfetched === true ? { unfetched: true } : {}) })
      }
      lineStart = newline + 1
      if (this.endedFlag) break
    }
    this.pending = this.pending.subarray(lineStart)
    if (!this.endedFlag && this.pending.length > PENDING_LIMIT) this.shorten()
  }

  /**
   * The next `bytes` of the stream were not read (the middle of a log too long to fetch whole, see
   * RemoteRunLogs), and held `lines` line ends (null: not known). The line they fall in reads as
   * its head, the elision and its tail, like a long line; the lines they held count as elided.
   */
  skip(bytes: number, lines: number | null): void {
    if (this.endedFlag || bytes <= 0) return
    if (this.long === undefined) {
      const head = firstBytes(this.pending, LINE_HEAD_BYTES)
      this.long = { head, elided: this.pending.length - head.length }
    } else this.long.elided += this.pending.length
    this.long.elided += bytes
    this.pending = Buffer.alloc(0)
    // Before the start they were the pane's own text: nothing of the output.
    if (this.startedFlag) {
      this.long.unfetched = true
      this.current.elide(lines)
      const counted = this.skipped.lines
      this.skipped = { bytes: this.skipped.bytes + bytes, lines: counted === null || lines === null ? null : counted + lines }
    }
  }

  /** Keeps the unfinished line's head (once) and its tail, counting what is dropped between. */
  private shorten(): void {
    let rest = this.pending
    if (this.long === undefined) {
      const head = firstBytes(rest, LINE_HEAD_BYTES)
      this.long = { head, elided: 0 }
      rest = rest.subarray(head.length)
    }
    this.pending = lastBytes(rest, LINE_TAIL_BYTES)
    this.long.elided += rest.length - this.pending.length
  }

  /**
   * Reads a whole new snapshot of the stream (a capture of the pane's history) from the start,
   * skipping as many output lines as before.
   */
  rescan(bytes: Buffer, skipLines: number): void {
    this.lastCapture = { bytes, skipLines }
    // The start seen in the log before the recorder stopped counts as much as one in the history.
    this.knownStarted ||= this.startedFlag
    this.scan(bytes, skipLines, false)
    // A run that did start (or whose end is here) but whose start is not: the start scrolled out,
    // and every line the history still holds came after it.
    this.lost = !this.startMarkerSeen && (this.knownStarted || this.endedFlag)
    if (this.lost) this.scan(bytes, skipLines, true)
    this.knownStarted ||= this.startedFlag
  }

  private scan(bytes: Buffer, skipLines: number, fromStart: boolean): void {
    this.pending = Buffer.alloc(0)
    this.long = undefined
    this.cutCount = 0
    this.skipCutCount = 0
    this.skipped = { bytes: 0, lines: 0 }
    this.consumed = 0
    this.startedFlag = fromStart
    this.startMarkerSeen = false
    this.typedSeen = false
    this.endedFlag = false
    this.status = null
    this.toSkip = skipLines
    this.current = this.makeBudget()
    this.before = []
    this.feed(bytes)
  }

  /** One line of the stream: `raw` whole, or the tail of a long line whose head is in `cut`. */
  private line(raw: string, cut?: LongLine): void {
    const plain = plainLine(raw)
    // A long line reads as its head, what was left out, and its tail, each as a screen shows it.
    const whole = (text: string, escapes: boolean) =>
      cut === undefined
        ? text
        : `${escapes ? cut.head.toString("utf8") : plainLine(cut.head.toString("utf8"))}${elision(cut.elided)}${text}`
    const end = this.endPattern.exec(plain)
    if (end !== null) {
      // A start scrolled out of a pane's history cannot hide the end.
      this.startedFlag = true
      this.endedFlag = true
      this.status = Number(end[1])
      // Output without a final newline shares the marker's line: it is output all the same.
      const before = plain.slice(0, end.index)
      if (before !== "" || cut !== undefined) {
        this.output(whole(this.keepEscapes ? keepEscapesLine(raw).slice(0, raw.indexOf(this.endText)) : before, this.keepEscapes), cut)
      }
      return
    }
    if (!this.startedFlag) {
      if (plain.includes(startMarker(this.marks.id))) {
        this.startedFlag = true
        this.startMarkerSeen = true
      } else {
        if (plain.includes(commandBufferName(this.marks.id))) this.typedSeen = true
        this.before.push(whole(plain, false))
        if (this.before.length > PREAMBLE_LINES) this.before.shift()
      }
      return
    }
    this.output(whole(this.keepEscapes ? keepEscapesLine(raw) : plain, this.keepEscapes), cut)
  }

  private output(line: string, cut: LongLine | undefined): void {
    if (this.toSkip > 0) this.toSkip--
    else if (cut === undefined) this.current.push(line)
    else {
      // A small output budget may cut the line again: it counts once.
      const cutBefore = this.current.result().cut_lines
      this.current.push(line)
      if (this.current.result().cut_lines === cutBefore) {
        this.cutCount++
        if (cut.unfetched === true) this.skipCutCount++
      }
    }
  }
}
