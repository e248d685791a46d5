/**
 * The built CLI outside MCP mode: --help, --version, doctor, and start-up refusals with exit codes
 * (0 ok, 1 invalid configuration or tmux missing, 2 bad command line). The tests run concurrently;
 * the one that needs a running server has its own world.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { allTools } from "../../src/tools/registry.js"
import { makeWorld, PACKAGE_VERSION, runCli, type World } from "./harness.js"

describe.concurrent("CLI", () => {
  let world: World
  beforeAll(() => {
    world = makeWorld()
  })
  afterAll(() => world?.dispose())

  it("--help and -h print the usage on stdout and exit 0", async () => {
    for (const run of await Promise.all([runCli(world, ["--help"]), runCli(world, ["-h"])])) {
      expect(run.status).toBe(0)
      expect(run.stdout).toContain("Usage: effect-tmux-mcp")
      expect(run.stdout).toContain("doctor")
      expect(run.stdout).toContain("--socket-name")
      expect(run.stderr).toBe("")
    }
  })

  it("--version and -V print the package.json version on stdout and exit 0", async () => {
    for (const run of await Promise.all([runCli(world, ["--version"]), runCli(world, ["-V"])])) {
      expect(run.status).toBe(0)
      expect(run.stdout.trim()).toBe(PACKAGE_VERSION)
    }
  })

  it("doctor reports tmux version, socket, rule, a dead server, caller, safety and tools, and exits 0", async () => {
    const run = await runCli(world, ["doctor"])
    expect(run.status).toBe(0)
    expect(run.stdout).toContain(`effect-tmux-mcp ${PACKAGE_VERSION} doctor`)
    expect(run.stdout).toMatch(/^tmux:\s+tmux \(tmux \d+\.\d+\w*\)$/m)
    expect(run.stdout).toMatch(new RegExp(`^socket:\\s+${world.socketName} \\(${world.socketPath}\\)$`, "m"))
    expect(run.stdout).toMatch(/^chosen by:\s+LIBTMUX_SOCKET$/m)
    expect(run.stdout).toMatch(/^server:\s+not running/m)
    expect(run.stdout).toMatch(/^caller:\s+not inside tmux/m)
    expect(run.stdout).toMatch(/^safety:\s+mutating$/m)
    const mutating = allTools.filter((tool) => tool.tier !== "destructive").length
    expect(run.stdout).toMatch(new RegExp(`^tools:\\s+${mutating} of ${allTools.length} enabled: where_am_i, `, "m"))
    expect(run.stdout).not.toContain("kill_server")
    // Asking never starts a server.
    expect(world.socketFiles()).toEqual([])
  })

  it("doctor reports a running server, the caller pane inside tmux, and flags over variables", async () => {
    const own = makeWorld()
    try {
      const caller = own.startTmux()
      const run = await runCli(own, ["doctor", "--safety", "destructive"], {
        LIBTMUX_SOCKET: undefined,
        LIBTMUX_SAFETY: "readonly",
        TMUX: `${caller.socketPath},${caller.pid},0`,
        TMUX_PANE: caller.paneId
      })
      expect(run.status).toBe(0)
      expect(run.stdout).toMatch(new RegExp(`^server:\\s+running \\(pid ${caller.pid}, tmux `, "m"))
      expect(run.stdout).toMatch(/^chosen by:\s+caller \(\$TMUX\)$/m)
      expect(run.stdout).toContain(`inside tmux, pane ${caller.paneId} on ${caller.socketPath}`)
      expect(run.stdout).toMatch(/^safety:\s+destructive$/m)
      expect(run.stdout).toMatch(new RegExp(`^tools:\\s+${allTools.length} of ${allTools.length} enabled`, "m"))
    } finally {
      own.dispose()
    }
  })

  it("doctor shows the transport, the wait ceiling and both ways a server can start", async () => {
    const [defaults, set] = await Promise.all([
      runCli(world, ["doctor"]),
      runCli(world, ["doctor", "--transport", "exec", "--allow-server-start"], { LIBTMUX_MCP_WAIT_MAX_SECONDS: "7" })
    ])
    expect(defaults.stdout).toMatch(/^transport:\s+socket \(tmux's client protocol over the server's socket, no process per call\)$/m)
    expect(defaults.stdout).toMatch(/^waits:\s+at most 30 s \(LIBTMUX_MCP_WAIT_MAX_SECONDS\)$/m)
    expect(defaults.stdout).toMatch(/^server start:\s+start_server, or create_session with allow_server_start=true \(off by default/m)
    expect(defaults.stdout).toMatch(/^server:\s+not running \(start_server, or create_session with allow_server_start=true, starts one/m)
    expect(defaults.stdout).not.toContain("only through start_server")
    expect(set.stdout).toMatch(/^transport:\s+exec \(a tmux process per call\)$/m)
    expect(set.stdout).toMatch(/^waits:\s+at most 7 s /m)
    expect(set.stdout).toMatch(/^server start:\s+start_server, or create_session \(allow_server_start on by default/m)
    expect(world.socketFiles()).toEqual([])
  })

  it("a refused on/off value names every word the setting takes", async () => {
    const run = await runCli(world, ["doctor"], { LIBTMUX_ALLOW_SERVER_START: "maybe" })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain("LIBTMUX_ALLOW_SERVER_START must be one of 1, true, yes, on (on) or 0, false, no, off (off)")
    expect(run.stderr).not.toContain("0 or 1")
  })

  it("LIBTMUX_SAFETY=bogus stops the server and doctor with exit 1 and a clear message on stderr", async () => {
    const runs = await Promise.all([runCli(world, [], { LIBTMUX_SAFETY: "bogus" }), runCli(world, ["doctor"], { LIBTMUX_SAFETY: "bogus" })])
    for (const run of runs) {
      expect(run.status).toBe(1)
      expect(run.stderr).toContain("LIBTMUX_SAFETY")
      expect(run.stderr).toContain("\"bogus\"")
      expect(run.stderr).toContain("readonly, mutating, destructive")
      expect(run.stdout).toBe("")
    }
  })

  it("doctor with LIBTMUX_TMUX_BIN=/nonexistent says tmux is not found and exits 1", async () => {
    const run = await runCli(world, ["doctor"], { LIBTMUX_TMUX_BIN: "/nonexistent" })
    expect(run.status).toBe(1)
    expect(run.stdout).toMatch(/^tmux:\s+\/nonexistent: NOT FOUND/m)
  })

  it("both LIBTMUX_SOCKET and LIBTMUX_SOCKET_PATH (or both flags) set: exit 1 naming both; one flag overrides the variables", async () => {
    const both = { LIBTMUX_SOCKET_PATH: world.socketPath }
    const [serveRun, doctorRun, flags, override] = await Promise.all([
      runCli(world, [], both),
      runCli(world, ["doctor"], both),
      runCli(world, ["doctor", "--socket-name", "x", "--socket-path", world.socketPath]),
      // A flag replaces both variables: the command line is the more specific choice.
      runCli(world, ["doctor", "--socket-path", world.socketPath])
    ])
    for (const run of [serveRun!, doctorRun!]) {
      expect(run.status).toBe(1)
      expect(run.stderr).toContain("LIBTMUX_SOCKET")
      expect(run.stderr).toContain("LIBTMUX_SOCKET_PATH")
      expect(run.stderr).toContain("exclusive")
    }
    expect(flags!.status).toBe(1)
    expect(flags!.stderr).toContain("--socket-name")
    expect(flags!.stderr).toContain("--socket-path")
    expect(override!.status).toBe(0)
    expect(override!.stdout).toContain(world.socketPath)
    expect(override!.stdout).toMatch(/^chosen by:\s+--socket-path$/m)
  })

  it("other invalid values exit 1 with the variable named", async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ LIBTMUX_ALLOW_SERVER_START: "maybe" }, "LIBTMUX_ALLOW_SERVER_START"],
      [{ LIBTMUX_MCP_WAIT_MAX_SECONDS: "soon" }, "LIBTMUX_MCP_WAIT_MAX_SECONDS"],
      [{ LIBTMUX_SOCKET: "a/b" }, "LIBTMUX_SOCKET"]
    ]
    const runs = await Promise.all(cases.map(([env]) => runCli(world, ["doctor"], env)))
    runs.forEach((run, i) => {
      const name = cases[i]![1]
      expect(run.status, name).toBe(1)
      expect(run.stderr, name).toContain(name)
    })
  })

  /**
   * A stand-in `ssh` first on PATH that writes its arguments into a log: `-V` answers as OpenSSH,
   * anything else fails as an unreachable host does. Answers the environment and the log's path.
   */
  const recordingSsh = (name: string) => {
    const bin = join(world.dir, `bin-${name}`)
    mkdirSync(bin)
    const log = join(bin, "ssh.log")
    writeFileSync(
      join(bin, "ssh"),
      [
        "#!/bin/sh",
        `printf '%s\\n' "$*" >> '${log}'`,
        `if [ "$1" = -V ]; then echo 'OpenSSH_9.9p1, fake' >&2; exit 0; fi`,
        "echo 'ssh: connect to host build-box port 22: Connection refused' >&2",
        "exit 255",
        ""
      ].join("\n")
    )
    chmodSync(join(bin, "ssh"), 0o755)
    return { env: { PATH: `${bin}:${world.env.PATH}` }, log }
  }

  it("an invalid hosts file stops the server and doctor with exit 1 and the file, host and field named, before any ssh runs", async () => {
    const ssh = recordingSsh("invalid")
    const file = join(world.dir, "hosts-invalid.json")
    writeFileSync(file, JSON.stringify({ hosts: { build: { ssh: "-oProxyCommand=touch /tmp/etm-pwned" } } }))
    const notJson = join(world.dir, "hosts-not-json.json")
    writeFileSync(notJson, "{ hosts: build }")
    const runs = await Promise.all([
      runCli(world, [], { ...ssh.env, LIBTMUX_MCP_HOSTS: file }),
      runCli(world, ["doctor"], { ...ssh.env, LIBTMUX_MCP_HOSTS: file }),
      runCli(world, ["doctor", "--hosts", notJson], ssh.env),
      runCli(world, ["--hosts", join(world.dir, "missing.json")], ssh.env)
    ])
    for (const run of runs) {
      expect(run.status).toBe(1)
      expect(run.stdout).toBe("")
    }
    expect(runs[0]!.stderr).toContain(
      `LIBTMUX_MCP_HOSTS (${file}), host "build": "ssh" starts with '-', which ssh would read as an option.`
    )
    expect(runs[1]!.stderr).toBe(runs[0]!.stderr)
    expect(runs[2]!.stderr).toContain(`--hosts (${notJson}) is not JSON`)
    expect(runs[3]!.stderr).toContain(`--hosts names ${join(world.dir, "missing.json")}, which cannot be read`)
    expect(existsSync(ssh.log)).toBe(false)
  })

  it("doctor with a host it cannot reach warns and still exits 0: tmux works here", async () => {
    const ssh = recordingSsh("unreachable")
    const file = join(world.dir, "hosts-unreachable.json")
    writeFileSync(file, JSON.stringify({ hosts: { build: { ssh: "build-box", connect_timeout_s: 1 } } }))
    const run = await runCli(world, ["doctor"], { ...ssh.env, LIBTMUX_MCP_HOSTS: file })
    expect(run.status).toBe(0)
    expect(run.stdout).toMatch(new RegExp(`^hosts:\\s+1 in ${file}$`, "m"))
    expect(run.stdout).toMatch(/^ssh:\s+ssh \(OpenSSH_9\.9p1, fake\)$/m)
    expect(run.stdout).toMatch(
      /^host build:\s+WARNING unreachable: ssh build-box: ssh could not connect: .*Connection refused\. Nothing answers ssh there/m
    )
    // Every ssh had its options first and the destination after --.
    const calls = readFileSync(ssh.log, "utf8").trim().split("\n")
    expect(calls[0]).toBe("-V")
    expect(calls.slice(1).length).toBeGreaterThan(0)
    for (const call of calls.slice(1)) expect(call).toMatch(/^-o BatchMode=yes .* -- build-box$/)
  })

  it("an unknown flag or argument exits 2 with a message on stderr", async () => {
    const [flag, extra, missing] = await Promise.all([
      runCli(world, ["--bogus"]),
      runCli(world, ["doctor", "extra"]),
      runCli(world, ["--safety"])
    ])
    expect(flag!.status).toBe(2)
    expect(flag!.stderr).toContain("Unknown option --bogus")
    expect(flag!.stdout).toBe("")
    expect(extra!.status).toBe(2)
    expect(extra!.stderr).toContain("Unexpected argument")
    expect(missing!.status).toBe(2)
    expect(missing!.stderr).toContain("--safety needs a value")
  })
})
