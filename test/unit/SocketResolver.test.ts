import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeSocketResolver } from "../../src/context/SocketResolver.js"
import { FAKE_TMPDIR, fakeConfig, UID } from "../support/fakeWorld.js"

const dir = join(FAKE_TMPDIR, `tmux-${UID}`)
const resolverWith = (env: Record<string, string> = {}) => makeSocketResolver(fakeConfig({ env }))
const CALLER = { TMUX: "/run/caller,dir/sock,77,1", TMUX_PANE: "%3" }

describe("SocketResolver", () => {
  it("falls back to tmux's default socket, with its path computed", () =>
    Effect.gen(function*() {
      const socket = yield* resolverWith().resolve()
      expect(socket).toEqual({
        name: "default",
        path: join(dir, "default"),
        rule: "tmux default",
        flags: ["-L", "default"],
        label: `default (${join(dir, "default")})`
      })
    }).pipe(Effect.runPromise))

  it("follows the precedence chain: argument > LIBTMUX_SOCKET_PATH > LIBTMUX_SOCKET > $TMUX > default", () =>
    Effect.gen(function*() {
      const caller = yield* resolverWith(CALLER).resolve()
      expect(caller).toMatchObject({
        path: "/run/caller,dir/sock",
        rule: "caller ($TMUX)",
        flags: ["-S", "/run/caller,dir/sock"],
        name: null
      })

      const byName = resolverWith({ ...CALLER, LIBTMUX_SOCKET: "work" })
      expect(yield* byName.resolve()).toMatchObject({
        name: "work",
        path: join(dir, "work"),
        rule: "LIBTMUX_SOCKET",
        flags: ["-L", "work"]
      })

      const byPath = resolverWith({ ...CALLER, LIBTMUX_SOCKET_PATH: "/srv/t.sock" })
      expect(yield* byPath.resolve()).toMatchObject({ path: "/srv/t.sock", rule: "LIBTMUX_SOCKET_PATH", flags: ["-S", "/srv/t.sock"] })

      for (const resolver of [byName, byPath, resolverWith(CALLER), resolverWith()]) {
        expect(yield* resolver.resolve({ socket_name: "other" })).toMatchObject({
          name: "other",
          path: join(dir, "other"),
          rule: "socket_name argument"
        })
        expect(yield* resolver.resolve({ socket_path: "/x/y" })).toMatchObject({
          name: null,
          path: "/x/y",
          rule: "socket_path argument",
          flags: ["-S", "/x/y"],
          label: "/x/y"
        })
      }
    }).pipe(Effect.runPromise))

  it("names a socket given by path when it lives in the socket directory", () => {
    expect(resolverWith().fromPath(join(dir, "alpha"))).toMatchObject({ name: "alpha", label: `alpha (${join(dir, "alpha")})` })
    expect(resolverWith().fromPath("/elsewhere/alpha").name).toBeNull()
  })

  it("rejects both per-call selectors, a relative path and a bad name", () =>
    Effect.gen(function*() {
      const resolver = resolverWith()
      const both = yield* Effect.flip(resolver.resolve({ socket_name: "a", socket_path: "/b" }))
      expect(both._tag).toBe("InvalidInput")
      expect(both.reason).toMatch(/exclusive/)
      expect((yield* Effect.flip(resolver.resolve({ socket_path: "rel/path" }))).reason).toMatch(/absolute/)
      expect((yield* Effect.flip(resolver.resolve({ socket_name: "" }))).reason).toMatch(/non-empty/)
      expect((yield* Effect.flip(resolver.resolve({ socket_name: "a/b" }))).reason).toMatch(/without '\/'/)
    }).pipe(Effect.runPromise))

  it("resolves TMUX_TMPDIR through symlinks as tmux does", () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), "etm-unit-")))
    try {
      mkdirSync(join(base, "real"))
      symlinkSync(join(base, "real"), join(base, "link"))
      const resolver = makeSocketResolver(fakeConfig({ tmpdir: join(base, "link") }))
      expect(resolver.socketDirectory).toBe(join(base, "real", `tmux-${UID}`))
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  })
})
