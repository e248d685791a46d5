import { afterEach, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import { join, relative } from "node:path"
import { resolveStartDirectory, spawnArguments } from "../../src/operations/lifecycle/Spawn.js"

const made: Array<string> = []
/** A fresh directory under the system tmpdir, removed after the test. */
const tempDirectory = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe("resolveStartDirectory", () => {
  it.effect("expands ~, resolves relative paths against the working directory, and requires a directory", () =>
    Effect.gen(function*() {
      expect(yield* resolveStartDirectory("~")).toBe(homedir())
      const dir = tempDirectory("etm-spawn-")
      expect(yield* resolveStartDirectory(relative(process.cwd(), dir))).toBe(dir)
      const missing = yield* Effect.flip(resolveStartDirectory(join(dir, "nope")))
      expect(missing).toMatchObject({ _tag: "InvalidInput" })
      expect(missing.reason).toContain("does not exist")
      writeFileSync(join(dir, "file"), "")
      expect((yield* Effect.flip(resolveStartDirectory(join(dir, "file")))).reason).toContain("not a directory")
    }))
})

describe("spawnArguments", () => {
  it.effect("literalizes the start directory for tmux's format expansion", () =>
    Effect.gen(function*() {
      const dir = tempDirectory("etm-#{pane_pid}-")
      const { flags } = yield* spawnArguments({ startDirectory: dir })
      expect(flags).toEqual(["-c", dir.replaceAll("#", "##")])
    }))

  it.effect("keeps argv as given, and puts env -- in front of a one-element argv so no shell parses it", () =>
    Effect.gen(function*() {
      expect((yield* spawnArguments({ command: ["sh", "-c", "echo $1", "sh", "$HOME"] })).argv).toEqual([
        "sh",
        "-c",
        "echo $1",
        "sh",
        "$HOME"
      ])
      expect((yield* spawnArguments({ command: ["/opt/my tool;rm -rf x"] })).argv).toEqual(["env", "--", "/opt/my tool;rm -rf x"])
      expect((yield* spawnArguments({})).argv).toEqual([])
    }))

  it.effect("passes each variable as one -e argument and rejects names that are not variable names", () =>
    Effect.gen(function*() {
      const { flags } = yield* spawnArguments({ environment: { A: "x y", B_2: "=;#{pane_pid}" } })
      expect(flags).toEqual(["-e", "A=x y", "-e", "B_2==;#{pane_pid}"])
      const bad = yield* Effect.flip(spawnArguments({ environment: { "A-B": "1" } }))
      expect(bad.reason).toContain("\"A-B\"")
    }))

  it.effect("adds history suppression and refuses a conflicting caller value", () =>
    Effect.gen(function*() {
      const { flags } = yield* spawnArguments({ suppressHistory: true, environment: { KEEP: "1" } })
      expect(flags).toEqual(["-e", "KEEP=1", "-e", "HISTFILE=", "-e", "fish_history=", "-e", "fish_private_mode=1"])
      const conflict = yield* Effect.flip(spawnArguments({ suppressHistory: true, environment: { HISTFILE: "/tmp/h" } }))
      expect(conflict.reason).toContain("HISTFILE")
    }))
})
