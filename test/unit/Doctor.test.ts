/**
 * `doctor` over FakeTmux: what it says about starting servers matches what the tools do (start_server,
 * and create_session with allow_server_start), and it shows the transport and the wait ceiling.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { doctorReport } from "../support/doctorReport.js"

describe("doctor", () => {
  it.effect("says both ways a server can start, and that create_session does it by default when allowed", () =>
    Effect.gen(function*() {
      const { lines } = yield* doctorReport()
      expect(lines.get("server start")).toBe(
        "start_server, or create_session with allow_server_start=true (off by default: LIBTMUX_ALLOW_SERVER_START=0)"
      )
      expect(lines.get("server")).toBe(
        "not running (start_server, or create_session with allow_server_start=true, starts one; no other tool does)"
      )
      const { lines: allowed } = yield* doctorReport({ flags: { allowServerStart: "1" } })
      expect(allowed.get("server start")).toBe(
        "start_server, or create_session (allow_server_start on by default: LIBTMUX_ALLOW_SERVER_START=1)"
      )
    }))

  it.effect("shows the transport and the ceiling of blocking waits", () =>
    Effect.gen(function*() {
      const { lines } = yield* doctorReport()
      expect(lines.get("transport")).toBe("socket (tmux's client protocol over the server's socket, no process per call)")
      expect(lines.get("waits")).toBe("at most 30 s (LIBTMUX_MCP_WAIT_MAX_SECONDS)")
      const { lines: set } = yield* doctorReport({ flags: { transport: "exec", waitMaxSeconds: "5" } })
      expect(set.get("transport")).toBe("exec (a tmux process per call)")
      expect(set.get("waits")).toBe("at most 5 s (LIBTMUX_MCP_WAIT_MAX_SECONDS)")
      expect(set.get("tmux")).toBe("tmux (tmux 3.3a)")
    }))

  it.effect("shows the tool set and the tools it enables", () =>
    Effect.gen(function*() {
      const { lines } = yield* doctorReport()
      expect(lines.get("tool set")).toBe("every tool of the safety level (LIBTMUX_MCP_TOOLS unset)")
      const { lines: set } = yield* doctorReport({ env: { LIBTMUX_MCP_TOOLS: "where_am_i,list_panes" } })
      expect(set.get("tool set")).toBe("LIBTMUX_MCP_TOOLS=where_am_i,list_panes")
      expect(set.get("tools")).toMatch(/^2 of \d+ enabled: where_am_i, list_panes$/)
      const { lines: bad } = yield* doctorReport({ flags: { tools: "nope" } })
      expect(bad.get("tool set")).toContain("INVALID: --tools names no tool or group \"nope\"")
    }))
})
