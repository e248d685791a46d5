/**
 * The commands that feed a pane and keep text: send-keys (key names, -l, -H, -N), the paste
 * buffers (load-buffer from the client's stdin, show-, delete-, paste-, list-buffers) and
 * pipe-pane. What reaches a pane's program is appended to `pane.input`; a dead pane takes nothing,
 * and keys sent to a pane in copy mode go to the mode (q, Escape and C-c leave it).
 */
import type { FakeBuffer, FakePane, FakeServer } from "../../FakeWorld.js"
import { type Arguments, has, number, value } from "../Arguments.js"
import { type CommandEntry, done, failed, type Outcome, printed, unmodelled } from "../Command.js"
import { FormatError, tryExpand } from "../Formats.js"
import { readKey } from "../Keys.js"
import type { Found } from "../Targets.js"
import { addBuffer, buffersNewestFirst, removeBuffer } from "../World.js"

/** Keys that end copy mode in tmux's default (emacs) copy-mode table. */
const LEAVES_MODE = new Set(["q", "Escape", "C-c"])

const deliver = (pane: FakePane, bytes: string, key?: string): void => {
  if (pane.dead) return
  if (pane.inMode) {
    if (key !== undefined && LEAVES_MODE.has(key)) pane.inMode = false
    return
  }
  pane.input += bytes
}

const sendKeys: CommandEntry = {
  name: "send-keys",
  alias: "send",
  template: "FHlMN:Rt:X",
  lower: 0,
  upper: -1,
  target: { flag: "t", kind: "pane" },
  run: (_invocation, args, { target }) => {
    for (const flag of ["F", "M", "R", "X"]) if (has(args, flag)) return unmodelled("send-keys", `-${flag}`)
    const { pane } = target as Found
    const repeat = value(args, "N") === undefined ? 1 : number(value(args, "N")!, 1, 2 ** 31 - 1)
    if (typeof repeat !== "number") return failed(`repeat count ${repeat}`)
    for (let n = 0; n < repeat; n++) {
      for (const word of args.values) {
        if (has(args, "H")) {
          // An argument that is no hex byte is skipped, as tmux does.
          if (/^[0-9a-f]{1,2}$/i.test(word)) deliver(pane, String.fromCharCode(parseInt(word, 16)))
          continue
        }
        if (has(args, "l")) {
          for (const char of word) deliver(pane, char, char)
          continue
        }
        const key = readKey(word)
        if ("unmodelled" in key) return unmodelled("send-keys", `the key ${key.unmodelled}`)
        if ("bytes" in key) deliver(pane, key.bytes, word)
        else for (const char of key.text) deliver(pane, char, char)
      }
    }
    return done
  }
}

/** The buffer -b names, or the newest one; tmux's error text when there is none. */
const bufferOf = (server: FakeServer, args: Arguments, missing: (name: string) => string): FakeBuffer | { readonly error: string } => {
  const name = value(args, "b")
  const buffer = name === undefined ? buffersNewestFirst(server)[0] : server.buffers.find((b) => b.name === name)
  return buffer ?? { error: name === undefined ? "no buffers" : missing(name) }
}

const loadBuffer: CommandEntry = {
  name: "load-buffer",
  alias: "loadb",
  template: "b:t:w",
  lower: 1,
  upper: 1,
  run: (invocation, args) => {
    if (has(args, "w") || has(args, "t")) return unmodelled("load-buffer", "-w / -t (the clipboard)")
    if (args.values[0] !== "-") return unmodelled("load-buffer", "from a file (only - , the client's stdin)")
    if (invocation.stdin === undefined) return unmodelled("load-buffer", "- without stdin (RunOptions.stdin)")
    // tmux keeps no empty buffer.
    if (invocation.stdin !== "") addBuffer(invocation.server, value(args, "b"), invocation.stdin, invocation.now)
    return done
  }
}

/** set-buffer with its data as an argument (run_command hands its recorder a key so); no appending, renaming or clipboard. */
const setBuffer: CommandEntry = {
  name: "set-buffer",
  alias: "setb",
  template: "ab:t:n:w",
  lower: 0,
  upper: 1,
  run: (invocation, args) => {
    for (const flag of ["a", "n", "t", "w"]) if (has(args, flag)) return unmodelled("set-buffer", `-${flag}`)
    const data = args.values[0]
    if (data === undefined) return unmodelled("set-buffer", "without data")
    // tmux keeps no empty buffer.
    if (data !== "") addBuffer(invocation.server, value(args, "b"), data, invocation.now)
    return done
  }
}

