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
 * environment, never on the screen (the typed line turns the shell's xtrace and verbose off around
 * the fetch and the script turns them back on just for the command). A command can read the run id
 * off the stream, but only a line with the secret ends a wait. The markers also never appear as
 * such in the script's text (format and arguments of its printf are apart), so a script printed by
 * mistake (text left in the line editor, a tracer) cannot end a wait either.
 *
 * A person may watch the pane: it is left as if they had typed the command themselves (see
 * ScreenTidy). The script first erases the typed line where the shell echoed it and shows the
 * command in its place; the markers, when a recorder reads the pane's byte stream, are escape
 * strings a terminal shows nothing for (OSC_PREFIX); only a run read back from the pane's history
 * (no recorder) needs them as visible lines.
 */
import { createHash, randomBytes } from "node:crypto"
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

export const startMarker = (id: string): string => `ETM_S_${id}`

/**
 * Hidden markers are operating system commands (`ESC ] etm;…`) that tmux parses and drops: its OSC
 * parser takes only numbered ones, and ignores control characters inside the string, so a newline
 * there ends the line for a recorder (and its grep) without moving the cursor. tmux 3.3a, 3.5a and
 * 3.8 show nothing of them, in the pane or its history (the integration suites check it).
 */
const OSC_PREFIX = "\x1b]etm;"
/** The same, as printf's format writes it. */
const OSC_FORMAT = "\\033]etm;"
/** What ends a hidden marker: a newline for line readers, then BEL, which ends the OSC. */
const OSC_END_FORMAT = "\\n\\007"

/** Whether a run's markers are hidden in the byte stream (a recorder reads it) or visible lines (its history is read). */
export type MarkerStyle = "hidden" | "visible"

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
 * Where the shell echoed the typed line, so the script can erase it: the rows to go up from where
 * Enter left the cursor (the first column of the row after the echo) to the prompt's row, and the
 * column where the line began. A shell in verbose mode (`set -v`) echoes the line once more as it
 * reads it, from the first column: rowsUpVerbose counts those rows too.
 */
export interface ScreenTidy {
  readonly rowsUp: number
  readonly rowsUpVerbose: number
  readonly column: number
}

/**
 * The typed line laid out after a prompt that ends at `column` of a pane `width` columns wide: a
 * line that would end exactly at the right edge gets a space more (where a line editor moves the
 * cursor on to the next row and a terminal's own echo does not, which would leave the row count
 * uncertain), and the rows the script goes up to erase it.
 */
export const layTypedLine = (line: string, column: number, width: number): { readonly line: string; readonly tidy: ScreenTidy } => {
  const laid = width > 0 && (column + line.length) % width === 0 ? `${line} ` : line
  const columns = Math.max(1, width)
  const rowsUp = Math.floor((column + laid.length) / columns) + 1
  return { line: laid, tidy: { rowsUp, rowsUpVerbose: rowsUp + Math.ceil(laid.length / columns), column } }
}

/** At most this much of a command is shown in place of the typed line (a long script is shown by its start). */
const DISPLAY_LINES = 6
const DISPLAY_CHARS = 2000

/** A character shown in caret notation, as a line editor shows controls (`^[`, `^?`, `M-^[` for the C1 ones). */
const caret = (character: string): string => {
  const code = character.codePointAt(0)!
  if (code === 0x7f) return "^?"
  if (code >= 0x80) return `M-^${String.fromCharCode(code - 0x80 + 0x40)}`
  return `^${String.fromCharCode(code + 0x40)}`
}

/**
 * The command as the pane shows it in place of the typed line: its lines, later ones after the
 * usual continuation prompt, controls (which the terminal would act on) in caret notation, and
 * a long command by its start with what was left out counted.
 */
