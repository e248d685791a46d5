#!/usr/bin/env node
// dist/main.js (copied here by scripts/build.mjs). It runs the bundled server, dist/server.cjs,
// compiled with a V8 code cache: without one, V8 parses and compiles half a megabyte of JavaScript
// on every start, and Node 20 has no compile cache of its own (module.enableCompileCache came in
// Node 22). The package ships no cache (V8 takes only one made by the same V8 version and flags):
// the first run that lasts makes it in the user's cache directory, $XDG_CACHE_HOME/effect-tmux-mcp
// or ~/.cache/effect-tmux-mcp, named by a hash of the bundle and the Node version and architecture,
// so a stale cache is never used. A directory that cannot be written is skipped without a word:
// the server then compiles as it would without a cache. Nothing here writes to stdout.
//
// Once the server has started, V8 is told to optimize hot code sooner (fewer calls before Maglev
// and Turbofan take a function; Node 20's V8 said this with a smaller interrupt budget, a flag
// Node 22's no longer knows).
// Its default suits code that runs many times a second; a tool call runs each function of its path
// once, so that path stayed unoptimized for the first several hundred calls of a session, which
// most sessions never get past. Set from the start, the smaller budget makes V8 optimize start-up
// code that never runs again (+40 ms to the first answer, measured); set after it, a call of
// list_panes at 100 panes takes 4.8 -> 4.4 ms, capture_pane 1.9 -> 1.6 ms (bench-like A/B, one run).
// V8 keys a code cache to its flags, so a cache this run needs is written just before the change:
// the next start, which checks it under the default flags, takes it.
import { createHash } from "node:crypto"
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { homedir } from "node:os"
import { dirname, isAbsolute, join } from "node:path"
import { fileURLToPath } from "node:url"
import { setFlagsFromString } from "node:v8"
import { Script } from "node:vm"

const directory = dirname(fileURLToPath(import.meta.url))
const filename = join(directory, "server.cjs")
const source = readFileSync(filename, "utf8")

/** A run this short (--version, --help, doctor) compiles little of the server: its cache would be poor, and once there it is never replaced. */
const MIN_RUN_MS = 1000
/** When start-up is over and V8 gets the smaller budget (after MIN_RUN_MS: the cache written then is a lasting run's). */
const TIER_UP_AFTER_MS = 1500
/**
 * V8's tier-up thresholds for the server's request path, at 0.3x their defaults in Node 22's V8
 * (400 and 3000 calls), the ratio of the interrupt budget set on Node 20 (20000 of 67584).
 */
const REQUEST_PATH_BUDGET = "--invocation-count-for-maglev=120 --invocation-count-for-turbofan=900"
/** Caches of other bundles (earlier versions) are removed when they have not been written for this long. */
const STALE_CACHE_MS = 30 * 24 * 3600 * 1000

const cacheDirectory = () => {
  const xdg = process.env.XDG_CACHE_HOME
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, "effect-tmux-mcp")
  const home = homedir()
  return home === "" ? undefined : join(home, ".cache", "effect-tmux-mcp")
}

const cacheDir = cacheDirectory()
const bundleHash = createHash("sha256").update(source).digest("hex").slice(0, 16)
const cacheFile = cacheDir && join(cacheDir, `server.${bundleHash}.${process.version}-${process.arch}.cache`)

let cachedData
try {
  if (cacheFile !== undefined) cachedData = readFileSync(cacheFile)
} catch {
  // No cache yet: compile without one.
}

// The CommonJS wrapper on a line of its own (lineOffset -1), so stack lines match the bundle's.
const script = new Script(`(function (exports, require, module, __filename, __dirname) {\n${source}\n})`, {
  filename,
  lineOffset: -1,
  cachedData
})

// Made as the process exits, so the cache also holds the functions compiled while the server ran,
// not only the top level. Written aside and renamed, so a start never reads a half-written cache.
const writeCache = () => {
  if (cacheDir === undefined || cacheFile === undefined) return
  try {
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 })
    accessSync(cacheDir, constants.W_OK)
    const aside = `${cacheFile}.${process.pid}`
    writeFileSync(aside, script.createCachedData(), { mode: 0o600 })
    renameSync(aside, cacheFile)
    for (const name of readdirSync(cacheDir)) {
      const path = join(cacheDir, name)
      if (path !== cacheFile && /^server\..+\.cache$/.test(name) && Date.now() - statSync(path).mtimeMs > STALE_CACHE_MS) {
        rmSync(path, { force: true })
      }
    }
  } catch {
    // A read-only or full disk, a HOME that is not ours: the next start compiles without a cache.
  }
}

const needsCache = cachedData === undefined || script.cachedDataRejected === true
let cacheWritten = false
const writeCacheOnce = () => {
  if (cacheWritten) return
  cacheWritten = true
  writeCache()
}
if (needsCache) {
  const started = Date.now()
  process.on("exit", () => {
    if (Date.now() - started >= MIN_RUN_MS) writeCacheOnce()
  })
}
setTimeout(() => {
  if (needsCache) writeCacheOnce()
  setFlagsFromString(REQUEST_PATH_BUDGET)
}, TIER_UP_AFTER_MS).unref()

const module = { exports: {} }
script.runInThisContext()(module.exports, createRequire(filename), module, filename, directory)
