/**
 * Remote mode (issue 22): nothing of this machine may reach a remote pane. A watch records every
 * command list and standard input the product sends to tmux (through a tapped layer) and checks
 * them, and every pane's whole history, for this world's local directory: the product's
 * TMUX_TMPDIR and HOME, where its run log directory, its handle key and its ssh forwards live. On
 * the loopback "remote" a local path would still work (one file system), so only looking for it
 * shows the product kept to the host's own paths.
 */
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { realpathSync } from "node:fs"
import type { TmuxMcpConfig } from "../../src/context/TmuxMcpConfig.js"
import type { Tmux } from "../../src/tmux/Tmux.js"
import type { PrivateTmux } from "./PrivateTmux.js"
import { localLogDirectoryOf } from "./shellWorld.js"
import { tappedTmux } from "./TappedTmux.js"

export interface LocalPathWatch {
  /** The live tmux layer, recording what goes to tmux. */
  readonly tmuxLayer: Layer.Layer<Tmux, never, TmuxMcpConfig>
  /** Everything sent so far: each command list's argv (one command a line), then its stdin. */
  readonly sent: ReadonlyArray<string>
  /** Throws, naming the place, when anything sent or any pane's history holds a local path. */
  readonly check: () => void
}

export const watchLocalPaths = (w: PrivateTmux): LocalPathWatch => {
  const sent: Array<string> = []
  const local = [...new Set([w.productDir, realpathSync(w.productDir), localLogDirectoryOf(w)])]
  const tmuxLayer = tappedTmux((run) =>
    Effect.suspend(() => {
      sent.push([...run.commands.map((command) => command.join(" ")), run.options.stdin ?? ""].join("\n"))
      return run.proceed()
    })
  )
  const leak = (where: string, text: string) => {
    const found = local.find((path) => text.includes(path))
    if (found !== undefined) throw new Error(`${where} holds the local path ${found}:\n${text.slice(0, 2000)}`)
  }
  const check = () => {
    for (const text of sent) leak("a command list sent to tmux", text)
    const panes = w.tmux("list-panes", "-a", "-F", "#{pane_id}")
    // A test that ended the server leaves no history to look at.
    if (panes.status !== 0) return
    for (const pane of panes.stdout.split("\n").filter((line) => line !== "")) {
      leak(`the history of pane ${pane}`, w.tmuxOk("capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", pane))
    }
  }
  return { tmuxLayer, sent, check }
}
