/**
 * Every ssh this server runs (tmux/internal/SshArgv.ts): the forced options on every argv, `--`
 * always right before the destination (nothing after it but the remote command), and the remote
 * command quoted so that a POSIX shell hands the fixed script its arguments untouched: proven by
 * running the string through real shells, as sshd does with the login shell (`<shell> -c <string>`).
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import type { HostsConfig, HostSettings } from "../../src/context/HostsConfig.js"
import {
  cancelForwardArgv,
  exitMasterArgv,
  forcedOptions,
  forwardArgv,
  masterArgv,
  openSshVersion,
  posixQuote,
  remoteCommand,
  remoteExecArgv
} from "../../src/tmux/internal/SshArgv.js"

const host: HostSettings = {
  name: "build",
  destination: "ops@build.example.net",
  sockets: undefined,
  allowServerStart: false,
  safety: undefined,
  connectTimeoutS: 7
}
const withConfig: HostsConfig = { file: "/etc/etm/hosts.json", sshConfig: "/etc/etm/ssh_config", hosts: [host], environment: {} }
const withoutConfig: HostsConfig = { ...withConfig, sshConfig: undefined }
const CONTROL = "/tmp/effect-tmux-mcp-0/ssh/m123-abcdef012345"

/** The options of an argv given as `-o NAME=VALUE`, by name. */
const options = (argv: ReadonlyArray<string>): Map<string, string> => {
  const found = new Map<string, string>()
  argv.forEach((word, index) => {
    if (word !== "-o") return
    const option = argv[index + 1]!
    const equals = option.indexOf("=")
    found.set(option.slice(0, equals), option.slice(equals + 1))
  })
  return found
}

const FORCED: Record<string, string> = {
  BatchMode: "yes",
  StrictHostKeyChecking: "yes",
  ConnectTimeout: "7",
  ServerAliveInterval: "5",
  ServerAliveCountMax: "2",
  ExitOnForwardFailure: "yes",
  StreamLocalBindUnlink: "yes",
  StreamLocalBindMask: "0177",
  ForwardAgent: "no",
  ForwardX11: "no",
  PermitLocalCommand: "no",
  RequestTTY: "no",
  ControlPersist: "no",
  ControlPath: CONTROL
}

const every = (config: HostsConfig) => ({
  master: masterArgv(config, host, CONTROL),
  forward: forwardArgv(config, host, CONTROL, "/tmp/effect-tmux-mcp-0/ssh/f123-0123456789ab", "/tmp/tmux-1001/default"),
  cancel: cancelForwardArgv(config, host, CONTROL, "/tmp/effect-tmux-mcp-0/ssh/f123-0123456789ab", "/tmp/tmux-1001/default"),
  exec: remoteExecArgv(config, host, CONTROL, "printf '%s\\n' \"$@\"", ["a b", "$(id)"])
})

describe("ssh argv", () => {
  for (const [label, config] of [["with ssh_config", withConfig], ["without ssh_config", withoutConfig]] as const) {
    for (const [kind, argv] of Object.entries(every(config))) {
      it(`${kind} (${label}): every forced option, and the destination right after --`, () => {
        const given = options(argv)
        for (const [name, value] of Object.entries(FORCED)) expect({ name, value: given.get(name) }).toEqual({ name, value })
        const dashes = argv.indexOf("--")
        expect(dashes).toBeGreaterThan(0)
        expect(argv[dashes + 1]).toBe(host.destination)
        // `--` once; after the destination only the remote command of an exec.
        expect(argv.filter((word) => word === "--")).toHaveLength(1)
        expect(argv.length - dashes - 2).toBe(kind === "exec" ? 1 : 0)
        // Nothing before `--` comes from anywhere but the fixed options and this server's paths.
        expect(argv.slice(0, dashes)).not.toContain(host.destination)
        // The user's ssh_config only when the hosts file names one, and first.
        if (config.sshConfig === undefined) expect(argv).not.toContain("-F")
        else expect(argv.slice(0, 2)).toEqual(["-F", "/etc/etm/ssh_config"])
      })
    }
  }

  it("the master: ControlMaster=yes without -M, ClearAllForwardings, -N, no command", () => {
    const argv = masterArgv(withConfig, host, CONTROL)
    const given = options(argv)
    expect(given.get("ControlMaster")).toBe("yes")
    expect(given.get("ClearAllForwardings")).toBe("yes")
    expect(argv).toContain("-N")
    // -M on top of ControlMaster=yes reads as "ask", which BatchMode turns into refusing every forward.
    expect(argv).not.toContain("-M")
    expect(argv.at(-1)).toBe(host.destination)
  })

  it("a forward, its cancel and an exec go through the master (ControlMaster=no), never forward what the user's config says", () => {
    const { cancel, exec, forward } = every(withConfig)
    for (const [argv, operation] of [[forward, "forward"], [cancel, "cancel"]] as const) {
      expect(options(argv).get("ControlMaster")).toBe("no")
      const at = argv.indexOf("-O")
      expect(argv.slice(at, at + 4)).toEqual([
        "-O",
        operation,
        "-L",
        "/tmp/effect-tmux-mcp-0/ssh/f123-0123456789ab:/tmp/tmux-1001/default"
      ])
      expect(at).toBeLessThan(argv.indexOf("--"))
      // Only the master may clear forwardings: on a forward request it would clear the -L itself.
      expect(options(argv).has("ClearAllForwardings")).toBe(false)
    }
    expect(options(exec).get("ControlMaster")).toBe("no")
    expect(exec).toContain("-T")
    expect(exec.indexOf("-T")).toBeLessThan(exec.indexOf("--"))
  })

  it("the sweep's exit: no ssh_config read at all, the leftover control socket, -O exit, a fixed destination after --", () => {
    const argv = exitMasterArgv(CONTROL)
    expect(argv.slice(0, 2)).toEqual(["-F", "/dev/null"])
    expect(options(argv)).toEqual(new Map([["BatchMode", "yes"], ["ControlPath", CONTROL]]))
    const at = argv.indexOf("-O")
    expect(argv.slice(at, at + 2)).toEqual(["-O", "exit"])
    expect(argv.slice(-2)).toEqual(["--", "effect-tmux-mcp-sweep"])
  })

  it("the forced options are the same for every host but the connect timeout", () => {
    const other = forcedOptions({ ...host, connectTimeoutS: 60, destination: "x" })
    expect(options(other).get("ConnectTimeout")).toBe("60")
    expect([...options(other).keys()]).toEqual([...options(forcedOptions(host)).keys()])
  })
})

