/**
 * One composition root (issue 11): services/ServerLive.ts builds the whole live server from a
 * configuration, and main, doctor and the tests use it; nothing else composes the live layers.
 * main runs on Effect's own Runtime.makeRunMain (cli/RunMain.ts): no platform package, so no undici
 * to slow every start.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { InvocationContext } from "../../src/context/InvocationContext.js"
import { SocketResolver } from "../../src/context/SocketResolver.js"
import { TmuxMcpConfig } from "../../src/context/TmuxMcpConfig.js"
import { Audit } from "../../src/services/Audit.js"
import { Ownership } from "../../src/services/Ownership.js"
import { Policy } from "../../src/services/Policy.js"
import { ServerLive } from "../../src/services/ServerLive.js"
import { FakeTmux, FakeTmuxState } from "../../src/testing/FakeTmux.js"
import { Tmux } from "../../src/tmux/Tmux.js"
import { fakeConfig } from "../support/fakeWorld.js"

const repository = resolve(dirname(fileURLToPath(import.meta.url)), "../..")

const typescriptFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? typescriptFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
  )

/** A file's code without its comments (a doc comment may show an embedder composing layers). */
const codeOf = (file: string): string =>
  ts.createPrinter({ removeComments: true }).printFile(ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest))

/** The layers only a composition of the whole server puts together. */
const SERVICE_LAYER = /\b(Ownership|Policy|InvocationContext|SocketResolver)\.layer\b/g
const PROVIDES_CONFIG = /Layer\.provideMerge\(TmuxMcpConfig\.layer\(/

/** Composes: names two or more of the services' layers (a public module naming its own one does not), or provides the configuration under them. */
const composes = (code: string): boolean =>
  PROVIDES_CONFIG.test(code) || new Set([...code.matchAll(SERVICE_LAYER)].map((m) => m[1])).size >= 2

describe("the composition root", () => {
  it("only services/ServerLive.ts composes the live services, in src/ and in the tests' support", () => {
    const files = [...typescriptFiles(join(repository, "src")), ...typescriptFiles(join(repository, "test"))]
    const composing = files
      .filter((file) => !file.endsWith(".test.ts"))
      .filter((file) => composes(codeOf(file)))
      .map((file) => relative(repository, file))
    expect(composing).toEqual(["src/services/ServerLive.ts"])
  })

  it("main builds the server from it and runs on core Runtime.makeRunMain, no platform package", () => {
    const main = readFileSync(join(repository, "src/main.ts"), "utf8")
    expect(main).toMatch(/ServerLive\.layer\(/)
    expect(main).toMatch(/import \{ runMain \} from "\.\/cli\/RunMain\.js"/)
    expect(main).toMatch(/^runMain\(/m)
    expect(readFileSync(join(repository, "src/cli/RunMain.ts"), "utf8")).toMatch(/Runtime\.makeRunMain\(/)
    const sources = readdirSync(join(repository, "src"), { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".ts"))
    expect(sources.filter((file) => readFileSync(join(repository, "src", file), "utf8").includes("from \"@effect/platform"))).toEqual([])
  })

  it.effect("provides every service a tool, the policy and the audit need, over the transport it is given", () =>
    Effect.gen(function*() {
      const services = yield* Effect.all([Tmux, TmuxMcpConfig, SocketResolver, InvocationContext, Ownership, Policy, Audit, FakeTmuxState])
        .pipe(
          Effect.provide(ServerLive.layer(fakeConfig(), { tmux: FakeTmux.layer(new Map()), audit: Audit.silent }))
        )
      expect(services).toHaveLength(8)
      expect(services[1].safety).toBe("mutating")
    }))
})
