/**
 * The documentation names what the code has: every tool of the registry (with its tier), every
 * CLI flag and variable of the usage text, and the README's two set-up commands; and it says what
 * the code does where a test can tell: the tool counts per safety level, `doctor`'s report (run
 * over FakeTmux), what `session_attached` counts, and links that stay inside the repository.
 * No tmux needed.
 */
import * as Effect from "effect/Effect"
import * as SchemaAST from "effect/SchemaAST"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { USAGE } from "../../src/cli/Args.js"
import { SAFETY_LEVELS } from "../../src/context/TmuxMcpConfig.js"
import { Session } from "../../src/domain/Model.js"
import { allTools } from "../../src/tools/registry.js"
import { TOOL_GROUPS, visibleTools } from "../../src/tools/Tool.js"
import { doctorReport } from "../support/doctorReport.js"
import { ROOT } from "./harness.js"

const read = (path: string) => readFileSync(join(ROOT, path), "utf8")
const readme = read("README.md")
const toolsDoc = read("docs/tools.md")
const configurationDoc = read("docs/configuration.md")
const DOCUMENTS = ["README.md", "docs/architecture.md", "docs/configuration.md", "docs/remote-hosts.md", "docs/tools.md"]

describe("docs match the code", () => {
  it("README has the build+start and the test command", () => {
    expect(readme).toContain("npm ci && npm run build && npx -y node@22 dist/main.js")
    expect(readme).toContain("npm ci && npx -y -p node@22 -- npm test")
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

  it("says how many tools each safety level enables, in the README and docs/configuration.md", () => {
    const counts = SAFETY_LEVELS.map((level) => [level, visibleTools(allTools, level).length] as const)
    const sentence = `${
      counts.map(([level, count]) => `\`${level}\` ${count === allTools.length ? `all ${count}` : count}`).join(", ")
    } tools`
    expect(configurationDoc).toContain(sentence)
    for (const [level, count] of counts) {
      expect(readme, level).toMatch(
        new RegExp(`^\\| \`${level}\`( \\(default\\))? \\|.*\\(${count === allTools.length ? `all ${count}` : count} tools\\) \\|$`, "m")
      )
    }
  })

  it("the README names every tool group LIBTMUX_MCP_TOOLS takes, in order", () => {
    const row = readme.split("\n").find((line) => line.startsWith("| `LIBTMUX_MCP_TOOLS`"))
    expect(row).toContain(`groups (${TOOL_GROUPS.map((group) => `\`${group}\``).join(", ")})`)
  })

  it("the README's library table names every namespace src/index.ts exports (it says nothing else is)", () => {
    const exported = [...read("src/index.ts").matchAll(/^export \* as (\w+) from/gm)].map((m) => m[1]!)
    const section = readme.split("## As an Effect library")[1]!.split("\n## ")[0]!
    const tabled = section.split("\n").filter((line) => line.startsWith("| `")).flatMap((line) =>
      [...line.split(" | ")[0]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!)
    )
    expect(exported).toContain("Hosts")
    expect(exported).toContain("Options")
    expect([...tabled].sort()).toEqual([...exported].sort())
  })

  it("shows doctor's report as doctor prints it for the configuration it names", async () => {
    const block = /## Checking[\s\S]*?```\n([\s\S]*?)\n```/.exec(configurationDoc)?.[1]
    expect(block).toBeDefined()
    // The example: LIBTMUX_SOCKET=work, uid 1000, TMUX_TMPDIR unset, no server there, outside tmux.
    const report = await Effect.runPromise(doctorReport({ env: { LIBTMUX_SOCKET: "work" }, tmpdir: "/tmp", uid: 1000 }))
    const printed = report.text.split("\n")
    const documented = block!.split("\n")
    expect(documented.map((line) => line.slice(0, 15))).toEqual(printed.map((line) => line.slice(0, 15)))
    documented.forEach((line, i) => {
      // The tools line lists every name; the docs cut it short.
      if (line.endsWith("…")) expect(printed[i]!.startsWith(line.slice(0, -1).trimEnd()), line).toBe(true)
      else expect(line).toBe(printed[i])
    })
  })

  it("says what session_attached counts as the output schema does", () => {
    const description = SchemaAST.resolveDescription(Session.fields.session_attached.ast)
    expect(description).toContain("except control-mode clients")
    const said = [...toolsDoc.matchAll(/`session_attached`\s*\(([^)]*(?:\([^)]*\)[^)]*)*)\)/g)].map((m) => m[1]!.replace(/\s+/g, " "))
    expect(said.length).toBeGreaterThan(0)
    for (const text of said) {
      expect(text).not.toMatch(/control-mode clients included/)
      expect(text).toContain("except control-mode clients that take no pane output")
    }
  })

  it("links only to files inside the repository", () => {
    for (const document of DOCUMENTS) {
      const text = read(document)
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue
        const path = resolve(ROOT, dirname(document), target!)
        expect(relative(ROOT, path).startsWith(".."), `${document} -> ${target}`).toBe(false)
        expect(existsSync(path), `${document} -> ${target}`).toBe(true)
      }
      expect(text, document).not.toMatch(/shared\/DESIGN\.md|\/work\//)
    }
  })
})
