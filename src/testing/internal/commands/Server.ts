/**
 * The server's own commands: start-server, kill-server (the server exits once the list is done,
 * releasing every waiting client as if signalled) and wait-for (-S signals; a signal nobody waits
 * for is kept for the next wait, and a waiter whose client went away is never removed, so it takes
 * the next signal, as in tmux 3.3a).
 */
import * as Effect from "effect/Effect"
import { has } from "../Arguments.js"
import { type CommandEntry, done, unmodelled } from "../Command.js"

const startServer: CommandEntry = {
  name: "start-server",
  alias: "start",
  template: "",
  lower: 0,
  upper: 0,
  run: () => done
}

const killServer: CommandEntry = {
  name: "kill-server",
  template: "",
  lower: 0,
  upper: 0,
  run: (invocation) => {
    invocation.killServer = true
    return done
  }
}

const waitFor: CommandEntry = {
  name: "wait-for",
  alias: "wait",
  template: "LSU",
  lower: 1,
  upper: 1,
  run: (invocation, args) => {
    if (has(args, "L") || has(args, "U")) return unmodelled("wait-for", "-L / -U (locks)")
    const channel = invocation.channel(args.values[0]!)
    if (has(args, "S")) {
      if (channel.waiters.length === 0) channel.woken = true
      else for (const release of channel.waiters.splice(0)) release()
      return done
    }
    if (channel.woken) {
      channel.woken = false
      return done
    }
    return {
      waits: Effect.callback<void>((resume) => {
        // Left in place when this wait is interrupted: tmux keeps a departed client's waiter too.
        channel.waiters.push(() => resume(Effect.void))
      })
    }
  }
}

export const serverCommands: ReadonlyArray<CommandEntry> = [startServer, killServer, waitFor]
