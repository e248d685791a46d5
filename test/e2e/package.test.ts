/**
 * The package as a user gets it. The project is copied without dist/ (a fresh clone, never built)
 * and packed with `npm pack`, which must build it first; the tarball is installed into an empty
 * project. Without the optional peer `effect`, that is the bundled server alone: small, and its
 * CLI works through `npx`, also straight from the tarball as the README says. With `effect` added,
 * plain .mjs files run the README's library example against a private tmux server and its FakeTmux
 * example (from `effect-tmux-mcp/testing`) as written, internals stay unreachable, both examples
 * type-check as TypeScript consumers with `node16` and `bundler` resolution, and the app holds one
 * copy of effect (the package peers it, never brings its own).
 * Needs the npm registry (for `effect` and `@types/node`, at the lockfile's versions).
 */
import { execFile } from "node:child_process"
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeWorld, PACKAGE_VERSION, ROOT, type World } from "./harness.js"

interface Run {
  readonly status: number
  readonly stdout: string
  readonly stderr: string
}

const run = (command: string, args: ReadonlyArray<string>, options: { cwd: string; env?: Record<string, string>; timeout?: number }) =>
  new Promise<Run>((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeout ?? 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const status = error === null ? 0 : typeof error.code === "number" ? error.code : -1
        resolve({ status, stdout, stderr })
      }
    )
  })

const ok = async (command: string, args: ReadonlyArray<string>, options: { cwd: string; env?: Record<string, string> }) => {
  const result = await run(command, args, options)
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.status}):\n${result.stderr}\n${result.stdout}`)
  return result
}

/** Bytes of every file under a directory (symlinks not followed). */
const sizeOf = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((total, entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return total + sizeOf(path)
    return total + (entry.isFile() ? statSync(path).size : 0)
  }, 0)

const MB = 1024 * 1024
const lockfile = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
  packages: Record<string, { version: string }>
}
const lockedVersion = (name: string): string => {
  const version = lockfile.packages[`node_modules/${name}`]?.version
  if (version === undefined) throw new Error(`${name} is not in package-lock.json`)
  return version
}
const tsc = join(ROOT, "node_modules/typescript/bin/tsc")

/**
 * A README example, as written (plain JavaScript as much as TypeScript): the ts block after its
 * `<!-- example: NAME -->` marker, so the README and what runs here cannot drift apart.
 */
const readmeExample = (name: "library" | "FakeTmux"): string => {
  const after = readFileSync(join(ROOT, "README.md"), "utf8").split(`<!-- example: ${name} -->\n`)
  const example = after.length === 2 ? /^```ts\n([\s\S]*?)```/.exec(after[1]!)?.[1] : undefined
  if (example === undefined) throw new Error(`README.md has no single ts block after <!-- example: ${name} -->`)
  return example
}

const INTERNALS_PROGRAM = `
for (const specifier of ["effect-tmux-mcp/dist/lib/services/Ownership.js", "effect-tmux-mcp/src/index.ts", "effect-tmux-mcp/dist/server.cjs"]) {
  try {
    await import(specifier)
    console.log("reachable " + specifier)
  } catch (error) {
    console.log(error.code + " " + specifier)
  }
}
`

/** A TypeScript consumer: the README example, the fake, a typed error, and a refused deep import. */
const consumerSource = () =>
  `${readmeExample("library")}
import { Errors } from "effect-tmux-mcp"
import { FakeTmux, RecordingTmux } from "effect-tmux-mcp/testing"
// @ts-expect-error internals are not exported
import type {} from "effect-tmux-mcp/dist/lib/services/Ownership.js"

