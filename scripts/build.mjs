// Builds dist/: the server bundled into one CommonJS file, dist/server.cjs (a bundled Effect starts
// in a fraction of the time of an unbundled one), its launcher dist/main.js (scripts/launcher.mjs),
// and the library compiled by tsc into dist/lib/ (ESM + .d.ts of src/index.ts and src/testing.ts,
// tsconfig.build.json). `npm pack` runs this first (prepack). `node scripts/cold-start.mjs`
// measures the server's start: process spawn to the first tools/list answer.
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { chmod, copyFile, rm } from "node:fs/promises"
import { createRequire } from "node:module"

// Whatever an earlier build left (a V8 cache of the former launcher, files of deleted modules in
// dist/lib) must not ship.
await rm("dist", { recursive: true, force: true })

// The SDK's Server imports its Ajv validator (Ajv, ajv-formats, fast-uri inlined: ~155 KB of the
// bundle) only to build a default for form elicitation, which this server never asks for. It reaches
// it through a conditional self-import, @modelcontextprotocol/server/_shims, which also gives it
// `process`. src/mcp/McpServer.ts gives the Server its own validator, so the bundle gets a stub in
// the shims' place: `process` as is, and a validator that throws if it is ever constructed, so
// losing ours fails at once, not quietly.
const withoutAjv = {
  name: "without-ajv",
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/server\/_shims$/ }, () => ({ path: "shims", namespace: "without-ajv" }))
    build.onLoad({ filter: /.*/, namespace: "without-ajv" }, () => ({
      contents: [
        "export { default as process } from 'node:process'",
        "export class DefaultJsonSchemaValidator { constructor() { throw new Error('Ajv is not bundled: pass jsonSchemaValidator to the SDK Server') } }"
      ].join("\n"),
      loader: "js",
      resolveDir: process.cwd()
    }))
  }
}

await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/server.cjs",
  bundle: true,
  platform: "node",
  // CommonJS, because the launcher compiles it as a script (vm.Script takes a code cache; an ES
  // module cannot, on Node 20); CommonJS dependencies can then require() Node built-ins as is.
  format: "cjs",
  target: "node20",
  minify: true,
  // For a developer reading a stack of the minified bundle; not linked from it, and not packed.
  sourcemap: "external",
  legalComments: "none",
  plugins: [withoutAjv],
  logLevel: "warning"
})

await copyFile("scripts/launcher.mjs", "dist/main.js")
// The bin entry must be executable when installed from a clone.
await chmod("dist/main.js", 0o755)

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
const library = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" })
if (library.status !== 0) {
  console.error("build: tsc -p tsconfig.build.json failed")
  process.exit(1)
}
