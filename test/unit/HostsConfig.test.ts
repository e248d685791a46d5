/**
 * The hosts file (LIBTMUX_MCP_HOSTS / --hosts): what it accepts, and every refusal, each naming the
 * file, the host and the field. A destination reaches ssh after `--` (SshArgv.test.ts), but only
 * once it passed these checks: no option, no `%`, no shell text, an alias or a plain user@host.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Result from "effect/Result"
import {
  DEFAULT_CONNECT_TIMEOUT_S,
  destinationProblem,
  type HostsConfig,
  loadHostsFile,
  parseHostsFile
} from "../../src/context/HostsConfig.js"
import { loadConfig } from "../../src/context/TmuxMcpConfig.js"

const FILE = "/etc/etm/hosts.json"
const SOURCE = "LIBTMUX_MCP_HOSTS"

const parse = (value: unknown) => parseHostsFile(typeof value === "string" ? value : JSON.stringify(value), FILE, SOURCE)
const ok = (value: unknown): HostsConfig => {
  const parsed = parse(value)
  if (Result.isFailure(parsed)) throw new Error(`expected a hosts file, got: ${parsed.failure}`)
  return parsed.success
}
const refusal = (value: unknown): string => {
  const parsed = parse(value)
  if (Result.isSuccess(parsed)) throw new Error(`expected a refusal of ${JSON.stringify(value)}`)
  return parsed.failure
}
/** A file with one host `h` whose entry is `entry`. */
const oneHost = (entry: Record<string, unknown>) => ({ hosts: { h: entry } })

describe("a valid hosts file", () => {
  it("gives each host its defaults: any socket, no server start, the server's safety, 5 s to connect", () => {
    expect(ok({ hosts: { build: { ssh: "build-box" } } })).toEqual({
      file: FILE,
      sshConfig: undefined,
      hosts: [{
        name: "build",
        destination: "build-box",
        sockets: undefined,
        allowServerStart: false,
        safety: undefined,
        connectTimeoutS: DEFAULT_CONNECT_TIMEOUT_S
      }],
      environment: {}
    })
    expect(DEFAULT_CONNECT_TIMEOUT_S).toBe(5)
  })

  it("keeps the file's order and every field, sockets without repeats", () => {
    const config = ok({
      ssh_config: "/home/me/.ssh/config-tmux",
      hosts: {
        gpu1: {
          ssh: "ops@gpu1.example.net",
          sockets: ["default", "ci", "default"],
          allow_server_start: true,
          safety: "readonly",
          connect_timeout_s: 60
        },
        a: { ssh: "a", connect_timeout_s: 1 }
      }
    })
    expect(config.sshConfig).toBe("/home/me/.ssh/config-tmux")
    expect(config.hosts.map((host) => host.name)).toEqual(["gpu1", "a"])
    expect(config.hosts[0]).toEqual({
      name: "gpu1",
      destination: "ops@gpu1.example.net",
      sockets: ["default", "ci"],
      allowServerStart: true,
      safety: "readonly",
      connectTimeoutS: 60
    })
    expect(config.hosts[1]!.connectTimeoutS).toBe(1)
  })

  it("resolves a relative ssh_config against the hosts file's directory", () => {
    expect(ok({ ssh_config: "ssh/config", hosts: { h: { ssh: "x" } } }).sshConfig).toBe("/etc/etm/ssh/config")
  })

  it("expands ~ in ssh_config to the HOME it is given, as the module's example shows (~/.ssh/config-tmux)", () => {
    const withHome = (sshConfig: string, home: string | undefined) =>
      parseHostsFile(JSON.stringify({ ssh_config: sshConfig, hosts: { h: { ssh: "x" } } }), FILE, SOURCE, home)
    expect(withHome("~/.ssh/config-tmux", "/home/me")).toEqual(
      Result.succeed(expect.objectContaining({ sshConfig: "/home/me/.ssh/config-tmux" }))
    )
    expect(withHome("~", "/home/me")).toEqual(Result.succeed(expect.objectContaining({ sshConfig: "/home/me" })))
    // What ssh would expand in other places is a file name in -F: passed as it is.
    expect(withHome("~/odd %d ${HOME} ~x/config", "/home/a b")).toEqual(
      Result.succeed(expect.objectContaining({ sshConfig: "/home/a b/odd %d ${HOME} ~x/config" }))
    )
    expect(withHome("~/.ssh/config-tmux", undefined)).toEqual(
      Result.fail(`${SOURCE} (${FILE}): "ssh_config" starts with ~, but HOME is not set.`)
    )
    expect(withHome("~/.ssh/config-tmux", "relative")).toEqual(
      Result.fail(`${SOURCE} (${FILE}): "ssh_config" starts with ~, but HOME is not set.`)
    )
    expect(withHome("~other/.ssh/config", "/home/me")).toEqual(
      Result.fail(`${SOURCE} (${FILE}): "ssh_config" may start with ~/ (this user's HOME) only, not with another user's ~name.`)
    )
  })

  it("takes a file that starts with a UTF-8 byte order mark", () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ hosts: { build: { ssh: "build-box" } } }))])
    const loaded = loadHostsFile(FILE, SOURCE, () => bytes)
    expect(Result.isSuccess(loaded) && loaded.success.hosts.map((host) => host.name)).toEqual(["build"])
  })

  it("takes an alias, user@host with a DNS name, an IPv4 or an IPv6 address", () => {
    for (
      const destination of ["build-box", "Build_Box.2", "a", "ops@gpu1.example.net", "_ci@10.0.0.7", "me@::1", "me@fe80::1:2", "u.x-y@h"]
    ) {
      expect({ destination, problem: destinationProblem(destination) }).toEqual({ destination, problem: undefined })
    }
  })
})

