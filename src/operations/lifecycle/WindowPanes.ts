/**
 * The panes a new session or window starts with, beyond its first: a chain of splits, each of the
 * pane made just before it (the first, of the window's first pane), sent in one command list (in
 * several when they do not fit in one: Create). No
 * split passes `-d`, so the pane just made is its window's active pane and the next split, aimed at
 * the window, splits it; once built, the last pane made is the window's active one.
 */
import * as Effect from "effect/Effect"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import { type Failed, InvalidInput, NotFound } from "../../domain/Errors.js"
import type { PaneDetail } from "../../domain/Model.js"
import * as Format from "../../tmux/Format.js"
import { paneIdsRecord } from "../../tmux/Records.js"
import type { TmuxCommand } from "../../tmux/Tmux.js"
import { type SpawnArguments, spawnArguments, type SpawnRequest } from "./Spawn.js"

/** Where a new pane goes, relative to the pane that is split. */
export type SplitDirection = "above" | "below" | "left" | "right"

/** Cells, or a percentage of the pane that is split. */
export type SplitSize = number | `${number}%`

export const DIRECTION_FLAGS: Record<SplitDirection, ReadonlyArray<string>> = {
  below: ["-v"],
  above: ["-v", "-b"],
  right: ["-h"],
  left: ["-h", "-b"]
}

/** One more pane of a new window: it splits the pane made just before it. */
export interface PaneSplit {
  readonly direction: SplitDirection
  /** Half of the split pane otherwise. */
  readonly size?: SplitSize | undefined
  /** The directory of the pane it splits otherwise (as that pane was started). */
  readonly startDirectory?: string | undefined
  /** argv, run without a shell; the shell otherwise. */
  readonly command?: ReadonlyArray<string> | undefined
}

/** More splits than a window of tmux's default size can hold in any useful shape. */
export const MAX_PANE_SPLITS = 8

/**
 * How each split starts its process. The environment and history suppression are the call's, for
 * every pane it makes; a split's start directory is its own, or that of the pane it splits.
 */
export const splitSpawns = (
  socket: ResolvedSocket,
  request: SpawnRequest,
  splits: ReadonlyArray<PaneSplit>
): Effect.Effect<ReadonlyArray<SpawnArguments>, InvalidInput | Failed> =>
  Effect.gen(function*() {
    if (splits.length > MAX_PANE_SPLITS) {
      return yield* Effect.fail(new InvalidInput({ reason: `panes takes at most ${MAX_PANE_SPLITS} entries; got ${splits.length}.` }))
    }
    const spawns: Array<SpawnArguments> = []
    let directory = request.startDirectory
    for (const [index, split] of splits.entries()) {
      directory = split.startDirectory ?? directory
      const spawn = yield* spawnArguments(
        { environment: request.environment, suppressHistory: request.suppressHistory, startDirectory: directory, command: split.command },
        socket
      ).pipe(
        Effect.mapError((error) => error._tag === "InvalidInput" ? new InvalidInput({ reason: `panes[${index}]: ${error.reason}` }) : error)
      )
      spawns.push(spawn)
    }
    return spawns
  })

/**
 * The split commands, in order. `window` aims them at a window (its active pane); without it they
 * split the command list's current pane, which a `new-session` earlier in the list made.
 */
export const splitCommands = (
  marks: Format.Marks,
  splits: ReadonlyArray<PaneSplit>,
  spawns: ReadonlyArray<SpawnArguments>,
  window: string | undefined
): Array<TmuxCommand> =>
  splits.map((split, index) => [
    "split-window",
    ...DIRECTION_FLAGS[split.direction],
    ...(split.size === undefined ? [] : ["-l", String(split.size)]),
    "-P",
    "-F",
    // Each split prints its pane: the order the panes were made in.
    paneIdsRecord.format(marks),
    ...spawns[index]!.flags,
    ...(window === undefined ? [] : ["-t", window]),
    ...spawns[index]!.argv
  ])

/** tmux's words when a split does not fit: the caller's to fix. */
export const NO_ROOM = /no space for new pane|size missing|invalid size|too small|too large/

/**
 * Every pane of the window in the order made: `first`, then one per split. A pane whose process
 * ended before the read-back (a command that exits at once) is not found.
 */
export const panesInOrder = (
  socket: ResolvedSocket,
  first: string,
  details: ReadonlyArray<PaneDetail>,
  output: Format.ParsedOutput
): Effect.Effect<ReadonlyArray<PaneDetail>, Failed | NotFound> =>
  Effect.gen(function*() {
    const made = yield* Effect.fromResult(paneIdsRecord.decodeAll(output))
    const panes: Array<PaneDetail> = []
    for (const id of [first, ...made.map((row) => row.pane_id)]) {
      const pane = details.find((candidate) => candidate.pane_id === id)
      if (pane === undefined) return yield* Effect.fail(new NotFound({ kind: "pane", target: id, socket: socket.label }))
      panes.push(pane)
    }
    return panes
  })
