/**
 * A wait_for_command handle as a server leaves it for a command still running: signed with the key
 * in `tmpdir`'s private log directory, its log present (its end not reported yet). For tests that
 * need wait_for_command to get past its handle checks to the tmux calls. With `host`, a handle of a
 * run on that remote host, as a server with a hosts file naming it issues one (its record present).
 */
import * as Effect from "effect/Effect"
import { closeSync, openSync } from "node:fs"
import { join } from "node:path"
import { encodeHandle, handleKey } from "../../src/operations/commands/CommandHandle.js"
import { logDirectory, remoteRunRecordPath } from "../../src/operations/commands/internal/RunLogs.js"

export const pendingHandle = (tmpdir: string, socketPath: string, generation: string, host?: string): string => {
  const dir = Effect.runSync(logDirectory(tmpdir, process.getuid?.() ?? 0))
  const id = "0123456789abcdef"
  closeSync(openSync(host === undefined ? join(dir, `${id}.log`) : remoteRunRecordPath(dir, id), "a"))
  return encodeHandle(Effect.runSync(handleKey(dir)), {
    id,
    secret: "0123456789abcdef0123456789abcdef",
    socket: socketPath,
    generation,
    pane_id: "%0",
    pane_pid: 1,
    shell: "bash",
    source: "pipe",
    offset: 0,
    started: true,
    fetched_by: null,
    returned_lines: 0,
    typed_at: 0,
    ...(host === undefined ? {} : { host })
  })
}