describe("destinations the hosts file refuses", () => {
  const refused: ReadonlyArray<readonly [string, RegExp]> = [
    ["", /is empty/],
    // ssh reads a leading '-' as an option: -oProxyCommand=… runs a command.
    ["-oProxyCommand=touch /tmp/pwned", /starts with '-'/],
    ["-p", /starts with '-'/],
    ["-Fevil", /starts with '-'/],
    // '%' is expanded in ProxyCommand; whitespace would split an argument.
    ["build%h", /whitespace, '%' or shell characters/],
    ["me@%h", /whitespace, '%' or shell characters/],
    ["build box", /whitespace, '%' or shell characters/],
    ["build\tbox", /whitespace, '%' or shell characters/],
    ["build\nbox", /whitespace, '%' or shell characters/],
    [" build", /whitespace, '%' or shell characters/],
    ["a$(touch x)", /whitespace, '%' or shell characters/],
    ["a`id`@h", /whitespace, '%' or shell characters/],
    ["a;b", /whitespace, '%' or shell characters/],
    ["a|b", /whitespace, '%' or shell characters/],
    ["a'b", /whitespace, '%' or shell characters/],
    ["h\u00e9", /whitespace, '%' or shell characters/],
    ["h\u0000", /whitespace, '%' or shell characters/],
    // Not an alias: too long, a bad first character, a slash.
    ["a".repeat(64), /is not an ssh_config alias/],
    [".hidden", /is not an ssh_config alias/],
    ["_x", /is not an ssh_config alias/],
    ["dir/host", /is not an ssh_config alias/],
    ["host:22", /is not an ssh_config alias/],
    // user@host with a user that is not a plain login name.
    ["@host", /user part/],
    ["Root@host", /user part/],
    ["9lives@host", /user part/],
    ["a@b@host", /user part/],
    [`${"u".repeat(33)}@host`, /user part/],
    // …or a host part that is neither a DNS name nor an address.
    ["me@", /host part/],
    ["me@-host", /host part/],
    ["me@host-", /host part/],
    ["me@host..example", /host part/],
    ["me@[::1]", /host part/],
    ["me@host/x", /host part/],
    ["me@host_name", /host part/],
    [`me@${"a".repeat(64)}.example`, /host part/]
  ]
  for (const [destination, why] of refused) {
    it(`refuses ${JSON.stringify(destination)}`, () => {
      expect(destinationProblem(destination)).toMatch(why)
      // In a file, the refusal names the file, the host and the field.
      const message = refusal(oneHost({ ssh: destination }))
      expect(message.startsWith(`${SOURCE} (${FILE}), host "h": "ssh" `)).toBe(true)
      expect(message).toMatch(why)
    })
  }

  it("refuses a destination that is not a string", () => {
    expect(refusal(oneHost({ ssh: 22 }))).toBe(`${SOURCE} (${FILE}), host "h": "ssh" must be an ssh_config alias or user@host.`)
    expect(refusal(oneHost({}))).toBe(`${SOURCE} (${FILE}), host "h": "ssh" must be an ssh_config alias or user@host.`)
  })
})

