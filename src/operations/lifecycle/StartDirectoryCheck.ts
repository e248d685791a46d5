/**
 * Whether a process started on a remote host runs in the start directory it was given. tmux says
 * nothing when its child cannot enter the directory: 3.3a leaves the process in the server's own
 * directory (spawn.c tests `find_home() != NULL || chdir(…)`, so it never changes to HOME; measured),
 * later versions change to HOME, else to `/`. This machine cannot look at the host's file system
 * first, so the pane's process is looked at afterwards: `#{pane_current_path}` is its directory as
 * the host's kernel reports it.
 *
 * A process found elsewhere than asked counts as started elsewhere when it is in HOME or `/`, or
 * when it is the pane's own shell (no command was given: a shell does not move by itself, so it is
 * in the server's directory, or the directory was given through a symlink, which the kernel
 * reports resolved). A given command may have changed directory itself: found anywhere but HOME or
 * `/`, it counts as started where asked.
 *
 * Read right after the spawn, the path may be empty (the child is still setting up its terminal)
 * or the server's own directory (before its chdir): an empty path is read again, and a place
 * elsewhere counts only when it is still there FALLBACK_CONFIRM_MS later. A process that ended at
 * once (or never reported a path) cannot tell: `Unknown`.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type { ResolvedSocket } from "../../context/SocketResolver.js"
import type { TmuxError } from "../../domain/Errors.js"
import * as Format from "../../tmux/Format.js"
import { decode, queryTree } from "../../tmux/Query.js"
import type { Tmux } from "../../tmux/Tmux.js"
import type { RemoteStartDirectory } from "./Spawn.js"

/** How long a fallback must last to be one, not the child seen before its chdir. */
export const FALLBACK_CONFIRM_MS = 100
/** Reads of an empty path, POLL_MS apart, before giving up on telling. */
const EMPTY_READS = 20
const POLL_MS = 25

const paneDirectoryRecord = Format.record("psd", {
  pane_id: Format.string("pane_id"),
  current: Format.string("pane_current_path"),
  dead: Format.bool("pane_dead")
})

/** Where the process was found: in its start directory, in tmux's fallback instead, or unknown. */
export type StartDirectoryOutcome =
  | { readonly _tag: "InPlace" }
  | { readonly _tag: "FellBack"; readonly current: string }
  | { readonly _tag: "Unknown" }

/** The directory of the pane's process, "" while it has none to report, undefined when it ended or is gone. */
const currentDirectory = (socket: ResolvedSocket, paneId: string): Effect.Effect<string | undefined, TmuxError, Tmux> =>
  queryTree(socket, (m) => [["list-panes", "-t", paneId, "-F", paneDirectoryRecord.format(m)]], { kind: "pane", id: paneId }).pipe(
    Effect.flatMap((output) => decode(paneDirectoryRecord, output)),
    Effect.map((rows) => {
      const row = rows.find((candidate) => candidate.pane_id === paneId)
      return row === undefined || row.dead ? undefined : row.current
    }),
    Effect.catchTag("NotFound", () => Effect.succeed(undefined))
  )

/** Checks that the process of `paneId` runs in `expected.directory` (see the module comment). */
export const checkStartDirectory = (
  socket: ResolvedSocket,
  paneId: string,
  expected: RemoteStartDirectory,
  commandGiven: boolean
): Effect.Effect<StartDirectoryOutcome, TmuxError, Tmux> =>
  Effect.gen(function*() {
    // HOME itself asked for: no fallback can be told from it (and HOME may be a symlink's name).
    if (expected.directory === expected.home) return { _tag: "InPlace" }
    const isFallback = (path: string) => path !== expected.directory && (path === expected.home || path === "/" || !commandGiven)
    let current = yield* currentDirectory(socket, paneId)
    for (let reads = 1; current === "" && reads < EMPTY_READS; reads++) {
      yield* Effect.sleep(Duration.millis(POLL_MS))
      current = yield* currentDirectory(socket, paneId)
    }
    if (current === undefined || current === "") return { _tag: "Unknown" }
    if (!isFallback(current)) return { _tag: "InPlace" }
    yield* Effect.sleep(Duration.millis(FALLBACK_CONFIRM_MS))
    const later = yield* currentDirectory(socket, paneId)
    if (later === undefined || later === "") return { _tag: "Unknown" }
    return isFallback(later) ? { _tag: "FellBack", current: later } : { _tag: "InPlace" }
  })
