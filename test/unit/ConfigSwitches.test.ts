/**
 * Every on/off setting (LIBTMUX_ALLOW_SERVER_START, LIBTMUX_SUPPRESS_HISTORY and their flags)
 * accepts 1/true/yes/on and 0/false/no/off, and a value it refuses gets a message that lists
 * exactly those, not "0 or 1".
 */
import * as Result from "effect/Result"
import { describe, expect, it } from "vitest"
import { type ConfigFlags, loadConfig } from "../../src/context/TmuxMcpConfig.js"

const SWITCHES = [
  {
    source: "LIBTMUX_ALLOW_SERVER_START",
    sources: (value: string) => ({ env: { LIBTMUX_ALLOW_SERVER_START: value }, flags: {} }),
    field: "allowServerStart"
  },
  {
    source: "LIBTMUX_SUPPRESS_HISTORY",
    sources: (value: string) => ({ env: { LIBTMUX_SUPPRESS_HISTORY: value }, flags: {} }),
    field: "suppressHistory"
  },
  {
    source: "--allow-server-start",
    sources: (value: string) => ({ env: {}, flags: { allowServerStart: value } as ConfigFlags }),
    field: "allowServerStart"
  },
  {
    source: "--suppress-history",
    sources: (value: string) => ({ env: {}, flags: { suppressHistory: value } as ConfigFlags }),
    field: "suppressHistory"
  }
] as const

const load = (sources: { env: Record<string, string>; flags: ConfigFlags }) => loadConfig({ ...sources, uid: 1000 })

describe("on/off settings", () => {
  for (const { source, sources, field } of SWITCHES) {
    it(`${source} takes every word the message names, and refuses others naming them`, () => {
      for (
        const [word, value] of [
          ["1", true],
          ["TRUE", true],
          ["yes", true],
          ["on", true],
          ["0", false],
          ["false", false],
          ["No", false],
          ["off", false]
        ] as const
      ) {
        const loaded = load(sources(word))
        expect(Result.isSuccess(loaded) && loaded.success[field], `${source}=${word}`).toBe(value)
      }
      const refused = load(sources("maybe"))
      if (Result.isSuccess(refused)) throw new Error(`${source}=maybe was accepted`)
      const message = refused.failure.message
      expect(message).toContain(source)
      expect(message).toContain("\"maybe\"")
      expect(message).not.toContain("must be 0 or 1")
      for (const word of ["1", "true", "yes", "on", "0", "false", "no", "off"]) expect(message).toMatch(new RegExp(`\\b${word}\\b`))
    })
  }
})
