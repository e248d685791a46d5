/**
 * set_environment, unset_environment and show_environment on real tmux: scopes (global, session by
 * id, session by exact name), values that break naive parsing, removal, bounds, dead servers, and
 * new processes actually seeing what was set.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { TmuxExec } from "../../src/tmux/TmuxExec.js"
import { attachControlClient, callerEnv, useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, okResult, runTool } from "../support/runTool.js"
import { tmuxEscapesCommandOutput } from "../support/tmuxVersion.js"

const { world, defer } = useWorlds()

const started = (w: PrivateTmux) => {
  w.tmuxOk("new-session", "-d", "-s", "main", "-x", "80", "-y", "24")
  return w.layer()
}

/** Values that a line-based reading of `show-environment` gets wrong, or that tmux's argv handling could. */
const HOSTILE_VALUES: Record<string, string> = {
  NEWLINE: "line1\nFAKE=forged\nline3",
  QUOTES: `it's "double" and 'single'`,
  SHELL_CHARS: "$HOME `id` $(id) \\ back\\slash",
  SEMICOLON: "a; b ;",
  ESCAPED_SEMICOLON: "ends with \\;",
  LONE_SEMICOLON: ";",
  DASH: "-x --flag",
  FORMAT: "#{pane_pid} #(touch /nonexistent/x)",
  UNICODE: "ünï 日本 🙂\ttab",
  EMPTY: "",
  EXPORT: "\"; export X; echo pwned; X=\"",
  // tmux 3.4 and 3.5 print ESC as `\033`, the same text as a backslash and "033": it cannot be read back.
  ...(tmuxEscapesCommandOutput() ? {} : { CONTROL: "ESC \x1b[31m" })
}

