/**
 * show_options, set_option and get_pane_info's variables through a real MCP client over stdio:
 * results the client validates against the listed outputSchema, a change tmux then shows, the
 * allowlist's refusals, tiers (set_option absent at readonly), and nothing run by a hostile name.
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, makeWorld, ok, serve, type Served, type World } from "./harness.js"

describe("options and variables over stdio", () => {
  let world: World
  let server: Served

  beforeAll(async () => {
    world = makeWorld()
    world.startTmux()
    server = await serve(world)
  })
  afterAll(async () => {
    await server?.close()
    world?.dispose()
  })

  it("set_option changes what tmux shows and reads it back; show_options lists it with inherited values marked", async () => {
    expect(ok(await server.call("set_option", { name: "mode-keys", value: "vi", target: "@0" }))).toEqual({
      name: "mode-keys",
      value: "vi",
      scope: "window",
      target: "@0"
    })
    expect(world.tmux(["show-options", "-wv", "-t", "@0", "mode-keys"]).stdout).toBe("vi\n")
    const window = ok(await server.call("show_options", { scope: "window", target: "@0" }))
    expect(window.items).toContainEqual({ name: "mode-keys", value: "vi" })
    expect(window.items).toContainEqual({ name: "wrap-search", value: "on", inherited: "global" })
    const unset = ok(await server.call("set_option", { name: "mode-keys", unset: true, target: "@0" }))
    expect(unset).toMatchObject({ value: "emacs", inherited: "global" })
  })

  it("refuses what could run something, and never runs a name", async () => {
    const marker = join(world.dir, "ran")
    for (const name of ["default-command", "status-right", "after-new-window", "@x", `mouse#(touch ${marker})`]) {
      const error = errorOf(await server.call("set_option", { name, value: "on", global: true }))
      expect({ name, code: error.code }).toEqual({ name, code: "invalid_input" })
    }
    const shown = ok(await server.call("show_options", { scope: "session", global: true, name: `@x#(touch\${IFS}${marker})` }))
    expect(shown.total).toBe(0)
    const info = ok(await server.call("get_pane_info", { pane_id: "%0", variables: ["pane_tty", "window_zoomed_flag"] }))
    expect(info.variables).toEqual({ pane_tty: expect.stringMatching(/^\/dev\//), window_zoomed_flag: "0" })
    expect(errorOf(await server.call("get_pane_info", { pane_id: "%0", variables: [`#(touch ${marker})`] })).code).toBe("invalid_input")
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(existsSync(marker)).toBe(false)
  })

  it("the two tools and the variables argument stay within their 1,100 B of tools/list's model part", () => {
    const model = (name: string) => {
      const tool = server.tools.find((listed) => listed.name === name)!
      return Buffer.byteLength(JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }))
    }
    const variables = Buffer.byteLength(
      `,"variables":${JSON.stringify(server.tools.find((tool) => tool.name === "get_pane_info")!.inputSchema.properties!.variables)}`
    )
    // 501 + 481 + 55 B when measured (descriptions that say what each tool covers; no id patterns).
    expect(model("show_options") + model("set_option") + variables).toBeLessThanOrEqual(1_100)
  })

  it("set_option is absent at the readonly tier; show_options is there", async () => {
    const readonly = await serve(world, { env: { LIBTMUX_SAFETY: "readonly" } })
    try {
      const names = readonly.tools.map((tool) => tool.name)
      expect(names).toContain("show_options")
      expect(names).not.toContain("set_option")
    } finally {
      await readonly.close()
    }
  })
})
