/**
 * The fixed remote scripts (tmux/internal/RemoteScripts.ts) and what is read of their answers:
 * discovery run by a real /bin/sh in a directory standing in for the host (sockets made there by
 * listening on them) and parsed back, and every answer that is refused or cut down: a login shell
 * that printed first, no uid, a socket directory ssh could not forward, socket names that are not
 * names, an unusable run directory.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { DISCOVERY, parseDiscovery, parseSockets, SOCKETS, TMUX_START } from "../../src/tmux/internal/RemoteScripts.js"
import { remoteCommand } from "../../src/tmux/internal/SshArgv.js"

const MARK = "effect-tmux-mcp discovery 1"
const uid = process.getuid?.() ?? 0

const answer = (...lines: Array<string>) => `${[MARK, ...lines].join("\n")}\n`

describe("parseDiscovery", () => {
  it("reads uid, HOME, the socket directory, the run directory and the socket names", () => {
    expect(parseDiscovery(answer("1001", "/home/ops", "/tmp/tmux-1001", "/tmp/effect-tmux-mcp-1001", "s default", "s ci"))).toEqual({
      uid: 1001,
      home: "/home/ops",
      socketDirectory: "/tmp/tmux-1001",
      runDirectory: "/tmp/effect-tmux-mcp-1001",
      sockets: ["default", "ci"]
    })
  })

  it("refuses an answer that is not the script's: a login shell that printed something first", () => {
    expect(parseDiscovery(`Welcome to build-box!\n${answer("0", "/root", "/tmp/tmux-0", "")}`)).toBe(
      "the host's shell did not run the discovery script (its login shell printed something else first?)"
    )
    expect(parseDiscovery("")).toMatch(/did not run the discovery script/)
  })

  it("refuses an answer without the login user's id", () => {
    for (const uidLine of ["", "x", "-1", "1.5"]) {
      expect(parseDiscovery(answer(uidLine, "/root", "/tmp/tmux-0", ""))).toBe("the host did not say the login user's id")
    }
    expect(parseDiscovery(`${MARK}\n`)).toBe("the host did not say the login user's id")
  })

  it("refuses a socket directory ssh could not forward from or tmux could not be told", () => {
    for (const directory of ["", "tmp/tmux-0", "/tmp/a b/tmux-0", "/tmp/a:b/tmux-0", "/tmp/\u00e9/tmux-0", "/tmp/a\tb"]) {
      expect(parseDiscovery(answer("0", "/root", directory, ""))).toMatch(
        /^the host's tmux socket directory is not a path this server can use: /
      )
    }
  })

  it("has no run directory when the host could not make a usable one", () => {
    for (const run of ["", "relative", "/a b", "/a:b"]) {
      expect(parseDiscovery(answer("0", "/root", "/tmp/tmux-0", run))).toMatchObject({ runDirectory: null })
    }
  })

  it("takes / for a HOME that is not absolute", () => {
    expect(parseDiscovery(answer("0", "", "/tmp/tmux-0", ""))).toMatchObject({ home: "/" })
    expect(parseDiscovery(answer("0", "~", "/tmp/tmux-0", ""))).toMatchObject({ home: "/" })
  })

  it("keeps only socket lines whose name is a socket name", () => {
    const parsed = parseDiscovery(
      answer("0", "/root", "/tmp/tmux-0", "", "s ok", "s -L", "s a b", "s ../x", "s .hidden", "x notasocket", "s ", "s ok-2")
    )
    expect(parsed).toMatchObject({ sockets: ["ok", "ok-2"] })
  })
})

describe("parseSockets", () => {
  it("reads the listing's socket names, and refuses an answer that is not the script's", () => {
    expect(parseSockets(answer("s default", "s ci", "s a/b"))).toEqual(["default", "ci"])
    expect(parseSockets(answer())).toEqual([])
    expect(parseSockets("motd\n")).toBe("the host's shell did not run the listing script")
  })
})

describe("the scripts, run by /bin/sh", () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "etm-remote-scripts-")))
  const servers: Array<Server> = []
  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))))
    rmSync(base, { recursive: true, force: true })
  })

  const listenOn = (path: string) =>
    new Promise<void>((resolve, reject) => {
      const server = createServer()
      servers.push(server)
      server.once("error", reject)
      server.listen(path, () => resolve())
    })

  /** Runs `script` as the master's exec would: the remote command string through a shell's -c. */
  const run = (script: string, env: Record<string, string>) =>
    spawnSync("/bin/sh", ["-c", remoteCommand(script, [])], { encoding: "utf8", env: { PATH: "/usr/bin:/bin", ...env } })

  it("discovery finds the sockets through a symlinked TMUX_TMPDIR and makes a private run directory", async () => {
    const real = join(base, "real")
    mkdirSync(real)
    symlinkSync(real, join(base, "link"))
    const socketDirectory = join(real, `tmux-${uid}`)
    mkdirSync(socketDirectory, { mode: 0o700 })
    await listenOn(join(socketDirectory, "default"))
    await listenOn(join(socketDirectory, "ci"))
    // Not sockets, or not names: left out.
    writeFileSync(join(socketDirectory, "plain-file"), "")
    mkdirSync(join(socketDirectory, "a-directory"))
    await listenOn(join(socketDirectory, "bad name"))

    const result = run(DISCOVERY, { HOME: "/home/somebody", TMUX_TMPDIR: join(base, "link") })
    expect(result.stderr).toBe("")
    expect(result.status).toBe(0)
    const parsed = parseDiscovery(result.stdout)
    if (typeof parsed === "string") throw new Error(parsed)
    expect({ ...parsed, sockets: [...parsed.sockets].sort() }).toEqual({
      uid,
      home: "/home/somebody",
      // tmux resolves TMUX_TMPDIR through realpath: so does discovery.
      socketDirectory,
      runDirectory: join(real, `effect-tmux-mcp-${uid}`),
      sockets: ["ci", "default"]
    })
    expect(statSync(parsed.runDirectory!).mode & 0o777).toBe(0o700)

    const listed = run(SOCKETS, { HOME: "/home/somebody", TMUX_TMPDIR: join(base, "link") })
    expect(listed.status).toBe(0)
    expect([...(parseSockets(listed.stdout) as ReadonlyArray<string>)].sort()).toEqual(["ci", "default"])
  })

  it("discovery tightens a run directory left open to 0700, and refuses one that is a symlink", () => {
    const tmp = join(base, "open")
    mkdirSync(tmp)
    const runDirectory = join(tmp, `effect-tmux-mcp-${uid}`)
    mkdirSync(runDirectory)
    chmodSync(runDirectory, 0o777)
    const opened = parseDiscovery(run(DISCOVERY, { HOME: "/h", TMUX_TMPDIR: tmp }).stdout)
    expect(opened).toMatchObject({ runDirectory, sockets: [] })
    expect(statSync(runDirectory).mode & 0o777).toBe(0o700)

    const linked = join(base, "linked")
    mkdirSync(linked)
    mkdirSync(join(base, "elsewhere"))
    symlinkSync(join(base, "elsewhere"), join(linked, `effect-tmux-mcp-${uid}`))
    expect(parseDiscovery(run(DISCOVERY, { HOME: "/h", TMUX_TMPDIR: linked }).stdout)).toMatchObject({ runDirectory: null })
  })

  it("discovery and the listing succeed on an empty socket directory (the unexpanded glob is no socket)", () => {
    const tmp = join(base, "empty")
    mkdirSync(join(tmp, `tmux-${uid}`), { recursive: true })
    for (const script of [DISCOVERY, SOCKETS]) {
      const result = run(script, { HOME: "/h", TMUX_TMPDIR: tmp })
      expect({ status: result.status, stderr: result.stderr }).toEqual({ status: 0, stderr: "" })
    }
    expect(parseSockets(run(SOCKETS, { HOME: "/h", TMUX_TMPDIR: tmp }).stdout)).toEqual([])
  })

  it("discovery falls back to /tmp for a TMUX_TMPDIR that does not exist, as tmux does", () => {
    const parsed = parseDiscovery(run(DISCOVERY, { HOME: "/h", TMUX_TMPDIR: join(base, "missing") }).stdout)
    expect(parsed).toMatchObject({ socketDirectory: `${realpathSync("/tmp")}/tmux-${uid}` })
  })
})

