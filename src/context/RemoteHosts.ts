/**
 * What the layers above need to know of a remote host (one named in the hosts file), without
 * depending on how it is reached: its user, its HOME and where its tmux keeps sockets. The
 * `Connections` layer (tmux/Connections.ts) provides this from its discovery over ssh; without a
 * hosts file nothing provides it and every call is on this machine.
 *
 * Which host a call is about is the fiber's `CurrentHost`: the tools bridge sets it from a call's
 * `host` argument, an embedder with `onHost`. A socket resolved then carries its host, and so does
 * everything made from it (results, handles, cursors).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { Failed } from "../domain/Errors.js"
import { LOCAL_HOST } from "./HostsConfig.js"

/** A remote host as its discovery found it. */
export interface RemoteHostView {
  readonly host: string
  readonly uid: number
  /** The login user's HOME there: new sessions start here unless told otherwise, `~` means it. */
  readonly home: string
  /** That user's tmux socket directory there (`<TMUX_TMPDIR>/tmux-<uid>`, TMUX_TMPDIR resolved). */
  readonly socketDirectory: string
  /** A private 0700 directory there for run_command's logs, or null when none could be made. */
  readonly runDirectory: string | null
  /** The socket names the host may be used with (hosts file), or undefined: any in socketDirectory. */
  readonly allowedSockets: ReadonlyArray<string> | undefined
  /** Whether the hosts file lets a server be started there. */
  readonly allowServerStart: boolean
}

export interface RemoteHostsShape {
  /** The configured host names, in the file's order. */
  readonly names: ReadonlyArray<string>
  /** The host as discovered (connecting first if needed); fails with the host's error when it cannot be reached. */
  readonly view: (host: string) => Effect.Effect<RemoteHostView, Failed>
}

/** The remote hosts of the configuration; absent without a hosts file. */
export class RemoteHosts extends Context.Service<RemoteHosts, RemoteHostsShape>()("effect-tmux-mcp/RemoteHosts") {}

/** The host the current call is about: `local` unless a call's `host` (or `onHost`) says otherwise. */
export const CurrentHost: Context.Reference<string> = Context.Reference<string>("effect-tmux-mcp/CurrentHost", {
  defaultValue: () => LOCAL_HOST
})

/** Runs `effect` about `host` (a name of the hosts file, or `local`): sockets it resolves are that host's. */
export const onHost = (host: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, CurrentHost, host)

/** Whether `host` is another machine. */
export const isRemoteHost = (host: string | undefined): host is string => host !== undefined && host !== LOCAL_HOST
