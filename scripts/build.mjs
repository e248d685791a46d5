// Bundles the CLI into one ESM file: a bundled Effect starts in ~270 ms, unbundled in ~800 ms.
import { build } from "esbuild"
import { chmod } from "node:fs/promises"

await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/main.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minify: true,
  sourcemap: "linked",
  legalComments: "none",
  // Some CommonJS dependencies require() Node built-ins; give the ESM bundle a require().
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __etmCreateRequire } from 'node:module';const require = __etmCreateRequire(import.meta.url);"
  },
  logLevel: "warning"
})

// The bin entry must be executable when installed from a clone.
await chmod("dist/main.js", 0o755)
