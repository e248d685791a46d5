/**
 * What a hostile-socket test needs around its listener, in a test's own directory: a secret the
 * listener asks to read and a target it asks to create (`untouched` checks neither happened), a
 * directory of a given mode, and a tmux binary that counts its runs (a run for a listener is a
 * tmux CLI that would obey its file requests).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { expect } from "vitest"
import { askForFiles, type FakeConnection, type FileAnswers } from "./FakeTmuxServer.js"

export const fileCanaries = (dir: string) => {
  const secret = join(dir, "id_secret")
  writeFileSync(secret, "PRIVATE KEY MATERIAL\n", { mode: 0o600 })
  const target = join(dir, "bashrc-written-by-a-server")
  const answers: Array<FileAnswers> = []
  return {
    answers,
    ask: async (c: FakeConnection) => void answers.push(await askForFiles(c, secret, target)),
    untouched: () => {
      expect(existsSync(target)).toBe(false)
      for (const answer of answers) {
        expect(answer.read.length).toBe(0)
        expect(answer.readError).not.toBe(0)
        expect(answer.writeError).not.toBe(0)
      }
    }
  }
}

/** A directory of its own, with the given mode (set after creation: the umask does not cut it). */
export const directoryWithMode = (parent: string, name: string, mode: number): string => {
  const dir = join(parent, name)
  mkdirSync(dir)
  chmodSync(dir, mode)
  return dir
}

/** A tmux binary that logs each run to `<bin>.count`, then is the real tmux. */
export const countingTmux = (dir: string) => {
  const bin = join(dir, "counting-tmux")
  writeFileSync(bin, `#!/bin/sh\necho "$*" >> "$0.count"\nexec tmux "$@"\n`)
  chmodSync(bin, 0o755)
  const calls = () => (existsSync(`${bin}.count`) ? readFileSync(`${bin}.count`, "utf8").split("\n").filter(Boolean) : [])
  return {
    bin,
    runs: () => calls().length,
    /** Runs other than the server's start-up check of the binary (`-V`, once). */
    toolRuns: () => calls().filter((args) => args !== "-V").length
  }
}