const showBuffer: CommandEntry = {
  name: "show-buffer",
  alias: "showb",
  template: "b:",
  lower: 0,
  upper: 0,
  run: (invocation, args) => {
    const buffer = bufferOf(invocation.server, args, (name) => `no buffer ${name}`)
    return "error" in buffer ? failed(buffer.error) : printed(buffer.data)
  }
}

const deleteBuffer: CommandEntry = {
  name: "delete-buffer",
  alias: "deleteb",
  template: "b:",
  lower: 0,
  upper: 0,
  run: (invocation, args) => {
    const buffer = bufferOf(invocation.server, args, (name) => `unknown buffer: ${name}`)
    if ("error" in buffer) return failed(buffer.error)
    removeBuffer(invocation.server, buffer)
    return done
  }
}

const pasteBuffer: CommandEntry = {
  name: "paste-buffer",
  alias: "pasteb",
  template: "db:prs:t:",
  lower: 0,
  upper: 0,
  target: { flag: "t", kind: "pane" },
  run: (invocation, args, { target }) => {
    const { pane } = target as Found
    const buffer = bufferOf(invocation.server, args, (name) => `no buffer ${name}`)
    if ("error" in buffer) return failed(buffer.error)
    // Newlines become the separator (a carriage return unless -s), as a terminal paste sends them; -r keeps them.
    const separator = value(args, "s") ?? (has(args, "r") ? "\n" : "\r")
    const text = buffer.data.replaceAll("\n", separator)
    // A paste goes to the program even when the pane is in a mode.
    if (!pane.dead) pane.input += has(args, "p") && pane.bracketedPaste ? `\x1b[200~${text}\x1b[201~` : text
    if (has(args, "d")) removeBuffer(invocation.server, buffer)
    return done
  }
}

const listBuffers: CommandEntry = {
  name: "list-buffers",
  alias: "lsb",
  template: "F:f:",
  lower: 0,
  upper: 0,
  run: (invocation, args) => {
    const format = value(args, "F")
    if (format === undefined) return unmodelled("list-buffers", "without -F")
    const filter = value(args, "f")
    let out = ""
    for (const buffer of buffersNewestFirst(invocation.server)) {
      const target = { server: invocation.server, path: invocation.path, buffer }
      if (filter !== undefined) {
        const kept = tryExpand(filter, target)
        if (kept instanceof FormatError) return failed(kept.message)
        if (kept === "" || kept === "0") continue
      }
      const line = tryExpand(format, target)
      if (line instanceof FormatError) return failed(line.message)
      out += `${line}\n`
    }
    return printed(out)
  }
}

/** pipe-pane's command as tmux hands it to the shell: strftime's `%%` first, then formats. */
const expandPipeCommand = (command: string, found: Found, invocation: Parameters<CommandEntry["run"]>[0]): string | Outcome => {
  if (/%[^%]/.test(command.replaceAll("%%", ""))) return unmodelled("pipe-pane", "with strftime escapes other than %%")
  const expanded = tryExpand(command.replaceAll("%%", "%"), {
    server: invocation.server,
    path: invocation.path,
    session: found.session,
    winlink: found.winlink,
    pane: found.pane
  })
  return expanded instanceof FormatError ? failed(expanded.message) : expanded
}

const pipePane: CommandEntry = {
  name: "pipe-pane",
  alias: "pipep",
  template: "IOot:",
  lower: 0,
  upper: 1,
  target: { flag: "t", kind: "pane" },
  run: (invocation, args, { target }) => {
    if (has(args, "I")) return unmodelled("pipe-pane", "-I")
    const found = target as Found
    const command = args.values[0]
    if (command === undefined || command === "") {
      found.pane.pipe = null
      return done
    }
    // -o opens a pipe only when there is none (and closes one that is open).
    if (has(args, "o") && found.pane.pipe !== null) {
      found.pane.pipe = null
      return done
    }
    const expanded = expandPipeCommand(command, found, invocation)
    if (typeof expanded !== "string") return expanded
    found.pane.pipe = expanded
    return done
  }
}

export const inputCommands: ReadonlyArray<CommandEntry> = [
  sendKeys,
  loadBuffer,
  setBuffer,
  showBuffer,
  deleteBuffer,
  pasteBuffer,
  listBuffers,
  pipePane
]
