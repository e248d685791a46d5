/**
 * resources/subscribe on a pane's screen (`tmux://pane/{pane_id}/screen`): one fiber polls every
 * subscribed pane each POLL_INTERVAL, all panes of a server in one tmux round trip (search's
 * capturePanes), and a URI whose screen text changed gets `notifications/resources/updated`. A pane
 * that closed, or a server that stopped, gets one last update and its subscription ends. The fiber
 * runs only while there is a subscription, and the server's scope interrupts it when the client
 * goes away. At most MAX_SUBSCRIPTIONS URIs at once.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberSet from "effect/FiberSet"
import type * as Scope from "effect/Scope"
import { type ResolvedSocket, resolveSocket } from "../context/SocketResolver.js"
import { InvalidInput, NotFound, type ToolError } from "../domain/Errors.js"
import { contentLines } from "../operations/watching/Capture.js"
import { capturePanes } from "../operations/watching/Search.js"
import type { ToolServices } from "../tools/Tool.js"
import { parseResourceUri } from "./internal/ResourceUri.js"

export const MAX_SUBSCRIPTIONS = 32

/** How often each subscribed pane is read, at most. */
export const POLL_INTERVAL_MS = 250

interface Subscription {
  readonly socket: ResolvedSocket
  readonly paneId: string
  /** The screen's text at the last read: a change is any difference in it. */
  screen: string
}

export interface Subscriptions {
  /** Starts watching a screen URI (again: a no-op); fails when it is not one, the pane is missing, or the cap is reached. */
  readonly subscribe: (uri: string) => Effect.Effect<void, ToolError, ToolServices>
  readonly unsubscribe: (uri: string) => Effect.Effect<void>
}

const capReached = new InvalidInput({
  reason: `at most ${MAX_SUBSCRIPTIONS} subscriptions at once; resources/unsubscribe one first`
})

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
    let polling = false

    const end = (uri: string) => {
      watched.delete(uri)
      notify(uri)
    }

    const pollOnce = Effect.gen(function*() {
      const bySocket = new Map<string, Array<[string, Subscription]>>()
      for (const entry of watched) {
        const group = bySocket.get(entry[1].socket.path)
        if (group === undefined) bySocket.set(entry[1].socket.path, [entry])
        else group.push(entry)
      }
      for (const entries of bySocket.values()) {
        const paneIds = [...new Set(entries.map(([, subscription]) => subscription.paneId))]
        const read = yield* Effect.either(readScreens(entries[0]![1].socket, paneIds))
        // A stopped server ends its subscriptions; any other failure is retried at the next poll.
        if (Either.isLeft(read) && read.left._tag !== "NoServer") continue
        for (const [uri, subscription] of entries) {
          // Unsubscribed while this round read.
          if (watched.get(uri) !== subscription) continue
          const screen = Either.isLeft(read) ? undefined : read.right(subscription.paneId)
          if (screen === undefined) end(uri)
          else if (screen !== subscription.screen) {
            subscription.screen = screen
            notify(uri)
          }
        }
      }
    })

    const loop: Effect.Effect<void, never, ToolServices> = Effect.suspend(() => {
      if (watched.size === 0) {
        polling = false
        return Effect.void
      }
      return Effect.sleep(POLL_INTERVAL_MS).pipe(Effect.zipRight(pollOnce), Effect.zipRight(loop))
    })

    const subscribe = (uri: string): Effect.Effect<void, ToolError, ToolServices> =>
      Effect.gen(function*() {
        const parsed = parseResourceUri(uri)
        if (parsed._tag !== "Target" || parsed.target.kind !== "screen") {
          return yield* Effect.fail(
            new InvalidInput({
              reason: parsed._tag === "Malformed" ? parsed.reason : "only tmux://pane/{pane_id}/screen resources are subscribable"
            })
          )
        }
        if (watched.has(uri)) return
        if (watched.size >= MAX_SUBSCRIPTIONS) {
          return yield* Effect.fail(capReached)
        }
        const { pane_id } = parsed.target
        const socket = yield* resolveSocket(parsed.target.socket)
        const screen = (yield* readScreens(socket, [pane_id]))(pane_id)
        if (screen === undefined) return yield* Effect.fail(new NotFound({ kind: "pane", target: pane_id, socket: socket.label }))
        // Checked again: another subscribe may have finished while this one read.
        if (watched.has(uri)) return
        if (watched.size >= MAX_SUBSCRIPTIONS) {
          return yield* Effect.fail(capReached)
        }
        watched.set(uri, { socket, paneId: pane_id, screen })
        if (!polling) {
          polling = true
          runFork(loop)
        }
      })

    return {
      subscribe,
      unsubscribe: (uri) => Effect.sync(() => void watched.delete(uri))
    }
  })