describe("the scripts, whatever the login shell that sshd hands them to", () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "etm-login-shells-")))
  afterAll(() => rmSync(base, { recursive: true, force: true }))
  // A HOME with what shells and tmux formats read specially.
  const home = join(base, `home dir 'q" #{h} %u $x ~`)
  mkdirSync(home)
  const tmp = join(base, "tmp")
  mkdirSync(join(tmp, `tmux-${uid}`), { recursive: true })
  // A `tmux` that says where it ran and what it was given, one argument a line (NUL-separated in the file).
  const bin = join(base, "bin")
  mkdirSync(bin)
  writeFileSync(join(bin, "tmux"), `#!/bin/sh\npwd > "${base}/ran-in"\nprintf '%s\\0' "$@" > "${base}/argv"\n`)
  chmodSync(join(bin, "tmux"), 0o755)
  const env = { PATH: `${bin}:/usr/bin:/bin`, HOME: home, TMUX_TMPDIR: tmp, LANG: "C.UTF-8" }
  // .ci/run installs tcsh and fish (csh is tcsh on Debian); sh is dash.
  const shells = ["/bin/sh", "/usr/bin/bash", "/usr/bin/tcsh", "/bin/csh", "/usr/bin/fish"].filter((shell) => existsSync(shell))

  for (const shell of shells) {
    it(`${shell}: discovery, the listing and a server start run as under /bin/sh`, () => {
      const run = (script: string, args: ReadonlyArray<string> = []) =>
        spawnSync(shell, ["-c", remoteCommand(script, args)], { cwd: base, encoding: "utf8", env })
      const discovered = run(DISCOVERY)
      expect({ status: discovered.status, stderr: discovered.stderr }).toEqual({ status: 0, stderr: "" })
      expect(parseDiscovery(discovered.stdout)).toMatchObject({ uid, home, socketDirectory: join(tmp, `tmux-${uid}`) })
      const listed = run(SOCKETS)
      expect({ status: listed.status, stderr: listed.stderr }).toEqual({ status: 0, stderr: "" })
      expect(parseSockets(listed.stdout)).toEqual([])
      // A command list with what a caller may put in names, environments and argvs.
      const list = ["new-session", "-d", "-e", "NOTE=line one\nline two! \\ 'q' \"d\" $x %u #{h} \u00e9", ";", "set-option", "@x", "a\\"]
      const socket = join(tmp, `tmux-${uid}`, "started")
      rmSync(join(base, "argv"), { force: true })
      const started = run(TMUX_START, [socket, ...list])
      expect({ status: started.status, stderr: started.stderr }).toEqual({ status: 0, stderr: "" })
      expect(readFileSync(join(base, "argv"), "utf8").split("\0").slice(0, -1)).toEqual(["-u", "-S", socket, ...list])
      expect(readFileSync(join(base, "ran-in"), "utf8")).toBe(`${home}\n`)
    })
  }
})
