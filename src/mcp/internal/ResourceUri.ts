/**
 * The resource URIs the server answers, parsed. Ids sit in the path: `tmux://session/{session_id}`,
 * `tmux://window/{window_id}`, `tmux://pane/{pane_id}` and `tmux://pane/{pane_id}/screen`, and a
 * socket other than the effective one is named by the query (`?socket_name=` or `?socket_path=`).
 * With a hosts file the query may name the host as well (`?host=`, as a tool's `host` argument):
 * ids and paths are that host's. Without one, `host` is no query parameter, as before hosts existed.
 *
 * An id is read percent-encoded first, as RFC 6570 expansion (the SDK's `UriTemplate`) writes it:
 * `%` as `%25`, `$` as `%24`, `@` as `%40`. A segment that does not decode to an id is taken as
 * written, so `tmux://pane/%3/screen` works too; only a raw `%25…` is read as encoded (`%2512` is
 * pane `%12`, never pane `%2512`). Nothing but an exact id is accepted: no `/`, `?`, `#` or `..`
 * reaches a tmux target.
 */
import * as Schema from "effect/Schema"
import { PaneId, SessionId, WindowId } from "../../domain/Ids.js"

export const SCHEME = "tmux://"

/** A socket named by the query; neither: the effective socket (of the host, when one is named). */
export interface SocketQuery {
  /** Only with a hosts file: a name of it or `local`, checked as a tool's `host` argument is. */
  readonly host?: string
  readonly socket_name?: string
  readonly socket_path?: string
}

/** What the URI is read against: whether a hosts file is configured (then `host` is a query parameter). */
export interface UriOptions {
  readonly hosts?: boolean
}

export type ResourceTarget =
  | { readonly kind: "self" }
  | { readonly kind: "sessions"; readonly socket: SocketQuery }
  | { readonly kind: "session"; readonly session_id: string; readonly socket: SocketQuery }
  | { readonly kind: "window"; readonly window_id: string; readonly socket: SocketQuery }
  | { readonly kind: "pane"; readonly pane_id: string; readonly socket: SocketQuery }
  | { readonly kind: "screen"; readonly pane_id: string; readonly socket: SocketQuery }

/** What a URI is: ours and readable, ours but malformed (why, without echoing it), or not ours. */
export type ParsedUri =
  | { readonly _tag: "Target"; readonly target: ResourceTarget }
  | { readonly _tag: "Malformed"; readonly reason: string }
  | { readonly _tag: "Unknown" }

const decoded = (text: string): string | undefined => {
  try {
    return decodeURIComponent(text)
  } catch {
    return undefined
  }
}

const idOf = (segment: string, is: (u: unknown) => boolean): string | undefined => {
  const text = decoded(segment)
  if (text !== undefined && is(text)) return text
  return is(segment) ? segment : undefined
}

const isPaneId = Schema.is(PaneId)
const isWindowId = Schema.is(WindowId)
const isSessionId = Schema.is(SessionId)

const ID_KINDS = {
  session: { is: isSessionId, example: "$1" },
  window: { is: isWindowId, example: "@2" },
  pane: { is: isPaneId, example: "%3" }
} as const

const malformed = (reason: string): ParsedUri => ({ _tag: "Malformed", reason })

const SOCKET_KEYS: ReadonlyArray<keyof SocketQuery> = ["socket_name", "socket_path"]
const HOSTED_KEYS: ReadonlyArray<keyof SocketQuery> = ["host", ...SOCKET_KEYS]

const parseQuery = (query: string, hosts: boolean): SocketQuery | string => {
  const socket: { host?: string; socket_name?: string; socket_path?: string } = {}
  if (query === "") return socket
  const keys = hosts ? HOSTED_KEYS : SOCKET_KEYS
  for (const pair of query.split("&")) {
    const equals = pair.indexOf("=")
    const key = decoded(equals === -1 ? pair : pair.slice(0, equals))
    const value = equals === -1 ? undefined : decoded(pair.slice(equals + 1))
    const known = keys.find((name) => name === key)
    if (known === undefined) {
      return hosts
        ? "the only query parameters are host, socket_name and socket_path"
        : "the only query parameters are socket_name and socket_path"
    }
    if (value === undefined || value === "") return `${known} needs a value (percent-encoded)`
    if (socket[known] !== undefined) return `${known} is given twice`
    socket[known] = value
  }
  if (socket.socket_name !== undefined && socket.socket_path !== undefined) return "pass socket_name or socket_path, not both"
  return socket
}

/** Parses a resource URI; see the module comment for the forms. */
export const parseResourceUri = (uri: string, options: UriOptions = {}): ParsedUri => {
  if (!uri.startsWith(SCHEME)) return { _tag: "Unknown" }
  const rest = uri.slice(SCHEME.length)
  if (rest.includes("#")) return malformed("a resource URI has no fragment")
  const mark = rest.indexOf("?")
  const path = mark === -1 ? rest : rest.slice(0, mark)
  const socket = parseQuery(mark === -1 ? "" : rest.slice(mark + 1), options.hosts === true)
  if (typeof socket === "string") return malformed(socket)
  const segments = path.split("/")
  const target = (value: ResourceTarget): ParsedUri => ({ _tag: "Target", target: value })
  const [head, id, tail, ...more] = segments
  if (more.length > 0) return { _tag: "Unknown" }
  if (head === "self" && id === undefined) {
    return mark === -1 ? target({ kind: "self" }) : malformed("tmux://self takes no query")
  }
  if (head === "sessions" && id === undefined) return target({ kind: "sessions", socket })
  if (id === undefined) return { _tag: "Unknown" }
  const kind = head === "session" || head === "window" || head === "pane" ? head : undefined
  if (kind === undefined || (tail !== undefined && !(kind === "pane" && tail === "screen"))) return { _tag: "Unknown" }
  const { is, example } = ID_KINDS[kind]
  const value = idOf(id, is)
  if (value === undefined) {
    return malformed(`tmux://${kind}/{${kind}_id}: the id must be a ${kind} id such as ${example} (or ${encodeURIComponent(example)})`)
  }
  switch (kind) {
    case "session":
      return target({ kind, session_id: value, socket })
    case "window":
      return target({ kind, window_id: value, socket })
    case "pane":
      return target({ kind: tail === undefined ? "pane" : "screen", pane_id: value, socket })
  }
}
