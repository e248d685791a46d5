/**
 * The documentation names what the code has: every tool of the registry (with its tier), every
 * CLI flag and variable of the usage text, and the README's two set-up commands. No tmux needed.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { USAGE } from "../../src/cli/Args.js"
import { allTools } from "../../src/tools/registry.js"
import { ROOT } from "./harness.js"

const read = (path: string) => readFileSync(join(ROOT, path), "utf8")
const readme = read("README.md")
const toolsDoc = read("docs/tools.md")
const configurationDoc = read("docs/configuration.md")

describe("docs match the code", () => {
  it("README has the build+start and the test command", () => {
    expect(readme).toContain("npm ci && npm run build && node dist/main.js")
    expect(readme).toContain("npm ci && npm test")
  })

  it("every registry tool is in the README's tool table with its tier, and has a section in docs/tools.md", () => {
    expect(allTools.length).toBeGreaterThan(0)
    for (const tool of allTools) {
      expect(readme, tool.name).toMatch(new RegExp(`^\\| \`${tool.name}\` \\| ${tool.tier} \\|`, "m"))
      expect(toolsDoc, tool.name).toMatch(new RegExp(`^## ${tool.name}$`, "m"))
      expect(toolsDoc, tool.name).toMatch(new RegExp(`^\\| \`${tool.name}\` \\| ${tool.tier} \\|`, "m"))
    }
  })

  it("the docs name no tool that the registry lacks", () => {
    const names = new Set(allTools.map((tool) => tool.name))
    const documented = [...toolsDoc.matchAll(/^## ([a-z_]+)$/gm)].map((m) => m[1]!)
    const tabled = [...readme.matchAll(/^\| `([a-z_]+)` \| (?:readonly|mutating|destructive) \|/gm)].map((m) => m[1]!)
    expect(documented.filter((name) => !names.has(name))).toEqual([])
    expect(tabled.filter((name) => !names.has(name))).toEqual([])
    expect(new Set(tabled)).toEqual(names)
  })

  it("every flag and variable of --help is in the README and docs/configuration.md", () => {
    const flags = [...new Set([...USAGE.matchAll(/--[a-z][a-z-]+/g)].map((m) => m[0]))]
    const variables = [...new Set([...USAGE.matchAll(/LIBTMUX_[A-Z_]+/g)].map((m) => m[0]))]
    expect(flags).toContain("--tmux-config")
    expect(variables).toContain("LIBTMUX_TMUX_CONFIG")
    for (const name of [...flags, ...variables]) {
      expect(readme, name).toContain(name)
      if (name !== "--help" && name !== "--version") expect(configurationDoc, name).toContain(name)
    }
  })
})
