#!/usr/bin/env node
// dist/main.js (copied here by scripts/build.mjs). It runs the bundled server, dist/server.cjs, with
// the V8 code cache that the build made: without the cache, V8 parses and compiles half a megabyte of
// JavaScript on every start. Node 20 has no compile cache of its own (module.enableCompileCache
// came in Node 22). The cache file is named by a hash of the bundle, so a stale cache is never
// used, and V8 rejects a cache from another V8 version or other flags: then the bundle simply
// compiles as it would without one. Nothing here writes a file except the build's training run.
import { createHash } from "node:crypto"
import { readFileSync, renameSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Script } from "node:vm"

const directory = dirname(fileURLToPath(import.meta.url))
const filename = join(directory, "server.cjs")
const source = readFileSync(filename, "utf8")
const cacheFile = join(directory, `server.${createHash("sha256").update(source).digest("hex").slice(0, 16)}.cache`)

let cachedData
try {
  cachedData = readFileSync(cacheFile)
} catch {
  // No cache (e.g. the build's training run failed): compile without one.
}

// The CommonJS wrapper on a line of its own (lineOffset -1), so stack lines match the bundle's.
const script = new Script(`(function (exports, require, module, __filename, __dirname) {\n${source}\n})`, {
  filename,
  lineOffset: -1,
  cachedData
})

// The build's training run (one start that answers tools/list, then EOF) writes the cache as it
// exits: by then it also holds the functions compiled while starting, not only the top level.
// Written aside and renamed, so a start never reads a half-written cache.
if (process.env.EFFECT_TMUX_MCP_WRITE_CODE_CACHE === "1") {
  process.on("exit", () => {
    writeFileSync(`${cacheFile}.${process.pid}`, script.createCachedData())
    renameSync(`${cacheFile}.${process.pid}`, cacheFile)
  })
}

const module = { exports: {} }
script.runInThisContext()(module.exports, createRequire(filename), module, filename, directory)
