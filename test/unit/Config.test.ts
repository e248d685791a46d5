import { describe, expect, it } from "@effect/vitest"
import * as Result from "effect/Result"
import { type ConfigFlags, DEFAULT_WAIT_MAX_SECONDS, loadConfig, type TmuxMcpConfigShape } from "../../src/context/TmuxMcpConfig.js"

const load = (env: Record<string, string | undefined> = {}, flags: ConfigFlags = {}) => loadConfig({ env, flags, uid: 1000 })
const ok = (env: Record<string, string | undefined> = {}, flags: ConfigFlags = {}): TmuxMcpConfigShape => {
  const result = load(env, flags)
  if (Result.isFailure(result)) throw new Error(`expected a config, got: ${result.failure.message}`)
  return result.success
}
const errorOf = (env: Record<string, string | undefined> = {}, flags: ConfigFlags = {}): string => {
  const result = load(env, flags)
  if (Result.isSuccess(result)) throw new Error("expected a ConfigError")
  return result.failure.message
}

describe("loadConfig", () => {
  it("has the documented defaults", () => {
    const config = ok()
    expect(config).toMatchObject({
      socketName: undefined,
      socketPath: undefined,
      tmuxBin: "tmux",
      tmuxConfigFile: undefined,
      safety: "mutating",
      allowServerStart: false,
      suppressHistory: true,
      waitMaxSeconds: DEFAULT_WAIT_MAX_SECONDS,
      tmuxTmpdir: "/tmp",
      uid: 1000,
      callerTmux: undefined,
      callerPane: undefined,
      processTree: true
    })
  })

  it("LIBTMUX_MCP_PROCESS_TREE turns the search of this process's ancestors for the caller off, and refuses other words", () => {
    expect(ok({ LIBTMUX_MCP_PROCESS_TREE: "0" }).processTree).toBe(false)
    expect(ok({ LIBTMUX_MCP_PROCESS_TREE: "on" }).processTree).toBe(true)
    expect(errorOf({ LIBTMUX_MCP_PROCESS_TREE: "maybe" })).toContain("LIBTMUX_MCP_PROCESS_TREE must be one of")
  })

  it("reads every variable", () => {
    const config = ok({
      LIBTMUX_SOCKET: "work",
      LIBTMUX_TMUX_BIN: "/opt/tmux",
      LIBTMUX_TMUX_CONFIG: "/dev/null",
      LIBTMUX_SAFETY: "destructive",
      LIBTMUX_ALLOW_SERVER_START: "1",
      LIBTMUX_SUPPRESS_HISTORY: "0",
      LIBTMUX_MCP_WAIT_MAX_SECONDS: "45",
      TMUX_TMPDIR: "/run/user/1000",
      TMUX: "/tmp/tmux-1000/default,123,0",
      TMUX_PANE: "%4"
    })
    expect(config).toMatchObject({
      socketName: "work",
      tmuxBin: "/opt/tmux",
      tmuxConfigFile: "/dev/null",
      safety: "destructive",
      allowServerStart: true,
      suppressHistory: false,
      waitMaxSeconds: 45,
      tmuxTmpdir: "/run/user/1000",
      callerTmux: "/tmp/tmux-1000/default,123,0",
      callerPane: "%4"
    })
    expect(ok({ LIBTMUX_SOCKET_PATH: "/tmp/s" }).socketPath).toBe("/tmp/s")
  })

  it("reads a tool set from LIBTMUX_MCP_TOOLS or --tools, trimmed, and refuses empty entries", () => {
    expect(ok().toolSelection).toBeUndefined()
    expect(ok({ LIBTMUX_MCP_TOOLS: "  " }).toolSelection).toBeUndefined()
    expect(ok({ LIBTMUX_MCP_TOOLS: "where_am_i, read ,-capture_since" }).toolSelection).toEqual({
      terms: ["where_am_i", "read", "-capture_since"],
      source: "LIBTMUX_MCP_TOOLS"
    })
    expect(ok({ LIBTMUX_MCP_TOOLS: "read" }, { tools: "context" }).toolSelection).toEqual({ terms: ["context"], source: "--tools" })
    expect(errorOf({ LIBTMUX_MCP_TOOLS: "read,,context" })).toContain("LIBTMUX_MCP_TOOLS has an empty entry")
    expect(errorOf({}, { tools: "read,-" })).toContain("--tools has an empty entry")
  })

  it("lets every flag override its variable", () => {
    const config = ok(
      {
        LIBTMUX_SOCKET: "env-name",
        LIBTMUX_TMUX_BIN: "/env/tmux",
        LIBTMUX_TMUX_CONFIG: "/env/conf",
        LIBTMUX_SAFETY: "readonly",
        LIBTMUX_ALLOW_SERVER_START: "0",
        LIBTMUX_SUPPRESS_HISTORY: "1",
        LIBTMUX_MCP_WAIT_MAX_SECONDS: "10"
      },
      {
        socketName: "flag-name",
        tmuxBin: "/flag/tmux",
        tmuxConfigFile: "/flag/conf",
        safety: "destructive",
        allowServerStart: "1",
        suppressHistory: "0",
        waitMaxSeconds: "60"
      }
    )
    expect(config).toMatchObject({
      socketName: "flag-name",
      tmuxBin: "/flag/tmux",
      tmuxConfigFile: "/flag/conf",
      safety: "destructive",
      allowServerStart: true,
      suppressHistory: false,
      waitMaxSeconds: 60
    })
    expect(ok({ LIBTMUX_SOCKET_PATH: "/env/s" }, { socketPath: "/flag/s" }).socketPath).toBe("/flag/s")
    // A bad variable does not matter when the flag overrides it.
    expect(ok({ LIBTMUX_SAFETY: "bogus" }, { safety: "readonly" }).safety).toBe("readonly")
  })

  it("treats blank variables as unset", () => {
    expect(ok({ LIBTMUX_SOCKET: "  ", LIBTMUX_SAFETY: "", TMUX: "" })).toMatchObject({
      socketName: undefined,
      safety: "mutating",
      callerTmux: undefined
    })
  })

  it("accepts safety levels case-insensitively and refuses unknown ones naming the source and the choices", () => {
    expect(ok({ LIBTMUX_SAFETY: " ReadOnly " }).safety).toBe("readonly")
    const message = errorOf({ LIBTMUX_SAFETY: "admin" })
    expect(message).toContain("LIBTMUX_SAFETY")
    expect(message).toContain("\"admin\"")
    expect(message).toContain("readonly, mutating, destructive")
    expect(errorOf({}, { safety: "yolo" })).toContain("--safety")
  })

  it("refuses a socket name and a socket path together", () => {
    const message = errorOf({ LIBTMUX_SOCKET: "a", LIBTMUX_SOCKET_PATH: "/tmp/b" })
    expect(message).toContain("LIBTMUX_SOCKET")
    expect(message).toContain("LIBTMUX_SOCKET_PATH")
    expect(message).toMatch(/exclusive/)
    expect(errorOf({}, { socketName: "a", socketPath: "/tmp/b" })).toMatch(/--socket-name.*--socket-path/)
  })

  it("lets a socket flag replace both socket variables", () => {
    const byName = loadConfig({ env: { LIBTMUX_SOCKET_PATH: "/tmp/env-path" }, flags: { socketName: "cli" }, uid: 1 })
    expect(Result.getOrThrow(byName)).toMatchObject({ socketName: "cli", socketPath: undefined })
    const byPath = loadConfig({ env: { LIBTMUX_SOCKET: "env-name" }, flags: { socketPath: "/tmp/cli" }, uid: 1 })
    expect(Result.getOrThrow(byPath)).toMatchObject({ socketName: undefined, socketPath: "/tmp/cli" })
  })

  it("refuses a socket name with a slash", () => {
    expect(errorOf({ LIBTMUX_SOCKET: "/tmp/x" })).toMatch(/LIBTMUX_SOCKET must be a bare socket name/)
  })

  it("parses booleans as 0/1 and friends, and says which value is wrong", () => {
    for (const yes of ["1", "true", "YES", "on"]) expect(ok({ LIBTMUX_ALLOW_SERVER_START: yes }).allowServerStart).toBe(true)
    for (const no of ["0", "false", "No", "off"]) expect(ok({ LIBTMUX_SUPPRESS_HISTORY: no }).suppressHistory).toBe(false)
    const message = errorOf({ LIBTMUX_ALLOW_SERVER_START: "maybe" })
    expect(message).toContain("LIBTMUX_ALLOW_SERVER_START")
    expect(message).toContain("\"maybe\"")
    expect(errorOf({}, { suppressHistory: "2" })).toContain("--suppress-history")
  })

  it("clamps the wait maximum to [1, 120] and refuses non-numbers", () => {
    expect(ok({ LIBTMUX_MCP_WAIT_MAX_SECONDS: "0" }).waitMaxSeconds).toBe(1)
    expect(ok({ LIBTMUX_MCP_WAIT_MAX_SECONDS: "-5" }).waitMaxSeconds).toBe(1)
    expect(ok({ LIBTMUX_MCP_WAIT_MAX_SECONDS: "500" }).waitMaxSeconds).toBe(120)
    expect(ok({ LIBTMUX_MCP_WAIT_MAX_SECONDS: "2.5" }).waitMaxSeconds).toBe(2.5)
    expect(errorOf({ LIBTMUX_MCP_WAIT_MAX_SECONDS: "soon" })).toContain("LIBTMUX_MCP_WAIT_MAX_SECONDS")
    expect(errorOf({}, { waitMaxSeconds: "Infinity" })).toContain("--wait-max")
  })

  it("gives tmux only the basic environment, never the rest of the MCP process's", () => {
    const env = {
      PATH: "/usr/bin",
      HOME: "/home/u",
      TERM: "xterm",
      SHELL: "/bin/zsh",
      USER: "u",
      LOGNAME: "u",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      LC_CTYPE: "UTF-8",
      TMUX_TMPDIR: "/run/t",
      TMUX: "/tmp/tmux-1000/default,1,0",
      TMUX_PANE: "%1",
      AWS_SECRET_ACCESS_KEY: "hunter2",
      GITHUB_TOKEN: "ghp_x",
      LIBTMUX_SAFETY: "readonly",
      NODE_OPTIONS: "--inspect",
      UNSET: undefined
    }
    expect(ok(env).tmuxEnvironment).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/u",
      TERM: "xterm",
      SHELL: "/bin/zsh",
      USER: "u",
      LOGNAME: "u",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      LC_CTYPE: "UTF-8",
      TMUX_TMPDIR: "/run/t"
    })
  })
})
