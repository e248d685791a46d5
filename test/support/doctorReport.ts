/**
 * `doctor`'s report over FakeTmux (no server there unless the world says so), with a stand-in
 * `tmux` first on PATH that answers `-V` as tmux 3.3a, so no real tmux is asked anything.
 */
import * as Effect from "effect/Effect"
import { fileURLToPath } from "node:url"
import { doctor } from "../../src/cli/Doctor.js"
import type { FakeWorld } from "../../src/testing/FakeTmux.js"
import { allTools } from "../../src/tools/registry.js"
import { fakeLayer, type FakeOptions } from "./fakeWorld.js"

const STAND_IN = fileURLToPath(new URL("./tmux-version", import.meta.url))

export interface DoctorReport {
  readonly text: string
  /** Each `label: value` line by its label. */
  readonly lines: ReadonlyMap<string, string>
}

export const doctorReport = (options: FakeOptions = {}, world: FakeWorld = new Map()): Effect.Effect<DoctorReport> =>
  doctor(allTools).pipe(
    Effect.provide(fakeLayer(world, { ...options, env: { PATH: `${STAND_IN}:/usr/bin:/bin`, ...options.env } })),
    Effect.map(({ text }) => ({
      text,
      lines: new Map(
        text
          .split("\n")
          .slice(1)
          .map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()])
      )
    }))
  )
