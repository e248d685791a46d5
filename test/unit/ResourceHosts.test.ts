/**
 * Resources with a hosts file: the templates take `host`, a read runs on the URI's host (two hosts'
 * servers at the same path stay apart); without a hosts file nothing of this exists.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { readResource, resourceTemplatesFor } from "../../src/mcp/Resources.js"
import { FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { allTools } from "../../src/tools/registry.js"
import { fakeHostsLayer, remoteKey, remoteSocketPath, remoteView } from "../support/fakeHosts.js"
import { fakeLayer, socketPathFor } from "../support/fakeWorld.js"

const build = remoteView("build")
const gpu = remoteView("gpu")
const path = remoteSocketPath("default", build)

const serverPrinting = (line: string) => FakeTmux.server({ sessions: [{ name: "s", windows: [{ panes: [{ lines: [line] }] }] }] })

const world = (): FakeWorld =>
  new Map([
    [remoteKey("build", path), serverPrinting("on build")],
    [remoteKey("gpu", path), serverPrinting("on gpu")],
    [socketPathFor(), serverPrinting("on this machine")]
  ])

const text = (uri: string) =>
  Effect.map(readResource(uri, allTools), (result) => (result?.contents[0] as { readonly text: string } | undefined)?.text)

describe("resources and hosts", () => {
  it("the templates take host only with a hosts file", () => {
    expect(resourceTemplatesFor(false).map((template) => template.uriTemplate)).toEqual([
      "tmux://sessions{?socket_name,socket_path}",
      "tmux://session/{session_id}{?socket_name,socket_path}",
      "tmux://window/{window_id}{?socket_name,socket_path}",
      "tmux://pane/{pane_id}{?socket_name,socket_path}",
      "tmux://pane/{pane_id}/screen{?socket_name,socket_path}"
    ])
    for (const template of resourceTemplatesFor(true)) expect(template.uriTemplate).toMatch(/\{\?host,socket_name,socket_path\}$/)
  })

  it.effect("a read runs on the URI's host; no host is this machine", () =>
    Effect.gen(function*() {
      expect(yield* text("tmux://pane/%250/screen?host=build")).toBe("on build")
      expect(yield* text("tmux://pane/%250/screen?host=gpu")).toBe("on gpu")
      expect(yield* text("tmux://pane/%250/screen?host=local")).toBe("on this machine")
      expect(yield* text("tmux://pane/%250/screen")).toBe("on this machine")
      const pane = JSON.parse((yield* text("tmux://pane/%250?host=build"))!)
      expect(pane).toMatchObject({ pane_id: "%0" })
      const refused = yield* Effect.flip(text("tmux://sessions?host=elsewhere"))
      expect(refused.message).toContain("host: must be one of local, build, gpu")
    }).pipe(Effect.provide(fakeHostsLayer(world(), [build, gpu]))))

  it.effect("without a hosts file, host is no query parameter", () =>
    Effect.gen(function*() {
      const refused = yield* Effect.flip(text("tmux://pane/%250/screen?host=build"))
      expect(refused.message).toContain("the only query parameters are socket_name and socket_path")
    }).pipe(Effect.provide(fakeLayer(world()))))
})
