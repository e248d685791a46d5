/**
 * Turns for connections to one tmux server: at most `limit` at once, the rest wait in order.
 * tmux queues 128 connections it has not accepted yet; past that a connect fails (EAGAIN), and a
 * burst of calls retrying on their own would be served in no order, some until their deadline.
 */
interface Turn {
  readonly start: () => void
  state: "waiting" | "running" | "done"
}

export class Turns {
  private running = 0
  /** Insertion-ordered: the first waiting turn starts next; one that gives up leaves at once. */
  private readonly waiting = new Set<Turn>()

  constructor(readonly limit: number) {}

  /**
   * Calls `start` when a turn is free: now if one is. Returns `leave`, which ends the turn (the
   * next waiting one starts) or gives up waiting; calling it again does nothing.
   */
  take(start: () => void): () => void {
    const turn: Turn = { start, state: "waiting" }
    if (this.running < this.limit) this.begin(turn)
    else this.waiting.add(turn)
    return () => {
      if (turn.state === "done") return
      if (turn.state === "running") {
        this.running--
        turn.state = "done"
        this.next()
      } else {
        turn.state = "done"
        this.waiting.delete(turn)
      }
    }
  }

  /** Turns running and waiting, for tests and reports. */
  get size(): { readonly running: number; readonly waiting: number } {
    return { running: this.running, waiting: this.waiting.size }
  }

  private begin(turn: Turn): void {
    turn.state = "running"
    this.running++
    turn.start()
  }

  private next(): void {
    for (const turn of this.waiting) {
      this.waiting.delete(turn)
      this.begin(turn)
      return
    }
  }
}
