/**
 * Whether `paste-buffer` needs `-S` to paste a buffer byte for byte. tmux 3.7 passes what it pastes
 * through vis(3) (ESC arrives as the two characters "^["), unless `-S`, a flag the same change added;
 * before 3.7 nothing is escaped and the flag does not exist: tmux refuses the whole command list
 * ("command paste-buffer: unknown flag -S") and runs none of it.
 *
 * The server's `#{version}` decides. A release (`3.3a`, `3.8`) or a development build towards one
 * (`next-3.9`) is exact; any other form (`master`, `openbsd-7.6`, `next-3.7`, which may predate the
 * flag) cannot be placed, so `-S` is tried and the refusal, which ran nothing, answered without it.
 */
import * as Effect from "effect/Effect"
import type { ResolvedSocket } from "../../../context/SocketResolver.js"
import type { TmuxError } from "../../../domain/Errors.js"
import { type RunOptions, Tmux, type TmuxCommand } from "../../../tmux/Tmux.js"

/** `-S` is sent, is not, or is tried first (`probe`). */
export type UnescapedPaste = "send" | "omit" | "probe"

/** The first release whose paste-buffer escapes, and has -S. */
const ESCAPING_SINCE: readonly [number, number] = [3, 7]

/** [major, minor] before or after 3.7, as -1 / 0 / 1. */
const against37 = (major: number, minor: number): number =>
  major !== ESCAPING_SINCE[0] ? Math.sign(major - ESCAPING_SINCE[0]) : Math.sign(minor - ESCAPING_SINCE[1])

/** How to ask a server of `version` (its `#{version}`) for an exact paste. */
export const unescapedPaste = (version: string): UnescapedPaste => {
  const release = /^(\d+)\.(\d+)[a-z]?$/.exec(version)
  if (release !== null) return against37(Number(release[1]), Number(release[2])) >= 0 ? "send" : "omit"
  // next-X.Y is built between X.Y's predecessor and X.Y: it holds every change of the releases before X.Y.
  const next = /^next-(\d+)\.(\d+)$/.exec(version)
  if (next !== null) {
    const side = against37(Number(next[1]), Number(next[2]))
    return side > 0 ? "send" : side < 0 ? "omit" : "probe"
  }
  return "probe"
}

/** tmux's refusal of `-S` (a server before 3.7); nothing of the command list ran. */
export const isUnescapedRefused = (error: TmuxError): boolean =>
  error._tag === "Failed" && error.reason === "exit" && /(?:^|\n)command paste-buffer: unknown flag -S(?:\n|$)/.test(error.stderr)

/**
 * Runs a command list holding a paste-buffer, built with or without -S as `unescaped` says: one
 * invocation, or on `probe` a second without -S when the server refused the flag.
 */
export const runExactPaste = (
  socket: ResolvedSocket,
  unescaped: UnescapedPaste,
  commands: (withS: boolean) => ReadonlyArray<TmuxCommand>,
  options?: RunOptions
): Effect.Effect<string, TmuxError, Tmux> =>
  Effect.flatMap(Tmux, (tmux) =>
    unescaped === "probe"
      ? tmux.run(socket, commands(true), options).pipe(
        Effect.catchIf(isUnescapedRefused, () => tmux.run(socket, commands(false), options))
      )
      : tmux.run(socket, commands(unescaped === "send"), options))
