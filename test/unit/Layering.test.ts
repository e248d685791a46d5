/**
 * The folders of src/ are the layers of the design, and imports only go down: a folder imports only
 * the folders below it in LAYERS (operations/ orders its concerns the same way), never one above it
 * or a sibling that is not below it, and a folder's `internal/` is imported only from inside that
 * folder. The entry points at the root of src/ (main.ts, index.ts, testing.ts) sit on top of everything.
 * docs/architecture.md draws the same order; a test below keeps the two equal.
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

interface Layer {
  readonly name: string
  /** Sub-folders in their own order, bottom first: every file of the folder lives in one of them. */
  readonly concerns?: ReadonlyArray<string>
}

/** The layers, bottom first. */
const LAYERS: ReadonlyArray<Layer> = [
  { name: "domain" },
  { name: "context" },
  { name: "tmux" },
  { name: "services" },
  {
    name: "operations",
    concerns: ["internal", "bounds", "hierarchy", "servers", "layout", "lifecycle", "environment", "watching", "input", "commands"]
  },
  { name: "tools" },
  { name: "mcp" },
  { name: "cli" },
  // Above every folder, so no folder can import the test doubles; the server's entry is kept off
  // them below, which leaves the library's testing entry to export them.
  { name: "testing" },
  // The library's public modules: each file is one namespace of index.ts or testing.ts and
  // re-exports only what callers use, so the helpers the layers below share stay unexported.
  { name: "api" }
]

/** The library's entry points: they export namespaces of api/ and nothing else. */
const LIBRARY_ENTRIES = ["index.ts", "testing.ts"]

/** The server's entry point: nothing it reaches may come from testing/. */
const SERVER_ENTRY = "main.ts"

const repository = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
const sourceRoot = join(repository, "src")

/** An import, as paths relative to src/ with "/" separators. */
interface Import {
  readonly from: string
  readonly to: string
}

type Place =
  | { readonly _tag: "Root" }
  | { readonly _tag: "Layer"; readonly layer: number; readonly concern?: number }
  | { readonly _tag: "Unplaced"; readonly reason: string }

const placeOf = (file: string): Place => {
  const segments = file.split("/")
  if (segments.length === 1) return { _tag: "Root" }
  const layer = LAYERS.findIndex((candidate) => candidate.name === segments[0])
  if (layer < 0) return { _tag: "Unplaced", reason: `folder ${segments[0]}/ is not in LAYERS` }
  const concerns = LAYERS[layer]?.concerns
  if (concerns === undefined) return { _tag: "Layer", layer }
  const concern = segments.length > 2 ? concerns.indexOf(segments[1] ?? "") : -1
  return concern < 0
    ? { _tag: "Unplaced", reason: `${segments[0]}/ files live in one of its concerns (${concerns.join(", ")})` }
    : { _tag: "Layer", layer, concern }
}

const nameOf = (place: Place): string => {
  if (place._tag !== "Layer") return place._tag === "Root" ? "the root of src/" : "an unplaced file"
  const layer = LAYERS[place.layer]
  return place.concern === undefined ? `${layer?.name}/` : `${layer?.name}/${layer?.concerns?.[place.concern]}/`
}

/** Why an import goes up or sideways, or undefined when it goes down (or stays in its own folder). */
const directionViolation = ({ from, to }: Import): string | undefined => {
  const source = placeOf(from)
  const target = placeOf(to)
  if (source._tag === "Unplaced" || target._tag === "Unplaced") return undefined // reported on its own
  if (source._tag === "Root") return undefined
  if (target._tag === "Root") return `${from} imports ${to}: the root of src/ holds the entry points, above every folder`
  const below = source.layer !== target.layer
    ? target.layer < source.layer
    : source.concern === undefined || target.concern === undefined || target.concern <= source.concern
  return below ? undefined : `${from} imports ${to}: ${nameOf(source)} may import only layers below it, and ${nameOf(target)} is not`
}

/** Why an import reaches into another folder's internal/, or undefined. */
const internalViolation = ({ from, to }: Import): string | undefined => {
  const segments = to.split("/")
  for (let index = 0; index < segments.length - 1; index++) {
    if (segments[index] !== "internal") continue
    const owner = segments.slice(0, index).join("/")
    if (owner === "" ? from.includes("/") : !from.startsWith(`${owner}/`)) {
      return `${from} imports ${to}: only files in ${owner === "" ? "src" : owner}/ may import its internal/`
    }
  }
  return undefined
}