describe("the remote command", () => {
  const hostile = [
    "it's",
    "a'b'c",
    "'",
    "''",
    "; touch MARK",
    "&& touch MARK",
    "| touch MARK",
    "# comment",
    "a #b",
    "$(touch MARK)",
    "`touch MARK`",
    "${HOME}",
    "$HOME",
    "\\",
    "\\'",
    "\"double\"",
    "two  spaces",
    " lead",
    "trail ",
    "tab\there",
    "new\nline",
    "*",
    "?",
    "~",
    "~root",
    "!",
    "-n",
    "--",
    "",
    "\u00e9\u4e2d"
  ]
  const dir = mkdtempSync(join(tmpdir(), "etm-quote-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const mark = join(dir, "MARK")
  // What sshd does with the one string: the login user's shell runs it with -c, whichever it is
  // (.ci/run installs tcsh and fish; csh is tcsh on Debian).
  const shells = ["/bin/sh", "/usr/bin/bash", "/usr/bin/dash", "/usr/bin/tcsh", "/bin/csh", "/usr/bin/fish"].filter((shell) =>
    existsSync(shell)
  )

  for (const shell of shells) {
    it(`reaches the script through ${shell} -c with every argument intact and nothing run`, () => {
      const script = `for a in "$@"; do printf '[%s]\\n' "$a"; done; printf 'count %s\\n' "$#"`
      const result = spawnSync(shell, ["-c", remoteCommand(script, hostile)], {
        cwd: dir,
        encoding: "utf8",
        env: { PATH: "/usr/bin:/bin", HOME: dir }
      })
      expect(result.stderr).toBe("")
      expect(result.status).toBe(0)
      expect(result.stdout).toBe(`${hostile.map((arg) => `[${arg}]`).join("\n")}\ncount ${hostile.length}\n`)
      expect(existsSync(mark)).toBe(false)
    })
  }

  it("is one line of printable ASCII without `!`, a backslash only before a quote, an octal escape or the script's letter, and refuses a script that is not", () => {
    const command = remoteCommand("printf '%s\\n' \"$@\"", hostile)
    expect(command).toMatch(/^[\x20-\x7e]*$/)
    expect(command).not.toContain("!")
    expect(command.replaceAll("\\'", "").replace(/\\0[0-7]{3}|\\[A-Za-z]/g, "")).not.toContain("\\")
    for (const script of ["a\nb", "[ ! -L x ]", "printf '\\\\'", "echo \\'", "echo \u00e9"]) {
      expect(() => remoteCommand(script, []), JSON.stringify(script)).toThrow(/login shell/)
    }
  })

  it("is exec /bin/sh -c '<script>' sh <args>: the login shell does nothing else, the script is $0-free", () => {
    expect(remoteCommand("echo \"$1\"", ["x"])).toBe(`exec /bin/sh -c 'echo "$1"' sh 'x'`)
    expect(remoteCommand("s=$1; shift", [])).toBe(`exec /bin/sh -c 's=$1; shift' sh`)
    const result = spawnSync("/bin/sh", ["-c", remoteCommand("printf '%s|' \"$0\" \"$#\"", ["a"])], { encoding: "utf8" })
    expect(result.stdout).toBe("sh|1|")
  })

  it("quotes a word in single quotes, each quote closed, escaped and reopened", () => {
    expect(posixQuote("")).toBe("''")
    expect(posixQuote("plain")).toBe("'plain'")
    expect(posixQuote("it's")).toBe(`'it'\\''s'`)
    expect(posixQuote("$(x) `y` #z ;")).toBe("'$(x) `y` #z ;'")
  })
})

describe("openSshVersion", () => {
  it("reads OpenSSH's major and minor version from ssh -V", () => {
    expect(openSshVersion("OpenSSH_9.2p1 Debian-2+deb12u3, OpenSSL 3.0.15 3 Sep 2024")).toEqual([9, 2])
    expect(openSshVersion("OpenSSH_10.0p2, LibreSSL 3.3.6")).toEqual([10, 0])
    expect(openSshVersion("Dropbear v2022.83")).toBe(undefined)
    expect(openSshVersion("")).toBe(undefined)
  })
})