describe("set_environment / show_environment round trip", () => {
  it("stores and reads back every value exactly, globally and per session, by name and in a full listing", async () => {
    const w = world()
    const layer = started(w)
    for (const scope of [{ global: true }, { session_id: "$0" }] as const) {
      for (const [name, value] of Object.entries(HOSTILE_VALUES)) {
        const set = okResult(await runTool(layer, "set_environment", { name, value, ...scope }))
        expect(set).toEqual({
          name,
          status: "set",
          scope: "global" in scope ? "global" : "session",
          session_id: "global" in scope ? null : "$0",
          value_length: [...value].length
        })
        const one = okResult(await runTool(layer, "show_environment", { name, ...scope }))
        expect({ name, variables: one.variables, removed: one.removed }).toEqual({ name, variables: { [name]: value }, removed: [] })
      }
      const all = okResult(await runTool(layer, "show_environment", scope))
      for (const [name, value] of Object.entries(HOSTILE_VALUES)) expect({ name, value: all.variables[name] }).toEqual({ name, value })
      // The forged line inside NEWLINE did not become a variable of its own.
      expect(all.variables).not.toHaveProperty("FAKE")
      expect(all.truncated).toBe(false)
      expect(all.returned).toBe(all.total)
    }
    // tmux itself holds the value (its raw print shows the newline inside one entry).
    expect(w.tmuxOk("show-environment", "-t", "main", "NEWLINE")).toBe(`NEWLINE=${HOSTILE_VALUES.NEWLINE}\n`)
    expect(w.tmuxOk("show-environment", "-g", "SEMICOLON")).toBe(`SEMICOLON=${HOSTILE_VALUES.SEMICOLON}\n`)
  })

  it("targets a session by exact name, never by tmux's prefix match", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "alpha-long")
    w.tmuxOk("new-session", "-d", "-s", "alpha")
    const layer = w.layer()
    const set = okResult(await runTool(layer, "set_environment", { name: "WHO", value: "exact", session_name: "alpha" }))
    expect(set).toMatchObject({ scope: "session", session_id: "$1" })
    expect(w.tmuxOk("show-environment", "-t", "$1", "WHO")).toBe("WHO=exact\n")
    expect(w.tmux("show-environment", "-t", "$0", "WHO").status).not.toBe(0)
    // tmux's own `-t alph` would pick a session by prefix; ours does not.
    const prefix = errorMeta(await runTool(layer, "set_environment", { name: "WHO", value: "x", session_name: "alph" }))
    expect(prefix.code).toBe("not_found")
    expect(okResult(await runTool(layer, "show_environment", { session_name: "alpha", name: "WHO" })).variables).toEqual({ WHO: "exact" })
  })

  it("never takes a client's session for a name no session has (tmux's -t falls back to client names)", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "watched")
    w.tmuxOk("set-environment", "-t", "watched", "WHO", "watched")
    const client = await attachControlClient(w, "watched")
    defer(client.close)
    const clientName = w.tmuxOk("list-clients", "-F", "#{client_name}").trim()
    // tmux itself would answer for the client's session.
    expect(w.tmuxOk("show-environment", "-t", `=${clientName}`, "WHO")).toBe("WHO=watched\n")
    const layer = w.layer()
    for (const args of [{ session_name: clientName }, { session_name: clientName, name: "WHO" }]) {
      const error = errorMeta(await runTool(layer, "show_environment", args))
      expect(error.code).toBe("not_found")
      expect(error.text).toContain(clientName)
    }
    expect(errorMeta(await runTool(layer, "set_environment", { session_name: clientName, name: "WHO", value: "x" })).code).toBe("not_found")
    expect(errorMeta(await runTool(layer, "unset_environment", { session_name: clientName, name: "WHO" })).code).toBe("not_found")
    expect(w.tmuxOk("show-environment", "-t", "watched", "WHO")).toBe("WHO=watched\n")
  })

  it("finds names tmux's -t cannot take as they are, and reads one variable of a named session", async () => {
    const w = world()
    // tmux reads a target starting with $ as a session id, even after "=".
    w.tmuxOk("new-session", "-d", "-s", "$1x")
    w.tmuxOk("new-session", "-d", "-s", "plain")
    w.tmuxOk("set-environment", "-t", "$0", "WHO", "dollar")
    w.tmuxOk("set-environment", "-t", "$1", "WHO", "plain")
    const layer = w.layer()
    expect(okResult(await runTool(layer, "show_environment", { session_name: "$1x", name: "WHO" }))).toMatchObject({
      session_id: "$0",
      variables: { WHO: "dollar" }
    })
    expect(okResult(await runTool(layer, "show_environment", { session_name: "plain", name: "WHO" }))).toMatchObject({
      scope: "session",
      session_id: "$1",
      variables: { WHO: "plain" },
      total: 1
    })
    // A name that is not set is an empty listing, by name as by id.
    expect(okResult(await runTool(layer, "show_environment", { session_name: "plain", name: "NOT_SET" }))).toMatchObject({
      session_id: "$1",
      variables: {},
      removed: [],
      total: 0
    })
    // tmux never stores ":" or "." in a session name, and no session has an empty one.
    for (const name of ["pla:in", "pla.in", ""]) {
      expect(errorMeta(await runTool(layer, "show_environment", { session_name: name })).code).toBe("not_found")
    }
  })

  it("a new window's process sees a variable set for its session, and one set globally", async () => {
    const w = world()
    const layer = started(w)
    okResult(await runTool(layer, "set_environment", { session_id: "$0", name: "ETM_SESSION_VAR", value: "from session; $HOME" }))
    okResult(await runTool(layer, "set_environment", { global: true, name: "ETM_GLOBAL_VAR", value: "from global" }))
    const out = join(w.tmpdir, "seen")
    w.tmuxOk("new-window", "-t", "main", `printf '%s|%s' "$ETM_SESSION_VAR" "$ETM_GLOBAL_VAR" > ${out}`)
    const seen = await waitFor("the new window's output", () => {
      try {
        const text = readFileSync(out, "utf8")
        return text.includes("|") ? text : undefined
      } catch {
        return undefined
      }
    })
    expect(seen).toBe("from session; $HOME|from global")
  })
})

describe("unset_environment", () => {
  it("unset deletes the session's entry, so the global value applies again; remove keeps it out entirely", async () => {
    const w = world()
    const layer = started(w)
    okResult(await runTool(layer, "set_environment", { global: true, name: "LAYERED", value: "global" }))
    okResult(await runTool(layer, "set_environment", { session_id: "$0", name: "LAYERED", value: "session" }))
    expect(okResult(await runTool(layer, "show_environment", { session_id: "$0", name: "LAYERED" })).variables).toEqual({
      LAYERED: "session"
    })

    const unset = okResult(await runTool(layer, "unset_environment", { session_id: "$0", name: "LAYERED" }))
    expect(unset).toEqual({ name: "LAYERED", scope: "session", session_id: "$0", mode: "unset" })
    expect(okResult(await runTool(layer, "show_environment", { session_id: "$0", name: "LAYERED" }))).toMatchObject({
      variables: {},
      removed: [],
      total: 0
    })
    expect(okResult(await runTool(layer, "show_environment", { global: true, name: "LAYERED" })).variables).toEqual({ LAYERED: "global" })

    const removed = okResult(await runTool(layer, "unset_environment", { session_id: "$0", name: "LAYERED", remove: true }))
    expect(removed.mode).toBe("removed")
    const shown = okResult(await runTool(layer, "show_environment", { session_id: "$0" }))
    expect(shown.removed).toContain("LAYERED")
    expect(shown.variables).not.toHaveProperty("LAYERED")
    expect(w.tmuxOk("show-environment", "-t", "main", "LAYERED")).toBe("-LAYERED\n")

    // Unsetting what is not set is not an error (idempotent).
    okResult(await runTool(layer, "unset_environment", { global: true, name: "NEVER_SET" }))
    okResult(await runTool(layer, "unset_environment", { global: true, name: "LAYERED" }))
    expect(w.tmux("show-environment", "-g", "LAYERED").status).not.toBe(0)
  })
})