const missing: Errors.TmuxError = new Errors.NoServer({ socket: "/tmp/none" })
export const advice: string = Errors.hint(missing)
export const fake = FakeTmux.layer(new Map([["/tmp/fake.sock", FakeTmux.server({ sessions: [{ name: "demo" }] })]]))
export const recorded = RecordingTmux.layer(FakeTmux.layer())
`

const tsconfig = (moduleResolution: "node16" | "bundler") =>
  JSON.stringify({
    compilerOptions: {
      module: moduleResolution === "node16" ? "node16" : "esnext",
      moduleResolution,
      target: "ES2022",
      lib: ["ES2023"],
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ["node"]
    },
    files: ["consumer.ts", "fake.ts"]
  })

describe("the packed package", () => {
  let base: string
  let world: World
  let packed: { filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> }
  let consumer: string
  let withoutPeers: { bytes: number; packages: Array<string> }

  beforeAll(async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), "etm-pack-")))
    world = makeWorld()
    // A clone that was never built: the sources and the build's inputs, no dist/.
    const clone = join(base, "clone")
    mkdirSync(clone)
    for (
      const entry of ["package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json", "README.md", "LICENSE", "src", "scripts"]
    ) {
      cpSync(join(ROOT, entry), join(clone, entry), { recursive: true })
    }
    symlinkSync(realpathSync(join(ROOT, "node_modules")), join(clone, "node_modules"))
    const pack = await ok("npm", ["pack", "--json", "--pack-destination", base], { cwd: clone })
    // npm prints the build's output before its JSON answer.
    const [answer] = JSON.parse(pack.stdout.slice(pack.stdout.lastIndexOf("[\n  {"))) as Array<typeof packed>
    if (answer === undefined) throw new Error(`npm pack said nothing of its tarball:\n${pack.stdout}`)
    packed = answer

    consumer = join(base, "consumer")
    mkdirSync(consumer)
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }))
    await ok("npm", ["install", "--no-audit", "--no-fund", join(base, packed.filename)], { cwd: consumer })
    withoutPeers = {
      bytes: sizeOf(join(consumer, "node_modules")),
      packages: readdirSync(join(consumer, "node_modules")).filter((name) => !name.startsWith("."))
    }
  }, 180_000)

  afterAll(() => {
    world?.dispose()
    if (base !== undefined) rmSync(base, { recursive: true, force: true })
  })

  it("is built by npm pack (prepack) and holds the server, the library and the license, no map, cache or source", () => {
    const paths = packed.files.map((file) => file.path).sort()
    for (
      const path of [
        "LICENSE",
        "README.md",
        "package.json",
        "dist/main.js",
        "dist/server.cjs",
        "dist/lib/index.js",
        "dist/lib/index.d.ts",
        "dist/lib/testing.js",
        "dist/lib/testing.d.ts"
      ]
    ) {
      expect(paths).toContain(path)
    }
    expect(paths.filter((path) => /\.map$|\.cache$|^src\/|^test\/|^scripts\//.test(path))).toEqual([])
    expect(paths.filter((path) => !/^(LICENSE|README\.md|package\.json|dist\/(main\.js|server\.cjs|lib\/.+\.(js|d\.ts)))$/.test(path)))
      .toEqual([])
    console.info(
      `package: tarball ${(packed.size / 1024).toFixed(0)} KiB, unpacked ${
        (packed.unpackedSize / 1024).toFixed(0)
      } KiB, ${paths.length} files`
    )
  })

  it("installs without the peers as the server alone, under 5 MB, and its CLI runs through npx", async () => {
    expect(withoutPeers.packages).toEqual(["effect-tmux-mcp"])
    expect(withoutPeers.bytes).toBeLessThan(5 * MB)
    console.info(`consumer node_modules without the peers: ${(withoutPeers.bytes / MB).toFixed(2)} MB`)
    const env = { ...world.env }
    const version = await run("npx", ["effect-tmux-mcp", "--version"], { cwd: consumer, env })
    expect([version.status, version.stdout.trim()]).toEqual([0, PACKAGE_VERSION])
    const help = await run("npx", ["effect-tmux-mcp", "--help"], { cwd: consumer, env })
    expect(help.status).toBe(0)
    expect(help.stdout).toContain("Usage: effect-tmux-mcp [serve | doctor]")
    const doctor = await run("npx", ["effect-tmux-mcp", "doctor"], { cwd: consumer, env })
    expect(doctor.status).toBe(0)
    expect(doctor.stdout).toContain(`effect-tmux-mcp ${PACKAGE_VERSION} doctor`)
    expect(doctor.stdout).toMatch(new RegExp(`^socket:\\s+${world.socketName} \\(${world.socketPath}\\)$`, "m"))
    expect(doctor.stdout).toMatch(/^server:\s+not running/m)
    // Asking never starts a server.
    expect(world.socketFiles()).toEqual([])
  }, 60_000)

  it("runs from the tarball through npx as the README says: file:/abs or ./, not a bare absolute path", async () => {
    // A cache of its own: npx installs the tarball there, and it has no dependencies; npm still asks
    // the registry of the optional peer, so the CA a machine adds for that (a TLS-inspecting proxy:
    // the npm registry's node binary, unlike a distribution's, trusts only its own CAs) goes along.
    const env = {
      ...world.env,
      npm_config_cache: join(base, "npx-cache"),
      ...(process.env.NODE_EXTRA_CA_CERTS === undefined ? {} : { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS })
    }
    const elsewhere = join(base, "elsewhere")
    mkdirSync(elsewhere)
    const tarball = join(base, packed.filename)
    const file = await run("npx", ["-y", `file:${tarball}`, "--version"], { cwd: elsewhere, env })
    expect([file.status, file.stdout.trim()]).toEqual([0, PACKAGE_VERSION])
    const relative = await run("npx", ["-y", `./${packed.filename}`, "--version"], { cwd: base, env })
    expect([relative.status, relative.stdout.trim()]).toEqual([0, PACKAGE_VERSION])
    // npx runs a path with a slash as a command: the tarball itself, which is no program.
    const bare = await run("npx", ["-y", tarball, "--version"], { cwd: elsewhere, env })
    expect(bare.status).not.toBe(0)
    expect(bare.stderr).toContain("Permission denied")
  }, 60_000)

  describe("with effect added", () => {
    let withPeers: number

    beforeAll(async () => {
      // @types/node only for the TypeScript consumer below (a Node program has it).
      await ok("npm", [
        "install",
        "--no-audit",
        "--no-fund",
        `effect@${lockedVersion("effect")}`,
        `@types/node@${lockedVersion("@types/node")}`
      ], {
        cwd: consumer
      })
      withPeers = sizeOf(join(consumer, "node_modules"))
      writeFileSync(join(consumer, "example.mjs"), readmeExample("library"))
      writeFileSync(join(consumer, "fake.mjs"), readmeExample("FakeTmux"))
      writeFileSync(join(consumer, "internals.mjs"), INTERNALS_PROGRAM)
      writeFileSync(join(consumer, "consumer.ts"), consumerSource())
      writeFileSync(join(consumer, "fake.ts"), readmeExample("FakeTmux"))
      writeFileSync(join(consumer, "tsconfig.node16.json"), tsconfig("node16"))
      writeFileSync(join(consumer, "tsconfig.bundler.json"), tsconfig("bundler"))
    }, 120_000)

    it("runs the README's library example as a plain .mjs file against a private tmux server", async () => {
      console.info(`consumer node_modules with effect (and @types/node): ${(withPeers / MB).toFixed(2)} MB`)
      // The example asks for socket_name "work": a server of this world's TMUX_TMPDIR.
      const created = world.tmux(["new-session", "-d", "-s", "demo", "-x", "80", "-y", "24", "sleep 600"], "work")
      expect(created.status).toBe(0)
      world.tmux(["split-window", "-t", "demo", "sleep 700"], "work")
      const example = await run(process.execPath, ["example.mjs"], { cwd: consumer, env: { ...world.env } })
      expect([example.status, example.stderr]).toEqual([0, ""])
      expect(example.stdout.trim().split("\n")).toEqual(["%0 demo:0 sleep", "%1 demo:0 sleep"])
    }, 60_000)

    it("runs the README's FakeTmux example as written, and keeps the internals unreachable", async () => {
      const fake = await run(process.execPath, ["fake.mjs"], { cwd: consumer })
      expect([fake.status, fake.stderr, fake.stdout.trim()]).toEqual([0, "", "%0 demo:0 vim"])
      const internals = await run(process.execPath, ["internals.mjs"], { cwd: consumer })
      expect(internals.stdout.trim().split("\n")).toEqual([
        "ERR_PACKAGE_PATH_NOT_EXPORTED effect-tmux-mcp/dist/lib/services/Ownership.js",
        "ERR_PACKAGE_PATH_NOT_EXPORTED effect-tmux-mcp/src/index.ts",
        "ERR_PACKAGE_PATH_NOT_EXPORTED effect-tmux-mcp/dist/server.cjs"
      ])
    }, 30_000)

    it("holds one copy of effect, the app's own (4.1.x)", async () => {
      const listed = await run("npm", ["ls", "effect", "--all", "--parseable", "--long"], { cwd: consumer })
      const copies = [...new Set(listed.stdout.trim().split("\n").filter((line) => /[\\/]node_modules[\\/]effect:/.test(line)))]
      expect(copies).toEqual([`${join(consumer, "node_modules", "effect")}:effect@${lockedVersion("effect")}`])
      expect(lockedVersion("effect")).toMatch(/^4\.1\./)
    }, 30_000)

    it.each(["node16", "bundler"] as const)(
      "type-checks both README examples as TypeScript with moduleResolution %s",
      async (resolution) => {
        const checked = await run(process.execPath, [tsc, "-p", `tsconfig.${resolution}.json`], { cwd: consumer })
        expect([checked.status, checked.stdout]).toEqual([0, ""])
      },
      60_000
    )
  })
})
