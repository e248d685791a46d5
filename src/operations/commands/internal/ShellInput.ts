/**
 * Whether a line typed into a pane, and not fetched by its shell yet, still waits in the terminal
 * for the shell, or was read by something else.
 *
 * A shell that is still starting (an rc file running nvm, conda or pyenv init: seconds, and a
 * minute behind a stale lock) reads nothing from its terminal: the line waits there, and runs
 * once the shell shows its prompt. Its rc file's commands run in the shell's own process group, so
 * tmux names the pane's program as the shell all along, as at a prompt. What tells the two apart is
 * where the terminal's foreground process sleeps: a process blocked reading its terminal (or
 * polling it) has nothing left to read, so whatever it is (a shell at an unfinished quote's prompt,
 * `read`) took the line; one that waits for a child, or runs, has not read it yet.
 *
 * Looked at where the pane runs, by `run-shell` on the pane's tmux server (its pids are that host's),
 * in POSIX sh: the leader of the terminal's foreground process group (the shell itself while it
 * reads its rc file), its state and the kernel function it sleeps in, from /proc, else from ps.
 * The pid is a number read from tmux, and the script is fixed text: nothing else reaches it.
 * What cannot be read is "unknown", and is never taken as "reading".
 */
import * as Effect from "effect/Effect"
import type { ResolvedSocket } from "../../../context/SocketResolver.js"
import { literalizeFormat } from "../../../tmux/Literal.js"
import { Tmux, type TmuxCommand } from "../../../tmux/Tmux.js"
import { newRunId, shellQuote } from "./CommandFraming.js"

/** reading: blocked on its terminal (the typed line was read). busy: running, or waiting for a child. */
export type ShellInput = "reading" | "busy" | "unknown"

const MARK = "etm-shell-input"

/**
 * One line (run-shell hands it to the server's default-shell first, which need not take newlines
 * inside quotes); the pane's pid is `$1`. Field 6 after the command name in /proc's stat is tpgid.
 * A process caught between sleeps reads as sleeping in "0" (about one look in a hundred, for a
 * shell that waits for one child after another): it is looked at again, a few times.
 */
const PROBE = [
  `p=$1`,
  `if [ -r /proc/$p/stat ]; then t=$(sed "s/.*) //" /proc/$p/stat | cut -d" " -f6); [ "$t" -gt 0 ] 2>/dev/null || t=$p; for i in 1 2 3 4 5; do s=$(sed "s/.*) //" /proc/$t/stat | cut -d" " -f1); w=$(cat /proc/$t/wchan); [ "$w" = 0 ] || break; done`,
  `else t=$(ps -o tpgid= -p $p | tr -d " "); [ "$t" -gt 0 ] 2>/dev/null || t=$p; s=$(ps -o stat= -p $t); w=$(ps -o wchan= -p $t); fi`,
  `printf "${MARK} %s %s\\n" "$s" "$w"`
].join("; ")

/**
 * The probe's answer goes into buffer `$4` of the server at `$3` (tmux program `$2`): run-shell
 * would show a job's output in a pane (view mode, in front of a person) rather than send it back.
 */
const SCRIPT = `{ ${PROBE}; } 2>/dev/null | "$2" -S "$3" load-buffer -b "$4" - >/dev/null 2>&1`

export interface ShellInputProbe {
  /** The pane's first process, as its host numbers it. */
  readonly panePid: number
  /** The tmux program and the server's socket as a job of that server names them. */
  readonly tmuxProgram: string
  readonly socketPath: string
}

/** The command list that probes the pane, its answer shown and its buffer deleted in the same list. */
export const shellInputCommands = ({ panePid, socketPath, tmuxProgram }: ShellInputProbe, buffer: string): ReadonlyArray<TmuxCommand> => {
  const words = [String(panePid), tmuxProgram, socketPath, buffer].map(shellQuote).join(" ")
  return [
    ["run-shell", literalizeFormat(`exec /bin/sh -c ${shellQuote(SCRIPT)} sh ${words}`)],
    ["show-buffer", "-b", buffer],
    ["delete-buffer", "-b", buffer]
  ]
}

/** Kernel functions (Linux, and the BSDs' wait channels) a process sleeps in while it reads or polls a terminal. */
const READING =
  /^(poll_schedule_timeout|do_select|core_sys_select|do_sys_poll|do_poll|wait_woken|n_tty_read|tty_read|ttyin|select|ttread)\b/
/** …and while it waits for a child. */
const WAITING = /^(do_wait|kernel_wait4|wait4|wait|pause)\b/

/** What the probe printed, judged. */
export const judgeShellInput = (output: string): ShellInput => {
  const line = output.split("\n").find((row) => row.startsWith(`${MARK} `))
  if (line === undefined) return "unknown"
  const [state = "", wchan = ""] = line.slice(MARK.length + 1).trim().split(/\s+/)
  if (state.startsWith("R")) return "busy"
  if (!/^[SDI]/.test(state)) return "unknown"
  if (WAITING.test(wchan)) return "busy"
  return READING.test(wchan) ? "reading" : "unknown"
}

/** Where the pane's terminal input stands (see the top of this module); a probe that fails is "unknown". */
export const shellInput = (socket: ResolvedSocket, probe: Omit<ShellInputProbe, "socketPath">): Effect.Effect<ShellInput, never, Tmux> =>
  !Number.isSafeInteger(probe.panePid) || probe.panePid <= 0
    ? Effect.succeed("unknown")
    : Effect.flatMap(Tmux, (tmux) => tmux.run(socket, shellInputCommands({ ...probe, socketPath: socket.path }, `etm.probe.${newRunId()}`)))
      .pipe(
        Effect.map(judgeShellInput),
        Effect.catch(() => Effect.succeed<ShellInput>("unknown"))
      )
