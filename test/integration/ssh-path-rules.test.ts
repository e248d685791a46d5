/**
 * The rules of what OpenSSH alters in a path (src/tmux/internal/SshPathRules.ts) held against the
 * real ssh client: `ssh -G` prints the configuration after every expansion, forwards and
 * ControlPath included, without connecting. Every path a rule refuses comes out of ssh altered (or
 * refused by ssh); every path the rules let through comes out as it went in.
 */
import { spawnSync } from "node:child_process"
import { describe, expect, it } from "vitest"
import { controlPathProblem, forwardPathProblem } from "../../src/tmux/internal/SshPathRules.js"

const LOCAL = "/tmp/etm-rules/f1"

/** What ssh makes of `-L LOCAL:remote`: the connect path it would use, or undefined when it refuses the forward. */
const sshForwardPath = (remote: string): string | undefined => {
  const run = spawnSync("ssh", ["-G", "-F", "/dev/null", "-L", `${LOCAL}:${remote}`, "--", "etm-rules"], { encoding: "utf8" })
  if (run.status !== 0) return undefined
  const line = run.stdout.split("\n").find((text) => text.startsWith(`localforward ${LOCAL} `))
  return line?.slice(`localforward ${LOCAL} `.length)
}

/** What ssh makes of `-o ControlPath=path`, or undefined when it refuses it. */
const sshControlPath = (path: string): string | undefined => {
  const run = spawnSync("ssh", ["-G", "-F", "/dev/null", "-o", `ControlPath=${path}`, "--", "etm-rules"], { encoding: "utf8" })
  if (run.status !== 0) return undefined
  return run.stdout.split("\n").find((text) => text.startsWith("controlpath "))?.slice("controlpath ".length)
}

/** Paths a host or a local TMUX_TMPDIR may hold that ssh leaves alone. */
const HARMLESS = [
  "/tmp/tmux-1000/default",
  "/home/a b/tmux-0/x",
  "/srv/it's/x",
  "/srv/\"q\"/x",
  "/srv/#hash/x",
  "/srv/$HOME/x",
  "/srv/$/x",
  "/srv/{}/x",
  "/srv/~user/x",
  "/srv/[x]/x",
  "/srv/a=b,c;d&e|f(g)!*?<>/x",
  "/srv/é/x"
]

describe("what ssh alters in a forward's remote path", () => {
  it.each([
    "/tmp%u/tmux-0/x",
    "/tmp/%d/x",
    "/tmp/%%/x",
    "/tmp/%Z/x",
    "/tmp/${HOME}/x",
    "/tmp/${ETM_SURELY_UNSET}/x",
    "/tmp/a\\b/x",
    "/tmp/a:b/x",
    "relative",
    `/${"d".repeat(110)}`
  ])("%s: ssh alters or refuses it, and the rule refuses it", (path) => {
    expect(sshForwardPath(path)).not.toBe(path)
    expect(forwardPathProblem(path)).toBeDefined()
  })

  it("leaves every harmless path as it is, and so does the rule", () => {
    for (const path of HARMLESS) {
      expect(sshForwardPath(path), path).toBe(path)
      expect(forwardPathProblem(path), path).toBeUndefined()
    }
  })

  it("a relative path, which ssh keeps, is refused too: on the host it would be relative to sshd's directory", () => {
    expect(sshForwardPath("relative/x")).toBe("relative/x")
    expect(forwardPathProblem("relative/x")).toBe("it is not absolute")
  })
})

describe("what ssh alters in a ControlPath", () => {
  it.each([
    "/tmp/%u/m1",
    "/tmp/${HOME}/m1",
    "/tmp/a\\\\b/m1",
    "/tmp/a\\'b/m1",
    "/tmp/it's/m1",
    "/tmp/\"q\"/m1",
    "/tmp/a b/m1",
    "/tmp/a\tb/m1",
    "/tmp/a #b/m1"
  ])("%s: ssh alters or refuses it, and the rule refuses it", (path) => {
    expect(sshControlPath(path)).not.toBe(path)
    expect(controlPathProblem(path)).toBeDefined()
  })

  it("leaves a path of ordinary characters as it is, and so does the rule", () => {
    for (const path of ["/tmp/effect-tmux-mcp-0/ssh/m12-0123456789ab", "/srv/$HOME/m", "/srv/a=b,c;d&e|f(g)!*?<>[]{}~#/m", "/srv/é/m"]) {
      expect(sshControlPath(path), path).toBe(path)
      expect(controlPathProblem(path), path).toBeUndefined()
    }
  })
})
