import { describe, expect, it } from "@effect/vitest"
import * as Result from "effect/Result"
import { parseArgs, USAGE } from "../../src/cli/Args.js"
import { loadConfig } from "../../src/context/TmuxMcpConfig.js"
import { TOOL_GROUPS } from "../../src/tools/Tool.js"

const parsed = (...argv: Array<string>) => {
  const result = parseArgs(argv)
  if (Result.isFailure(result)) throw new Error(result.failure)
  return result.success
}
const failure = (...argv: Array<string>) => {
  const result = parseArgs(argv)
  if (Result.isSuccess(result)) throw new Error(`expected a usage error for ${argv.join(" ")}`)
  return result.failure
}

describe("parseArgs", () => {
  it("serves by default and knows doctor, help and version", () => {
    expect(parsed()).toEqual({ command: "serve", flags: {} })
    expect(parsed("serve").command).toBe("serve")
    expect(parsed("doctor").command).toBe("doctor")
    expect(parsed("-h").command).toBe("help")
    expect(parsed("doctor", "--help").command).toBe("help")
    expect(parsed("-V").command).toBe("version")
    expect(parsed("--version").command).toBe("version")
  })

  it("reads value flags as separate or inline values", () => {
    expect(
      parsed(
        "doctor",
        "--socket-name",
        "work",
        "--tmux=/opt/tmux",
        "--tmux-config",
        "/dev/null",
        "--safety=readonly",
        "--wait-max",
        "9"
      )
    ).toEqual({
      command: "doctor",
      flags: { socketName: "work", tmuxBin: "/opt/tmux", tmuxConfigFile: "/dev/null", safety: "readonly", waitMaxSeconds: "9" }
    })
    expect(parsed("--socket-path", "/tmp/a=b").flags).toEqual({ socketPath: "/tmp/a=b" })
    expect(parsed("--tools", "read,-capture_since").flags).toEqual({ tools: "read,-capture_since" })
  })

  it("reads switches as on when bare and takes =0/=1", () => {
    expect(parsed("--allow-server-start", "--suppress-history=0").flags).toEqual({ allowServerStart: "1", suppressHistory: "0" })
  })

  it("rejects unknown options, missing values and stray arguments", () => {
    expect(failure("--bogus")).toBe("Unknown option --bogus.")
    expect(failure("--socket-name")).toBe("--socket-name needs a value.")
    expect(failure("--socket-name", "--safety", "readonly")).toBe("--socket-name needs a value.")
    expect(failure("serve", "doctor")).toContain("\"doctor\"")
    expect(failure("frobnicate")).toContain("Unexpected argument")
  })

  it("documents every flag it accepts", () => {
    for (
      const flag of [
        "--socket-name",
        "--socket-path",
        "--tmux",
        "--tmux-config",
        "--safety",
        "--allow-server-start",
        "--suppress-history",
        "--wait-max"
      ]
    ) {
      expect(USAGE).toContain(flag)
    }
  })

  it("names every tool group --tools takes (options was missing, issue 31)", () => {
    const listed = /groups \(([^)]*)\)/.exec(USAGE.replace(/\s+/g, " "))?.[1]?.split(", ")
    expect(listed).toEqual([...TOOL_GROUPS])
  })

  it("gives flags that override the environment when loaded", () => {
    const { flags } = parsed("--safety", "readonly", "--allow-server-start")
    const config = loadConfig({ env: { LIBTMUX_SAFETY: "destructive", LIBTMUX_ALLOW_SERVER_START: "0" }, flags, uid: 1 })
    expect(Result.getOrThrow(config)).toMatchObject({ safety: "readonly", allowServerStart: true })
  })
})