describe("show_environment", () => {
  it("is no_server on a dead server, never an empty map, and works on a server without sessions", async () => {
    const w = world()
    const layer = w.layer()
    for (const args of [{ global: true }, { global: true, name: "PATH" }, { session_id: "$0" }]) {
      expect(errorMeta(await runTool(layer, "show_environment", args)).code).toBe("no_server")
    }
    expect(errorMeta(await runTool(layer, "set_environment", { global: true, name: "A", value: "b" })).code).toBe("no_server")
    expect(errorMeta(await runTool(layer, "unset_environment", { global: true, name: "A" })).code).toBe("no_server")
    okResult(await runTool(layer, "start_server"))
    okResult(await runTool(layer, "set_environment", { global: true, name: "EMPTY_SERVER", value: "yes" }))
    expect(okResult(await runTool(layer, "show_environment", { global: true, name: "EMPTY_SERVER" })).variables).toEqual({
      EMPTY_SERVER: "yes"
    })
    expect(errorMeta(await runTool(layer, "show_environment", { session_id: "$0" })).code).toBe("not_found")
  })

  it("a missing session is not_found for all three tools; an unset name is an empty result", async () => {
    const w = world()
    const layer = started(w)
    for (
      const [tool, args] of [
        ["show_environment", { session_id: "$7" }],
        ["set_environment", { session_id: "$7", name: "A", value: "b" }],
        ["unset_environment", { session_id: "$7", name: "A" }],
        ["show_environment", { session_name: "nope" }]
      ] as const
    ) {
      const error = errorMeta(await runTool(layer, tool, args))
      expect({ tool, code: error.code }).toEqual({ tool, code: "not_found" })
    }
    expect(okResult(await runTool(layer, "show_environment", { global: true, name: "NOT_SET_ANYWHERE" }))).toMatchObject({
      scope: "global",
      variables: {},
      removed: [],
      total: 0,
      truncated: false
    })
  })

  it("bounds the listing by max_bytes and names what it left out", async () => {
    const w = world()
    const layer = started(w)
    for (let i = 0; i < 5; i++) {
      okResult(await runTool(layer, "set_environment", { session_id: "$0", name: `BIG_${i}`, value: "x".repeat(1000) }))
    }
    okResult(await runTool(layer, "set_environment", { session_id: "$0", name: "SMALL", value: "s" }))
    const full = okResult(await runTool(layer, "show_environment", { session_id: "$0" }))
    // tmux's update-environment also puts removed names (-DISPLAY, …) into a new session.
    const removedBytes = full.removed.reduce((sum: number, name: string) => sum + name.length, 0)
    const budget = 2 * 1005 + 6 + removedBytes + 500
    const bounded = okResult(await runTool(layer, "show_environment", { session_id: "$0", max_bytes: budget }))
    expect(bounded.truncated).toBe(true)
    expect(bounded.bytes).toBe(budget - 500)
    expect(bounded.removed).toEqual(full.removed)
    expect(Object.keys(bounded.variables)).toEqual(["BIG_0", "BIG_1", "SMALL"])
    expect(bounded.omitted_names).toEqual(["BIG_2", "BIG_3", "BIG_4"])
    expect(bounded.total).toBe(full.total)
    expect(bounded.returned).toBe(full.total - 3)
    expect(full.truncated).toBe(false)
    // What is returned is whole: never a cut value.
    expect(bounded.variables.BIG_0).toBe("x".repeat(1000))
    expect(errorMeta(await runTool(layer, "show_environment", { session_id: "$0", max_bytes: 0 })).code).toBe("invalid_input")
  })

  it("defaults to the caller's own session inside tmux, and asks for a scope outside it", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "a")
    w.tmuxOk("new-session", "-d", "-s", "b")
    w.tmuxOk("set-environment", "-t", "b", "MINE", "b-only")
    const inside = w.layer({ env: callerEnv(w, "%1") })
    expect(okResult(await runTool(inside, "show_environment", { name: "MINE" }))).toMatchObject({
      scope: "session",
      session_id: "$1",
      variables: { MINE: "b-only" }
    })
    expect(okResult(await runTool(inside, "show_environment", { name: "NOT_SET" }))).toMatchObject({ session_id: "$1", total: 0 })
    expect(okResult(await runTool(inside, "show_environment")).variables).toMatchObject({ MINE: "b-only" })
    w.tmuxOk("kill-pane", "-t", "%1")
    const gone = errorMeta(await runTool(inside, "show_environment"))
    expect(gone.code).toBe("not_found")
    expect(gone.text).toContain("%1")
    const outside = errorMeta(await runTool(w.layer(), "show_environment", {}))
    expect(outside.code).toBe("invalid_input")
    expect(outside.text).toContain("session_id")
  })
})