describe("hosts files the server refuses to start with", () => {
  it("refuses what is not JSON, or not an object with hosts", () => {
    expect(refusal("{ hosts: ")).toMatch(/^LIBTMUX_MCP_HOSTS \(\/etc\/etm\/hosts\.json\) is not JSON: /)
    expect(refusal("")).toMatch(/is not JSON/)
    expect(refusal([])).toBe(`${SOURCE} (${FILE}) must hold a JSON object with a "hosts" object.`)
    expect(refusal("null")).toBe(`${SOURCE} (${FILE}) must hold a JSON object with a "hosts" object.`)
    expect(refusal({})).toMatch(/must have a "hosts" object/)
    expect(refusal({ hosts: [] })).toMatch(/must have a "hosts" object/)
    expect(refusal({ hosts: {} })).toBe(`${SOURCE} (${FILE}) names no hosts; remove the setting or add a host.`)
  })

  it("refuses unknown fields, at the top and in a host, naming them and what it takes", () => {
    expect(refusal({ hosts: { h: { ssh: "x" } }, ssh_options: ["-v"] })).toBe(
      `${SOURCE} (${FILE}) has unknown fields "ssh_options"; it takes "hosts" and "ssh_config".`
    )
    expect(refusal(oneHost({ ssh: "x", tmux: "/usr/bin/tmux", ProxyCommand: "nc %h %p" }))).toBe(
      `${SOURCE} (${FILE}), host "h" has unknown fields "tmux", "ProxyCommand"; it takes ssh, sockets, allow_server_start, safety, connect_timeout_s.`
    )
  })

  it("reserves local for this machine, and takes host names of the socket-name shape only", () => {
    for (const name of ["local", "Local", "LOCAL", "lOcAl"]) {
      expect(refusal({ hosts: { [name]: { ssh: "x" } } })).toBe(
        `${SOURCE} (${FILE}), host ${JSON.stringify(name)}: "local" is reserved for this machine (in any case); give the host another name.`
      )
    }
    for (const name of ["", "-x", ".x", "a/b", "a b", "a:b", "h\u00e9", "x".repeat(64)]) {
      expect(refusal({ hosts: { [name]: { ssh: "x" } } })).toBe(
        `${SOURCE} (${FILE}): host name ${
          JSON.stringify(name)
        } must be letters, digits, '.', '_', '-' (63 at most, starting with a letter or digit).`
      )
    }
    expect(refusal({ hosts: { h: "build-box" } })).toBe(`${SOURCE} (${FILE}), host "h" must be an object with "ssh".`)
  })

  it("refuses sockets that are not a non-empty list of socket names", () => {
    for (const sockets of ["default", [], [1], [null], {}]) {
      expect(refusal(oneHost({ ssh: "x", sockets }))).toBe(
        `${SOURCE} (${FILE}), host "h": "sockets" must be a non-empty list of remote socket names.`
      )
    }
    for (const socket of ["", "a/b", "../x", "-L", "a b", ".x", "x".repeat(64)]) {
      expect(refusal(oneHost({ ssh: "x", sockets: ["ok", socket] }))).toBe(
        `${SOURCE} (${FILE}), host "h": socket ${
          JSON.stringify(socket)
        } must be a socket name: letters, digits, '.', '_', '-', 63 at most, no '/'.`
      )
    }
  })

  it("refuses allow_server_start and safety of the wrong kind", () => {
    for (const value of ["yes", 1, null]) {
      expect(refusal(oneHost({ ssh: "x", allow_server_start: value }))).toBe(
        `${SOURCE} (${FILE}), host "h": "allow_server_start" must be true or false.`
      )
    }
    for (const value of ["all", "Readonly", 1, null]) {
      expect(refusal(oneHost({ ssh: "x", safety: value }))).toBe(
        `${SOURCE} (${FILE}), host "h": "safety" must be one of readonly, mutating, destructive.`
      )
    }
  })

  it("refuses a connect timeout that is not a whole number of seconds in 1..60", () => {
    for (const value of [0, 61, -5, 1.5, "5", null, Number.MAX_SAFE_INTEGER]) {
      expect(refusal(oneHost({ ssh: "x", connect_timeout_s: value }))).toBe(
        `${SOURCE} (${FILE}), host "h": "connect_timeout_s" must be a whole number of seconds, 1..60.`
      )
    }
  })

  it("never quotes a byte order mark or a control character of the file raw", () => {
    for (
      const text of [
        "\uFEFF\uFEFF{}",
        "\uFEFF{ hosts: ",
        "{\"hosts\": \u001b]52;c;eA==\u0007}",
        JSON.stringify({ hosts: { "\uFEFFbuild": { ssh: "x" } } }),
        JSON.stringify({ hosts: { "b\u009b": { ssh: "x" } } }),
        JSON.stringify({ hosts: { h: { ssh: "x", "\uFEFFsafety": "readonly" } } }),
        JSON.stringify({ hosts: { h: { ssh: "x", sockets: ["\u001b[2J"] } } }),
        JSON.stringify({ "\u001b]0;x\u0007": 1, hosts: { h: { ssh: "x" } } })
      ]
    ) {
      const message = refusal(text)
      // eslint-disable-next-line no-control-regex
      expect(message, JSON.stringify(text)).not.toMatch(/[\uFEFF\x00-\x1f\x7f-\x9f]/)
    }
    expect(refusal("\uFEFF\uFEFF{}")).toContain("\\ufeff")
  })

  it("refuses an ssh_config that is not a path", () => {
    for (const value of ["", 1, null, "a\u0000b"]) {
      expect(refusal({ ssh_config: value, hosts: { h: { ssh: "x" } } })).toBe(
        `${SOURCE} (${FILE}): "ssh_config" must be a path to an ssh_config file.`
      )
    }
  })
})

