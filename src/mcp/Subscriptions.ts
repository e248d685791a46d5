/**
 * resources/subscribe on a pane's screen (`tmux://pane/{pane_id}/screen`, with a hosts file on any
 * host: `?host=`): each server with a subscription is polled by a fiber of its own each POLL_INTERVAL, all its panes in one tmux round
 * trip (search's capturePanes), and a URI whose screen text changed gets
 * `notifications/resources/updated`. A pane that closed, or a server that stopped, gets one last
 * update and its subscription ends. A server that does not answer within WEDGED_AFTER_MS (stopped
 * with SIGSTOP, say) holds up no other server: it is said on stderr, its URIs get an update (a read
 * now says what is wrong) and it is asked again every WEDGED_AFTER_MS; when it answers, that is said
 * too and its URIs get an update. A fiber runs only while its server has a subscription, and the
 * server's scope interrupts them when the client goes away. At most MAX_SUBSCRIPTIONS URIs at once.
 *
 * A URI is watched while anyone holds it: the 2025 era's resources/subscribe is one holder (a second
 * subscribe is a no-op, one unsubscribe ends it, as that spec says), and each 2026 era
 * subscriptions/listen naming it is another (Listens.ts), so cancelling one listen leaves the others.
 */
import * as Effect from "effect/Effect"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import { LOCAL_HOST } from "../context/HostsConfig.js"
import { onHost } from "../context/RemoteHosts.js"
import { type ResolvedSocket, resolveSocket, socketKey } from "../context/SocketResolver.js"
import { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { escapeControls } from "../domain/ControlText.js"
import { InvalidInput, NotFound, type ToolError } from "../domain/Errors.js"
import { contentLines } from "../operations/watching/Capture.js"
import { capturePanes } from "../operations/watching/Search.js"
import type { ToolServices } from "../tools/Tool.js"
import { parseResourceUri } from "./internal/ResourceUri.js"

export const MAX_SUBSCRIPTIONS = 32

/** How often each subscribed pane is read, at most. */
export const POLL_INTERVAL_MS = 250

/** A poll that long without an answer finds its server wedged (a healthy one answers in milliseconds). */
export const WEDGED_AFTER_MS = 2_000

interface Subscription {
  readonly socket: ResolvedSocket
  readonly paneId: string
  /** The screen's text at the last read: a change is any difference in it. */
  screen: string
  /** Who asked for it (see the header); the URI is dropped when the last one lets go. */
  readonly holders: Set<string>
}

/** The holder of a 2025 era resources/subscribe. */
export const SUBSCRIBE_HOLDER = "resources/subscribe"

export interface Subscriptions {
  /**
   * Starts watching a screen URI for `holder` (a URI already watched gains the holder); fails when it
   * is not one, the pane is missing, or the cap is reached.
   */
  readonly subscribe: (uri: string, holder?: string) => Effect.Effect<void, ToolError, ToolServices>
  /** `holder` lets go of the URI; it is no longer watched when no one holds it. */
  readonly unsubscribe: (uri: string, holder?: string) => Effect.Effect<void>
}

const capReached = new InvalidInput({
  reason: `at most ${MAX_SUBSCRIPTIONS} subscriptions at once; end one first (resources/unsubscribe, or cancel a subscriptions/listen)`
})

/** stderr, never stdout (the protocol's), as the audit; a socket's label is a caller's text, so its controls are escaped. */
const logLine = (line: string) => Effect.sync(() => void process.stderr.write(`effect-tmux-mcp: subscriptions: ${escapeControls(line)}\n`))

/** The screen as the resource reads it (capture_pane's content), so an update means the read differs. */
const screenOf = (rows: ReadonlyArray<string>): string => contentLines(rows).join("\n")

/** Reads the screens of panes on one server; `undefined` for a pane that is gone. */
const readScreens = (socket: ResolvedSocket, paneIds: ReadonlyArray<string>) =>
  Effect.map(capturePanes(socket, paneIds, 0), ({ texts }) => {
    const screens = new Map(texts.map((text) => [text.pane_id, screenOf(text.rows)]))
    return (paneId: string) => screens.get(paneId)
  })

/** The subscriptions of one MCP connection; `notify` sends resources/updated for a URI. */
export const makeSubscriptions = (notify: (uri: string) => void): Effect.Effect<Subscriptions, never, ToolServices | Scope.Scope> =>
  Effect.gen(function*() {
    const runFork = yield* FiberSet.makeRuntime<ToolServices>()
    const watched = new Map<string, Subscription>()
    /** The servers (by socketKey: two hosts may have one at the same path) whose fiber runs. */
    const polled = new Set<string>()

    const end = (uri: string) => {
      watched.delete(uri)
      notify(uri)
    }

    const subscriptionsOf = (socket: ResolvedSocket) =>
      [...watched].filter(([, subscription]) => socketKey(subscription.socket) === socketKey(socket))

    /** Polls one server until it has no subscription left; `wedged` carries over from round to round. */
    const pollServer = (socket: ResolvedSocket, wedged: boolean): Effect.Effect<void, never, ToolServices> =>
      Effect.suspend(() => {
        if (subscriptionsOf(socket).length === 0) {
          polled.delete(socketKey(socket))
          return Effect.void
        }
        return Effect.sleep(POLL_INTERVAL_MS).pipe(
          Effect.andThen(Effect.suspend(() => pollOnce(socket, wedged))),
          Effect.flatMap((nowWedged) => pollServer(socket, nowWedged))
        )
      })

    /** One round for one server; whether it is wedged afterwards. */
    const pollOnce = (socket: ResolvedSocket, wedged: boolean) =>
      Effect.gen(function*() {
        const entries = subscriptionsOf(socket)
        if (entries.length === 0) return wedged
        const paneIds = [...new Set(entries.map(([, subscription]) => subscription.paneId))]
        // Interrupting the read closes its connection: a stopped server keeps none of ours.
        const answer = yield* readScreens(socket, paneIds).pipe(
          Effect.result,
          Effect.timeoutOption(WEDGED_AFTER_MS)
        )
        // Unsubscribed while this round read.
        const current = entries.filter(([uri, subscription]) => watched.get(uri) === subscription)
        if (Option.isNone(answer)) {
          if (!wedged) {
            yield* logLine(
              `tmux server ${socket.label} has not answered for ${WEDGED_AFTER_MS} ms (stopped?); its ${current.length} subscription(s) wait for it, other servers are polled as usual`
            )
            for (const [uri] of current) notify(uri)
          }
          return true
        }
        if (wedged) {
          yield* logLine(`tmux server ${socket.label} answers again; its subscriptions are polled as usual`)
          for (const [uri] of current) notify(uri)
        }
        const read = answer.value
        // A stopped server ends its subscriptions; any other failure is retried at the next poll.
        if (Result.isFailure(read) && read.failure._tag !== "NoServer") return false
        for (const [uri, subscription] of current) {
          const screen = Result.isFailure(read) ? undefined : read.success(subscription.paneId)
          if (screen === undefined) end(uri)
          else if (screen !== subscription.screen) {
            subscription.screen = screen
            // Said once above already, on recovery.
            if (!wedged) notify(uri)
          }
        }
        return false
      })

    const subscribe = (uri: string, holder = SUBSCRIBE_HOLDER): Effect.Effect<void, ToolError, ToolServices> =>
      Effect.gen(function*() {
        const config = yield* TmuxMcpConfig
        const parsed = parseResourceUri(uri, { hosts: config.hosts !== undefined })
        if (parsed._tag !== "Target" || parsed.target.kind !== "screen") {
          return yield* Effect.fail(
            new InvalidInput({
              reason: parsed._tag === "Malformed" ? parsed.reason : "only tmux://pane/{pane_id}/screen resources are subscribable"
            })
          )
        }
        const held = () => {
          const subscription = watched.get(uri)
          subscription?.holders.add(holder)
          return subscription !== undefined
        }
        if (held()) return
        if (watched.size >= MAX_SUBSCRIPTIONS) {
          return yield* Effect.fail(capReached)
        }
        const { pane_id } = parsed.target
        // The URI's host, as a call's: the socket (and so every poll of it) is that host's.
        const { host = LOCAL_HOST, ...selector } = parsed.target.socket
        const socket = yield* onHost(host)(resolveSocket(selector))
        const screen = (yield* readScreens(socket, [pane_id]))(pane_id)
        if (screen === undefined) return yield* Effect.fail(new NotFound({ kind: "pane", target: pane_id, socket: socket.label }))
        // Checked again: another subscribe may have finished while this one read.
        if (held()) return
        if (watched.size >= MAX_SUBSCRIPTIONS) {
          return yield* Effect.fail(capReached)
        }
        watched.set(uri, { socket, paneId: pane_id, screen, holders: new Set([holder]) })
        if (!polled.has(socketKey(socket))) {
          polled.add(socketKey(socket))
          runFork(pollServer(socket, false))
        }
      })

    return {
      subscribe,
      unsubscribe: (uri, holder = SUBSCRIBE_HOLDER) =>
        Effect.sync(() => {
          const subscription = watched.get(uri)
          subscription?.holders.delete(holder)
          if (subscription?.holders.size === 0) watched.delete(uri)
        })
    }
  })
