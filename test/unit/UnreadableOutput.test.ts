/**
 * Issue 10 item 18, below the transports: whatever a `Tmux` layer answers (nothing, garbage,
 * garbage holding record marks), no tool turns it into a defect ("Internal error … bug"). An
 * embedder's own transport, or FakeTmux, has no end mark to tell an empty answer from a cut one
 * (the live transports do, see TmuxExec); what the operations can tell, they report as `failed`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { callTool } from "../../src/mcp/CallTool.js"
import { Tmux } from "../../src/tmux/Tmux.js"
import { allTools } from "../../src/tools/registry.js"
import { validCallsOfEveryTool } from "../support/everyTool.js"
import { fakeConfig, resultText, socketPathFor } from "../support/fakeWorld.js"
import { pendingHandle } from "../support/pendingHandle.js"
import { servicesLayer } from "../support/PrivateTmux.js"
import { toolNamed } from "../support/runTool.js"

const ANSWERS: Record<string, string> = {
  nothing: "",
  garbage: "garbage\nnot tmux at all\n",
  "record marks without the query's token": "\x1esrv\x1f1\x1f2\x1f3.3a\x1f/tmp/x\n\x1eses\x1f$0\x1fmain\x1f1\x1f0\x1f1\x1f@0\x1f%0\n"
}

const TMPDIR = mkdtempSync(join(tmpdir(), "etm-unreadable-"))
afterAll(() => rmSync(TMPDIR, { recursive: true, force: true }))
const handle = pendingHandle(TMPDIR, socketPathFor("default", TMPDIR), "1.2")

describe("tools over a Tmux that answers what tmux never prints", () => {
  for (const [label, answer] of Object.entries(ANSWERS)) {
    it.effect(`no tool reports a defect when every tmux call prints ${label}`, () =>
      Effect.gen(function*() {
        const stub = Layer.succeed(Tmux, Tmux.of({ run: () => Effect.succeed(answer) }))
        const layer = servicesLayer(fakeConfig({ tmpdir: TMPDIR, flags: { safety: "destructive", allowServerStart: "1" } }), stub)
        const calls = validCallsOfEveryTool(handle)
        expect(Object.keys(calls).sort()).toEqual(allTools.map((tool) => tool.name).sort())
        const defects: Array<string> = []
        for (const [name, variants] of Object.entries(calls)) {
          for (const args of variants) {
            // Bounded waits: a tool that keeps polling an unreadable answer ends by its own timeout.
            const result = yield* callTool(toolNamed(name), args).pipe(Effect.provide(layer))
            if (result.isError === true && /Internal error/.test(resultText(result))) {
              defects.push(`${name} ${JSON.stringify(args)}: ${resultText(result).slice(0, 200)}`)
            }
          }
        }
        expect(defects).toEqual([])
      }), 60_000)
  }
})