/** The folder-level edges: "a b" for each pair where some file of a imports some file of b. */
const folderEdges = (imports: ReadonlyArray<Import>, folderOf: (file: string) => string | undefined): Set<string> => {
  const edges = new Set<string>()
  for (const { from, to } of imports) {
    const a = folderOf(from)
    const b = folderOf(to)
    if (a !== undefined && b !== undefined && a !== b) edges.add(`${a} ${b}`)
  }
  return edges
}

const mutualPairs = (edges: Set<string>): Array<string> =>
  [...edges]
    .map((edge) => edge.split(" "))
    .filter(([a, b]) => a !== undefined && b !== undefined && a < b && edges.has(`${b} ${a}`))
    .map(([a, b]) => `${a} <-> ${b}`)

const topFolderOf = (file: string): string | undefined => (file.includes("/") ? file.split("/")[0] : undefined)

const concernOf = (file: string): string | undefined => {
  const segments = file.split("/")
  return LAYERS.find((layer) => layer.name === segments[0])?.concerns !== undefined && segments.length > 2
    ? `${segments[0]}/${segments[1]}`
    : undefined
}

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

const toSourcePath = (absolute: string): string => relative(sourceRoot, absolute).split("\\").join("/")

/**
 * The module specifiers of one file: imports and exports (`export * as X from` too, which
 * ts.preProcessFile misses), `import("…")` types and dynamic imports.
 */
const moduleSpecifiers = (file: string, text: string): Array<string> => {
  const found: Array<string> = []
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push(node.moduleSpecifier.text)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push(node.argument.literal.text)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [specifier] = node.arguments
      if (specifier !== undefined && ts.isStringLiteralLike(specifier)) found.push(specifier.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true))
  return found
}

/** Every relative import, export-from, type import and dynamic import of src/, resolved to its file. */
const readImports = (): { readonly files: Array<string>; readonly imports: Array<Import>; readonly unresolved: Array<string> } => {
  const files = sourceFiles(sourceRoot)
  const imports: Array<Import> = []
  const unresolved: Array<string> = []
  for (const file of files) {
    for (const fileName of moduleSpecifiers(file, readFileSync(file, "utf8"))) {
      if (!fileName.startsWith(".")) continue
      const target = resolve(dirname(file), fileName.replace(/\.js$/, ".ts"))
      if (!existsSync(target) || !target.startsWith(`${sourceRoot}/`)) {
        unresolved.push(`${toSourcePath(file)} imports ${fileName}`)
      } else {
        imports.push({ from: toSourcePath(file), to: toSourcePath(target) })
      }
    }
  }
  return { files: files.map(toSourcePath), imports, unresolved }
}

/** The files `entry` reaches through its imports, itself included. */
const reachableFrom = (entry: string, imports: ReadonlyArray<Import>): Set<string> => {
  const seen = new Set([entry])
  const pending = [entry]
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    for (const { from, to } of imports) {
      if (from === file && !seen.has(to)) {
        seen.add(to)
        pending.push(to)
      }
    }
  }
  return seen
}

const source = readImports()

describe("the layer rules", () => {
  // The rules themselves, on made-up imports: each kind of wrong import is caught.
  it("catch an import up, across to a sibling above, into a root file and into a foreign internal/", () => {
    expect(directionViolation({ from: "tmux/Tmux.ts", to: "services/Audit.ts" })).toContain("tmux/ may import only layers below it")
    expect(directionViolation({ from: "operations/watching/Search.ts", to: "tools/Paging.ts" })).toBeDefined()
    expect(directionViolation({ from: "operations/servers/Servers.ts", to: "operations/commands/RunCommand.ts" })).toContain(
      "operations/servers/ may import only layers below it, and operations/commands/ is not"
    )
    expect(directionViolation({ from: "mcp/CallTool.ts", to: "main.ts" })).toContain("the root of src/")
    expect(internalViolation({ from: "tools/command.ts", to: "operations/commands/internal/RunLogs.ts" })).toContain(
      "only files in operations/commands/ may import its internal/"
    )
    expect(internalViolation({ from: "operations/input/Input.ts", to: "operations/commands/internal/RunLogs.ts" })).toBeDefined()
    expect(internalViolation({ from: "index.ts", to: "tmux/internal/SocketClient.ts" })).toBeDefined()
    expect(mutualPairs(folderEdges([{ from: "a/x.ts", to: "b/y.ts" }, { from: "b/z.ts", to: "a/w.ts" }], topFolderOf))).toEqual(["a <-> b"])
    expect(placeOf("operations/Loose.ts")._tag).toBe("Unplaced")
    expect(placeOf("extras/Thing.ts")._tag).toBe("Unplaced")
  })

  it("see every kind of import: import, export from, export * as, type import and dynamic import", () => {
    const text = [
      `import { a } from "./a.js"`,
      `import type { B } from "./b.js"`,
      `export { c } from "./c.js"`,
      `export * as D from "./d.js"`,
      `type E = import("./e.js").E`,
      `const f = () => import("./f.js")`
    ].join("\n")
    expect(moduleSpecifiers("x.ts", text)).toEqual(["./a.js", "./b.js", "./c.js", "./d.js", "./e.js", "./f.js"])
  })

  it("let imports go down, stay in their folder, and use their own folder's internal/", () => {
    const allowed: Array<Import> = [
      { from: "tmux/Tmux.ts", to: "context/SocketResolver.ts" },
      { from: "operations/commands/RunCommand.ts", to: "operations/input/Buffers.ts" },
      { from: "operations/commands/RunCommand.ts", to: "operations/commands/internal/RunLogs.ts" },
      { from: "operations/commands/internal/CommandWait.ts", to: "operations/commands/RunCommand.ts" },
      { from: "operations/servers/Servers.ts", to: "operations/internal/SocketPath.ts" },
      { from: "tools/pane.ts", to: "tools/internal/Paging.ts" },
      { from: "index.ts", to: "testing/FakeTmux.ts" },
      { from: "api/FakeTmux.ts", to: "testing/FakeTmux.ts" },
      { from: "main.ts", to: "cli/Doctor.ts" }
    ]
    expect(allowed.flatMap((edge) => [directionViolation(edge), internalViolation(edge)].filter((v) => v !== undefined))).toEqual([])
  })
})

