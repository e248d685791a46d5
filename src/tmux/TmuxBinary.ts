/**
 * Whether the configured tmux binary runs and says it is tmux (`<bin> -V` prints `tmux <version>`):
 * doctor's first line, and what where_am_i and a start-up warning say when it does not. A server
 * without a tmux still serves (the socket transport reads running servers without one), so this is
 * reported, never a reason to stop.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { escapeMessageControls } from "../domain/ControlText.js"
import { runToEnd, TmuxProcesses } from "./TmuxProcess.js"

/** `tmux -V` prints one short line; a binary that floods is not a tmux. */
const MAX_VERSION_OUTPUT_BYTES = 4096
const MAX_QUOTED_CHARS = 40

/** What `<bin> -V` said: a tmux and its version, or what is wrong, with how to fix it. */
export type TmuxBinaryCheck =
  | { readonly _tag: "Found"; readonly version: string }
  | { readonly _tag: "Missing" | "NotTmux"; readonly problem: string }

const FIX = "Install tmux or set LIBTMUX_TMUX_BIN / --tmux."

/** Runs `<bin> -V` once, bounded like every tmux call (a binary that hangs is ended at the deadline). */
export const checkTmuxBinary = (bin: string, env: Readonly<Record<string, string>>): Effect.Effect<TmuxBinaryCheck> =>
  runToEnd(bin, ["-V"], { env, maxOutputBytes: MAX_VERSION_OUTPUT_BYTES }).pipe(
    Effect.timeout("5 seconds"),
    Effect.map((run): TmuxBinaryCheck => {
      const said = run.stdout.trim()
      if (run.exitCode !== 0) return { _tag: "Missing", problem: `${bin}: NOT FOUND or not runnable. ${FIX}` }
      if (/^tmux \S{1,40}$/.test(said)) return { _tag: "Found", version: said }
      const quoted = said.length > MAX_QUOTED_CHARS ? `${said.slice(0, MAX_QUOTED_CHARS)}…` : said
      return { _tag: "NotTmux", problem: escapeMessageControls(`${bin} is not tmux (\`-V\` printed ${JSON.stringify(quoted)}). ${FIX}`) }
    }),
    Effect.orElseSucceed((): TmuxBinaryCheck => ({ _tag: "Missing", problem: `${bin}: NOT FOUND or not runnable. ${FIX}` })),
    // Its own children: whatever of it is still running when the check ends goes with it.
    Effect.provide(TmuxProcesses.layer)
  )

/** The check run at most once, and its answer once it has run. */
export interface TmuxBinary {
  readonly check: Effect.Effect<TmuxBinaryCheck>
  readonly known: Effect.Effect<Option.Option<TmuxBinaryCheck>>
}

export const makeTmuxBinary = (bin: string, env: Readonly<Record<string, string>>): Effect.Effect<TmuxBinary> =>
  Effect.gen(function*() {
    const answer = yield* Ref.make(Option.none<TmuxBinaryCheck>())
    const check = yield* Effect.cached(Effect.tap(checkTmuxBinary(bin, env), (result) => Ref.set(answer, Option.some(result))))
    return { check, known: Ref.get(answer) }
  })