export const commandDisplay = (command: string): string => {
  const lines = command.replace(/\n+$/, "").split("\n")
  const shown: Array<string> = []
  let chars = 0
  for (const [index, line] of lines.entries()) {
    if (index >= DISPLAY_LINES || chars >= DISPLAY_CHARS) {
      shown.push(`> … (${lines.length - index} more lines)`)
      break
    }
    // eslint-disable-next-line no-control-regex
    let text = line.replace(/[\x00-\x08\x0a-\x1f\x7f-\x9f]/g, caret)
    if (chars + text.length > DISPLAY_CHARS) {
      text = `${text.slice(0, DISPLAY_CHARS - chars)} … (${text.length - (DISPLAY_CHARS - chars)} more characters)`
    }
    chars += text.length
    shown.push(index === 0 ? text : `> ${text}`)
  }
  return shown.join("\n")
}

export interface FramingOptions {
  /** The pane's shell (see judgeShell). */
  readonly shell: string
  /** The file the framing holds open while it runs (see RunLease). */
  readonly lease: string
  readonly markers: MarkerStyle
  /**
   * With hidden markers, what the run's recorder watches for (see RunLogs.recordAndWatch): a second
   * secret, which the start hands to the recorder in the byte stream and the end prints after its
   * status, so that a command cannot stop the recording early.
   */
  readonly recorderKey?: string | undefined
  /** Where the typed line was echoed: erased, and the command shown there. Undefined: not known, left as it is. */
  readonly tidy?: ScreenTidy | undefined
}

/** printf's format for a marker of this style, its arguments apart. */
const markerFormat = (style: MarkerStyle, marker: string) => style === "hidden" ? `${OSC_FORMAT}${marker}${OSC_END_FORMAT}` : `${marker}\\n`

/** The printf of the end with `status`: the end marker with the secret, then, when hidden, the recorder's key. */
const endPrint = (marks: RunMarks, status: string, { markers, recorderKey }: FramingOptions) => {
  if (markers !== "hidden" || recorderKey === undefined) {
    return `printf '${markerFormat(markers, "ETM_E_%s %s")}' ${marks.id}_${marks.secret} ${status}`
  }
  // The key in two halves, so that the script's text never holds it whole.
  const half = recorderKey.length / 2
  return `printf '${markerFormat(markers, "ETM_E_%s %s %s%s")}' ${marks.id}_${marks.secret} ${status} ${recorderKey.slice(0, half)} ${
    recorderKey.slice(half)
  }`
}

/**
 * What an exit hook's marker carries in place of the secret: the hook is the shell's (`trap -p`,
 * `functions` show it to any command), so it holds a one-way token of the secret, which says
 * nothing of the secret itself, and no recorder key.
 */
export const exitToken = (secret: string): string => createHash("sha256").update(`etm-exit:${secret}`).digest("hex").slice(0, 32)

/**
 * The shell's exit status, when the command ends the shell (`exit 3`, `logout`): a hook the shell
 * runs as it exits prints the ETM_X marker with it. That marker ends nothing by itself (a command
 * can read the hook and print it): it gives the status only once the pane is gone too. bash keeps it in the EXIT trap, set only when
 * the shell has none (or a stale one of ours, left by a C-c), and taken back after the command
 * unless the command set its own; subshells do not run it. zsh has a list of exit hooks, so the
 * user's traps are never touched; its hooks also run as a subshell exits, which they skip. Other
 * shells cannot show their traps to the script without a subshell that forgets them: there a
 * command that ends the shell is reported as the pane dying.
 */
const exitCapture = (marks: RunMarks, options: FramingOptions): { readonly set: string; readonly clear: string } | undefined => {
  // The pane is gone after the exit, its history with it: only a recorder can read this end.
  // xtrace is turned off, quietly, first: the shell's own trace of the hook is no output of the command's.
  const print = (status: string) =>
    `{ set +x; } 2>/dev/null; printf '${markerFormat("hidden", "ETM_X_%s %s")}' ${marks.id}_${exitToken(marks.secret)} ${status}`
  const { shell } = options
  if (shell === "bash") {
    return {
      set: `case $(trap -p EXIT) in '' | *ETM_X_*) trap ${
        shellQuote(`${FLAGS_VARIABLE}=$?; ${print(`"$${FLAGS_VARIABLE}"`)}`)
      } EXIT;; esac`,
      clear: `case $(trap -p EXIT) in *${marks.id}_*) trap - EXIT;; esac`
    }
  }
  if (shell === "zsh") {
    return {
      set: `_etm_x() { local _etm_s=$?; (( ZSH_SUBSHELL )) || { ${
        print(`"$_etm_s"`)
      }; }; }; zshexit_functions=(\${zshexit_functions:#_etm_x} _etm_x)`,
      clear: `zshexit_functions=(\${zshexit_functions:#_etm_x}); unfunction _etm_x`
    }
  }
  return undefined
}