describe("src/ follows the layers", () => {
  it("reads the imports of every file", () => {
    expect(source.files.length).toBeGreaterThan(50)
    expect(source.imports.length).toBeGreaterThan(300)
    // An import the test cannot resolve would escape every rule below.
    expect(source.unresolved).toEqual([])
  })

  it("places every folder and file in the order, and every declared folder exists", () => {
    const unplaced = source.files.flatMap((file) => {
      const place = placeOf(file)
      return place._tag === "Unplaced" ? [`${file}: ${place.reason}`] : []
    })
    expect(unplaced).toEqual([])
    const folders = new Set(source.files.flatMap((file) => (file.includes("/") ? [file.split("/")[0]] : [])))
    const concerns = new Set(source.files.flatMap((file) => concernOf(file) ?? []))
    const declared = LAYERS.flatMap((layer) => [layer.name, ...(layer.concerns ?? []).map((concern) => `${layer.name}/${concern}`)])
    expect(declared.filter((name) => !(name.includes("/") ? concerns.has(name) : folders.has(name)))).toEqual([])
  })

  it("imports only from layers below, or from its own folder", () => {
    expect(source.imports.flatMap((edge) => directionViolation(edge) ?? [])).toEqual([])
  })

  it("imports a folder's internal/ only from inside that folder", () => {
    expect(source.imports.flatMap((edge) => internalViolation(edge) ?? [])).toEqual([])
  })

  it("has no two top-level folders (and no two concerns of operations/) that import each other", () => {
    expect(mutualPairs(folderEdges(source.imports, topFolderOf))).toEqual([])
    expect(mutualPairs(folderEdges(source.imports, concernOf))).toEqual([])
  })

  it("lets the library's entries import only api/, the public modules", () => {
    const imported = source.imports.filter((edge) => LIBRARY_ENTRIES.includes(edge.from))
    expect(imported.length).toBeGreaterThan(2)
    expect(imported.filter((edge) => !edge.to.startsWith("api/")).map((edge) => `${edge.from} imports ${edge.to}`)).toEqual([])
  })

  it("keeps the server's entry point off testing/", () => {
    expect([...reachableFrom(SERVER_ENTRY, source.imports)].filter((file) => file.startsWith("testing/"))).toEqual([])
  })

  it("is drawn in docs/architecture.md in the same order, top first", () => {
    const page = readFileSync(join(repository, "docs/architecture.md"), "utf8")
    const picture = page.split("## Layers")[1]?.split("```")[1] ?? ""
    const drawn = [...picture.matchAll(/^ {1,3}(\w+)\/ /gm)].map((match) => match[1])
    expect(drawn).toEqual(LAYERS.map((layer) => layer.name).reverse())
    const operations = LAYERS.find((layer) => layer.name === "operations")?.concerns ?? []
    const drawnConcerns = [...picture.matchAll(/^ +│? +(\w+)\/ {2,}/gm)]
      .map((match) => match[1] ?? "")
      .filter((name) => operations.includes(name))
    expect(drawnConcerns).toEqual([...operations].reverse())
  })
})