describe("argument rules", () => {
  it("requires exactly one explicit scope for changes and a valid variable name", async () => {
    const w = world()
    const layer = started(w)
    const cases: Array<[string, Record<string, unknown>]> = [
      ["set_environment", { name: "A", value: "b" }],
      ["set_environment", { name: "A", value: "b", global: false }],
      ["set_environment", { name: "A", value: "b", global: true, session_id: "$0" }],
      ["set_environment", { name: "A", value: "b", session_id: "$0", session_name: "main" }],
      ["unset_environment", { name: "A" }],
      ["show_environment", { global: true, session_name: "main" }],
      ["set_environment", { name: "1BAD", value: "b", global: true }],
      ["set_environment", { name: "A-B", value: "b", global: true }],
      ["set_environment", { name: "A=B", value: "b", global: true }],
      ["set_environment", { name: "", value: "b", global: true }],
      ["set_environment", { name: "__proto__", value: "b", global: true }],
      ["show_environment", { global: true, name: "-g" }]
    ]
    for (const [tool, args] of cases) {
      const error = errorMeta(await runTool(layer, tool, args))
      expect({ tool, args, code: error.code, effects: error.effects }).toEqual({ tool, args, code: "invalid_input", effects: "none" })
    }
    expect(w.tmux("show-environment", "-g", "A").status).not.toBe(0)
  })

  it("refuses a NUL or an oversized value without echoing it", async () => {
    const w = world()
    const layer = started(w)
    const secret = "s3cr3t-\0-value"
    const nul = errorMeta(await runTool(layer, "set_environment", { global: true, name: "SECRET", value: secret }))
    expect(nul.code).toBe("invalid_input")
    expect(nul.text).not.toContain("s3cr3t")
    const huge = errorMeta(await runTool(layer, "set_environment", { global: true, name: "SECRET", value: `s3cr3t${"y".repeat(20_000)}` }))
    expect(huge.code).toBe("invalid_input")
    expect(huge.text).not.toContain("s3cr3t")
    // The largest allowed value fits in one tmux command.
    const largest = "z".repeat(12_288)
    expect(okResult(await runTool(layer, "set_environment", { global: true, name: "LARGEST", value: largest })).value_length).toBe(12_288)
    expect(okResult(await runTool(layer, "show_environment", { global: true, name: "LARGEST" })).variables.LARGEST).toBe(largest)
  })

  it("never echoes the value when tmux cannot even be started", async () => {
    const w = world()
    // A transport that runs the binary: the socket transport starts none for this call.
    const layer = w.layer({ flags: { tmuxBin: join(w.tmpdir, "no-such-tmux") } }, TmuxExec.layer)
    const error = errorMeta(await runTool(layer, "set_environment", { global: true, name: "SECRET", value: "hunter2-secret" }))
    expect(error.code).toBe("failed")
    expect(error.text).toContain("no-such-tmux")
    expect(error.text).not.toContain("hunter2")
  })

  it("refuses a stale generation before changing anything", async () => {
    const w = world()
    const layer = started(w)
    const { generation } = okResult(await runTool(layer, "get_server_info"))
    okResult(await runTool(layer, "set_environment", { global: true, name: "GEN", value: "1", generation }))
    const stale = errorMeta(await runTool(layer, "set_environment", { global: true, name: "GEN", value: "2", generation: "1.1" }))
    expect(stale.code).toBe("not_found")
    expect(w.tmuxOk("show-environment", "-g", "GEN")).toBe("GEN=1\n")
  })
})
