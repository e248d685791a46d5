/**
 * The tmux versions at hand for e2e tests: the system's, and each of ETM_TEST_TMUX_MATRIX's (.ci/run
 * provides 3.5a and 3.8), and a server per test started with one of them, so client and server
 * always speak the same version.
 */
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { afterEach } from "vitest"
import { type EnvOverrides, makeWorld, serve, type Served, type World } from "./harness.js"

const matrix = process.env.ETM_TEST_TMUX_MATRIX

/** `[version, tmux binary]`, the system's first. */
export const tmuxVersions: ReadonlyArray<readonly [string, string]> = [
  ["system", "tmux"],
  ...(matrix === undefined || matrix === "" ? [] : readdirSync(matrix).sort().map((v) => [v, join(matrix, v, "tmux")] as const))
]

/**
 * A function that serves the built server in a world of its own with a given tmux binary (and
 * `env`); each world and server is closed after the test that made it.
 */
export const servePerTest = (env: EnvOverrides) => {
  const open: Array<{ readonly world: World; readonly server: Served }> = []
  afterEach(async () => {
    for (const { server, world } of open.splice(0)) {
      await server.close()
      world.dispose()
    }
  })
  return async (tmuxBin: string) => {
    const world = makeWorld()
    const server = await serve(world, { env: { LIBTMUX_TMUX_BIN: tmuxBin, ...env } })
    open.push({ world, server })
    return { world, server }
  }
}
