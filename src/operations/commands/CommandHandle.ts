/**
 * The handle run_command returns when its wait ran out while the command still runs: everything a
 * later wait_for_command needs, carried by the caller (no state in this process, so a restarted MCP
 * server can carry on). It is opaque to the caller and signed (HMAC-SHA256 with a key kept in the
 * private log directory, so every server process of this user accepts the handles of the others):
 * a handle that was made up or changed is refused before anything is looked at. It holds the run's
 * end secret, which is why a handle should stay with the agent and never be typed into a pane.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import { join } from "node:path"
import { isRemoteHost, onHost } from "../../context/RemoteHosts.js"
import { type ResolvedSocket, SocketResolver } from "../../context/SocketResolver.js"
import { TmuxMcpConfig } from "../../context/TmuxMcpConfig.js"
import { Failed, InvalidInput } from "../../domain/Errors.js"
import { NonNegativeInt } from "../../domain/Model.js"
import { opaqueToken } from "../internal/OpaqueToken.js"

const PREFIX = "cmd1."

export const OutputSource = Schema.Literals(["pipe", "scrollback"]).annotate({
  description:
    "pipe: the command's whole output, recorded by tmux pipe-pane. scrollback: read from the pane's history (the pane already had a pipe-pane of its own, or the recording stopped early), so the start of a long output may have scrolled away."
})
export type OutputSource = typeof OutputSource.Type

const HandleFields = Schema.Struct({
  id: Schema.String.pipe(Schema.check(Schema.isPattern(/^[0-9a-f]{16}$/u))),
  /** The end marker's secret (see CommandFraming). */
  secret: Schema.String.pipe(Schema.check(Schema.isPattern(/^[0-9a-f]{32}$/u))),
  socket: Schema.String,
  generation: Schema.String,
  pane_id: Schema.String.pipe(Schema.check(Schema.isPattern(/^%\d+$/u))),
  pane_pid: Schema.NullOr(Schema.Number),
  shell: Schema.String,
  source: OutputSource,
  /** Bytes of the log already read (pipe source). */
  offset: NonNegativeInt,
  /** Whether the start marker was seen. */
  started: Schema.Boolean,
  /** When the command's buffer was found fetched without a start marker yet (ms since the epoch). */
  fetched_by: Schema.NullOr(Schema.Number),
  /** Output lines already handed to the caller. */
  returned_lines: NonNegativeInt,
  /** When the command was typed (ms since the epoch). */
  typed_at: Schema.Number,
  /**
   * The remote host (a name of the hosts file) the command runs on, `socket` being the path there;
   * absent: this machine, so such a handle is the string it was before hosts existed.
   */
  host: Schema.optional(Schema.String)
})
/**
 * A running command as its signed handle carries it: run id, secret, host, socket, server
 * generation, pane and read offset.
 */
export type CommandHandle = typeof HandleFields.Type

const token = opaqueToken(PREFIX, HandleFields)

export const encodeHandle = (key: Buffer, handle: CommandHandle): string => token.encodeSigned(key, handle)

const notOurs = () =>
  new InvalidInput({
    reason: "handle is not a handle from run_command or wait_for_command, or was changed (pass the handle field of their result unchanged)."
  })

export const decodeHandle = (key: Buffer, text: string): Effect.Effect<CommandHandle, InvalidInput> =>
  Result.match(token.decodeSigned(key, text), { onFailure: () => Effect.fail(notOurs()), onSuccess: Effect.succeed })

/**
 * The socket a handle's command runs on, found again on the handle's host: a remote host's socket
 * as that host's resolver names it (in its socket directory, reached over its forward), this
 * machine's by path. A handle never leads to a socket of another host than its own.
 */
export const handleSocket = (
  handle: CommandHandle
): Effect.Effect<ResolvedSocket, InvalidInput | Failed, SocketResolver | TmuxMcpConfig> =>
  Effect.gen(function*() {
    const resolver = yield* SocketResolver
    const host = handle.host
    if (!isRemoteHost(host)) return resolver.fromPath(handle.socket, "socket_path argument")
    const { hosts } = yield* TmuxMcpConfig
    if (hosts === undefined || !hosts.hosts.some((entry) => entry.name === host)) {
      return yield* Effect.fail(
        new InvalidInput({
          reason:
            `handle's command runs on host ${handle.host}, which the hosts file does not name (any more); it cannot be reached from here.`
        })
      )
    }
    return yield* onHost(host)(resolver.resolve({ socket_path: handle.socket }))
  })

const KEY_FILE = "handle.key"
const KEY_BYTES = 32

/**
 * The signing key in the private directory `dir`, made on first use. It is written to a temporary
 * name and linked into place, so a racing server process either wins or reads the winner's key,
 * never half of one.
 */
export const handleKey = (dir: string): Effect.Effect<Buffer, Failed> =>
  Effect.try({
    try: () => {
      const path = join(dir, KEY_FILE)
      const read = () => {
        const key = fs.readFileSync(path)
        if (key.length !== KEY_BYTES) throw new Error(`${path} is not a handle key; remove it and retry`)
        return key
      }
      try {
        return read()
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error
      }
      const temporary = join(dir, `${KEY_FILE}.${process.pid}.${randomBytes(4).toString("hex")}`)
      fs.writeFileSync(temporary, randomBytes(KEY_BYTES), { mode: 0o600, flag: "wx" })
      try {
        fs.linkSync(temporary, path)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
      } finally {
        fs.rmSync(temporary, { force: true })
      }
      return read()
    },
    catch: (error) =>
      new Failed({
        command: "handle key",
        reason: "spawn",
        exitCode: null,
        stderr: `cannot prepare the handle key: ${error instanceof Error ? error.message : String(error)}`
      })
  })
