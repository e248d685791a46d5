/**
 * tools/list, byte for byte, at every safety tier, with and without a hosts file (issue 32 item 3):
 * what clients hand the model and validate results against may change only on purpose. A change
 * shows as a diff of the snapshot files (test/e2e/__snapshots__/tools-list/), which are the wire's
 * JSON laid out one field per line; the wire's own byte count is their first line.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorld, serve, type World } from "./harness.js"

/** A hosts file whose one host is never reached: tools/list only names it. */
const HOSTS = { hosts: { build: { ssh: "etm-snapshot-host" } } }

const snapshotOf = (listed: unknown): string =>
  `${Buffer.byteLength(JSON.stringify(listed), "utf8")} B on the wire\n${JSON.stringify(listed, null, 2)}\n`

describe("tools/list, byte for byte", () => {
  let world: World
  let hostsPath: string
  beforeAll(() => {
    world = makeWorld()
    hostsPath = join(world.dir, "hosts.json")
    writeFileSync(hostsPath, JSON.stringify(HOSTS))
  })
  afterAll(() => world?.dispose())

  for (const safety of ["readonly", "mutating", "destructive"] as const) {
    for (const hosts of [false, true]) {
      const name = `${safety}${hosts ? "-hosts" : ""}`
      it(`at the ${safety} tier${hosts ? ", with a hosts file" : ""}`, async () => {
        const server = await serve(world, { env: { LIBTMUX_SAFETY: safety, ...(hosts ? { LIBTMUX_MCP_HOSTS: hostsPath } : {}) } })
        try {
          const listed = await server.client.listTools()
          await expect(snapshotOf(listed)).toMatchFileSnapshot(join("__snapshots__", "tools-list", `${name}.json.txt`))
        } finally {
          await server.close()
        }
      })
    }
  }
})