describe("reading the hosts file", () => {
  it("says which setting names a file that cannot be read, and why", () => {
    const unreadable = loadHostsFile("/nowhere/hosts.json", "--hosts", () => {
      throw Object.assign(new Error("ENOENT: no such file or directory, open '/nowhere/hosts.json'"), { code: "ENOENT" })
    })
    expect(unreadable).toEqual(
      Result.fail("--hosts names /nowhere/hosts.json, which cannot be read: ENOENT: no such file or directory, open '/nowhere/hosts.json'")
    )
  })

  it("refuses a file over 1 MiB without parsing it", () => {
    const big = loadHostsFile(FILE, SOURCE, () => Buffer.alloc(1024 * 1024 + 1, 0x20))
    expect(big).toEqual(Result.fail(`${SOURCE} names ${FILE}, which is over 1 MiB: not a hosts file.`))
  })

  it("stops loadConfig with the message, before anything is built", () => {
    const read = (text: string) => () => Buffer.from(text)
    const loaded = loadConfig({
      env: { LIBTMUX_MCP_HOSTS: FILE },
      flags: {},
      uid: 1000,
      readFile: read(`{"hosts":{"h":{"ssh":"-oProxyCommand=x"}}}`)
    })
    expect(Result.isFailure(loaded) && loaded.failure.message).toBe(
      `${SOURCE} (${FILE}), host "h": "ssh" starts with '-', which ssh would read as an option.`
    )
    // The flag wins over the variable and names itself.
    const flagged = loadConfig({ env: { LIBTMUX_MCP_HOSTS: "/other" }, flags: { hosts: FILE }, uid: 1000, readFile: read("[") })
    expect(Result.isFailure(flagged) && flagged.failure.message).toMatch(/^--hosts \(\/etc\/etm\/hosts\.json\) is not JSON/)
  })

  it("without the setting there are no hosts; with it, ssh gets the agent's socket and nothing else of the environment", () => {
    const none = loadConfig({ env: { SSH_AUTH_SOCK: "/run/agent" }, flags: {}, uid: 1000, readFile: () => Buffer.from("{}") })
    expect(Result.isSuccess(none) && none.success.hosts).toBe(undefined)
    const file = Buffer.from(`{"hosts":{"h":{"ssh":"x"}}}`)
    const withAgent = loadConfig({
      env: { LIBTMUX_MCP_HOSTS: FILE, SSH_AUTH_SOCK: "/run/agent", SECRET: "s" },
      flags: {},
      uid: 1000,
      readFile: () => file
    })
    expect(Result.isSuccess(withAgent) && withAgent.success.hosts?.environment).toEqual({ SSH_AUTH_SOCK: "/run/agent" })
    const withoutAgent = loadConfig({ env: { LIBTMUX_MCP_HOSTS: FILE }, flags: {}, uid: 1000, readFile: () => file })
    expect(Result.isSuccess(withoutAgent) && withoutAgent.success.hosts?.environment).toEqual({})
  })
})