/**
 * What the script prints first: the typed line erased (up to its row, to its column, the rest of
 * the screen cleared), the command in its place, and the start marker.
 */
const opening = (marks: RunMarks, command: string, { markers, recorderKey, tidy }: FramingOptions): string => {
  // Hidden, its newline is inside the string: a line of its own for a reader, none on the screen.
  const start = markers === "hidden" && recorderKey !== undefined
    ? `printf '${markerFormat(markers, "ETM_S_%s %s")}' ${marks.id} ${recorderKey}`
    : `printf '${markerFormat(markers, "ETM_S_%s")}' ${marks.id}`
  if (tidy === undefined) return start
  const up = (rows: number) => `printf '\\r\\033[${rows}A'`
  return [
    `case $${FLAGS_VARIABLE} in *v*) ${up(tidy.rowsUpVerbose)};; *) ${up(tidy.rowsUp)};; esac`,
    `printf '\\033[${tidy.column + 1}G\\033[J%s\\n' ${shellQuote(commandDisplay(command))}`,
    start
  ].join("; ")
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
export const framingScript = (marks: RunMarks, command: string, options: FramingOptions): string => {
  const { lease, shell } = options
  const evaluate = shell === "zsh" ? "eval" : "command eval"
  const flags = `$${FLAGS_VARIABLE}`
  const onExit = exitCapture(marks, options)
  return [
    `{ ${opening(marks, command, options)}`,
    ...(onExit === undefined ? [] : [onExit.set]),
    // What the eval runs first, so neither the eval nor this is traced or echoed: the variable
    // gone before the command starts, then xtrace and verbose as they were.
    `case ${flags} in *v*x* | *x*v*) ${FLAGS_VARIABLE}='set -vx';; *v*) ${FLAGS_VARIABLE}='set -v';; *x*) ${FLAGS_VARIABLE}='set -x';; *) ${FLAGS_VARIABLE}=:;; esac`,
    `${evaluate} "unset ${FLAGS_VARIABLE}; ${flags}\n"${shellQuote(command)}`,
    `{ ${FLAGS_VARIABLE}="$? $-"; set +x; } 2>/dev/null`,
    ...(onExit === undefined ? [] : [onExit.clear]),
    endPrint(marks, `"\${${FLAGS_VARIABLE}%% *}"`, options),
    `case ${flags} in *x*) unset ${FLAGS_VARIABLE}; set -x;; *) unset ${FLAGS_VARIABLE};; esac; } ${LEASE_FD}<${shellQuote(lease)}`
  ].join("; ")
}

/** Where a framed command's output stands after the text seen so far. */
export interface FrameState {
  readonly started: boolean
  readonly ended: boolean
  readonly exitStatus: number | null
  /**
   * The shell's exit hook printed its marker (see exitCapture): exitStatus is the shell's, once
   * the pane is gone too (a run does not end on this marker alone).
   */
  readonly shellExited: boolean
}

/** What bash prints as an interactive shell exits: the shell's, not the command's output, when the shell ends right after. */
const FAREWELLS = new Set(["exit", "logout"])

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
  private exitedShell = false
  /** A last line that may be the shell's farewell (see FAREWELLS), held until the next line says. */
  private held: string | undefined
  /** The next line starts with the BEL that ends the hidden start marker. */
  private belOpensLine = false
  private toSkip: number
  private current: LineSink
  private before: Array<string> = []
  private readonly endPattern: RegExp
  private readonly exitPattern: RegExp

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
    this.endPattern = new RegExp(`ETM_E_${marks.id}_${marks.secret} (\\d+)`)
    this.exitPattern = new RegExp(`ETM_X_${marks.id}_${exitToken(marks.secret)} (\\d+)`)
  }

  get state(): FrameState {
    return { started: this.startedFlag || this.knownStarted, ended: this.endedFlag, exitStatus: this.status, shellExited: this.exitedShell }
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
    // A marker's BEL waiting alone is taken now, so that an offset handed on (a handle) is past it.
    if (this.belOpensLine && this.long === undefined && this.pending[0] === 0x07) {
      this.belOpensLine = false
      this.pending = this.pending.subarray(1)
      this.consumed += 1
    }
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
    this.exitedShell = false
    this.held = undefined
    this.belOpensLine = false
    this.toSkip = skipLines
    this.current = this.makeBudget()
    this.before = []
    this.feed(bytes)
  }

  /** One line of the stream: `raw` whole, or the tail of a long line whose head is in `cut`. */
  private line(rawLine: string, cutLine?: LongLine): void {
    let raw = rawLine
    let cut = cutLine
    if (this.belOpensLine) {
      this.belOpensLine = false
      if (cut !== undefined && cut.head[0] === 0x07) cut = { ...cut, head: cut.head.subarray(1) }
      else if (cut === undefined && raw.startsWith("\x07")) raw = raw.slice(1)
    }
    const plain = plainLine(raw)
    // A long line reads as its head, what was left out, and its tail, each as a screen shows it.
    const whole = (text: string, escapes: boolean) =>
      cut === undefined
        ? text
        : `${escapes ? cut.head.toString("utf8") : plainLine(cut.head.toString("utf8"))}${elision(cut.elided)}${text}`
    // Markers are looked for in the raw line: hidden ones are escape strings, gone from its plain text.
    const end = this.endPattern.exec(raw)
    if (end !== null) {
      // A start scrolled out of a pane's history cannot hide the end.
      this.startedFlag = true
      this.endedFlag = true
      this.exitedShell = false
      this.status = Number(end[1])
      this.settle()
      this.outputBefore(raw, end.index, cut, whole)
      return
    }
    const exit = this.startedFlag ? this.exitPattern.exec(raw) : null
    if (exit !== null) {
      // The shell's farewell before it is the shell's; what follows, if the shell lives on after
      // all (a command printed the hook's marker), is output again.
      this.exitedShell = true
      this.status = Number(exit[1])
      this.held = undefined
      this.outputBefore(raw, exit.index, cut, whole)
      this.belOpensLine = true
      return
    }
    if (!this.startedFlag) {
      if (raw.includes(startMarker(this.marks.id))) {
        this.startedFlag = true
        this.startMarkerSeen = true
        // A hidden start's string is ended by the BEL that opens the next line (OSC_END_FORMAT).
        this.belOpensLine = raw.includes(`${OSC_PREFIX}${startMarker(this.marks.id)}`)
      } else {
        if (plain.includes(commandBufferName(this.marks.id))) this.typedSeen = true
        this.before.push(whole(plain, false))
        if (this.before.length > PREAMBLE_LINES) this.before.shift()
      }
      return
    }
    this.output(whole(this.keepEscapes ? keepEscapesLine(raw) : plain, this.keepEscapes), cut)
  }

  /** Output without a final newline shares a marker's line, before it: it is output all the same. */
  private outputBefore(raw: string, index: number, cut: LongLine | undefined, whole: (text: string, escapes: boolean) => string): void {
    const rawBefore = raw.slice(0, index)
    const before = rawBefore.endsWith(OSC_PREFIX) ? rawBefore.slice(0, -OSC_PREFIX.length) : rawBefore
    const text = this.keepEscapes ? before : plainLine(before)
    if (text !== "" || cut !== undefined) this.output(whole(text, this.keepEscapes), cut)
  }

  /** A line held as a possible farewell is output after all: the shell did not exit after it (or the wait ends here). */
  settle(): void {
    const held = this.held
    this.held = undefined
    if (held !== undefined) this.emit(held, undefined)
  }

  private output(line: string, cut: LongLine | undefined): void {
    this.settle()
    if (cut === undefined && FAREWELLS.has(plainLine(line))) this.held = line
    else this.emit(line, cut)
  }

  private emit(line: string, cut: LongLine | undefined): void {
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
