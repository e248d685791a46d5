/**
 * The caller found through this process's ancestors (issue 31 item 1), over a fake /proc: what an
 * ancestor's environment says is untrusted, an ancestor of another uid is passed over unread, and
 * only a socket file of our own uid (not a symlink) is ever named.
 */
import { describe, expect, it } from "@effect/vitest"
import { MAX_ANCESTORS, MAX_ENVIRON_BYTES, type ProcReader, searchProcessTree } from "../../src/context/CallerProcessTree.js"

const UID = 1000
const SOCKET = "/tmp/tmux-1000/default"

interface FakeProcess {
  readonly ppid: number
  readonly uid?: number
  /** Raw environ bytes, or entries joined with NUL. */
  readonly environ?: string | Uint8Array
  readonly comm?: string
}

interface FakeFile {
  readonly socket?: boolean
  readonly symlink?: boolean
  readonly uid?: number
}

/** A /proc of `processes` and a file system of `files`; records whose environment was read. */
const fakeProc = (processes: Record<number, FakeProcess>, files: Record<string, FakeFile> = { [SOCKET]: {} }) => {
  const environsRead: Array<number> = []
  const reader: ProcReader = {
    stat: (pid) => {
      const p = processes[pid]
      return p === undefined ? undefined : `${pid} (${p.comm ?? "sh"}) S ${p.ppid} ${pid} ${pid} 0 -1 4194304`
    },
    status: (pid) => {
      const p = processes[pid]
      const uid = p?.uid ?? UID
      return p === undefined ? undefined : `Name:\tsh\nUmask:\t0022\nState:\tS\nUid:\t${uid}\t${uid}\t${uid}\t${uid}\nGid:\t1\t1\t1\t1\n`
    },
    environ: (pid, maxBytes) => {
      environsRead.push(pid)
      const raw = processes[pid]?.environ
      if (raw === undefined) return undefined
      const bytes = typeof raw === "string" ? Buffer.from(raw, "utf8") : raw
      // As a bounded read would: at most maxBytes + 1.
      return bytes.subarray(0, maxBytes + 1)
    },
    lstat: (path) => {
      const file = files[path]
      return file === undefined
        ? undefined
        : { socket: file.socket ?? file.symlink !== true, symlink: file.symlink ?? false, uid: file.uid ?? UID }
    }
  }
  return { reader, environsRead }
}

const env = (...entries: Array<string>) => entries.join("\0") + "\0"
const TMUX = `TMUX=${SOCKET},42,0`

const search = (processes: Record<number, FakeProcess>, files?: Record<string, FakeFile>, self = { pid: 100, ppid: 99 }) => {
  const fake = fakeProc(processes, files)
  return { ...searchProcessTree(self, UID, fake.reader), environsRead: fake.environsRead }
}

describe("searchProcessTree", () => {
  it("finds TMUX, TMUX_PANE and TMUX_TMPDIR in the nearest ancestor that has them, and lists the ancestors nearest first", () => {
    const result = search({
      99: { ppid: 98, environ: env("HOME=/h", "PATH=/bin") },
      98: { ppid: 97, environ: env("HOME=/h", TMUX, "TMUX_PANE=%7", "TMUX_TMPDIR=/tmp") },
      97: { ppid: 42, environ: env(`TMUX=${SOCKET},42,0`, "TMUX_PANE=%1") },
      42: { ppid: 1, comm: "tmux: server" }
    })
    expect(result.found).toEqual({
      pid: 98,
      tmux: { socketPath: SOCKET, serverPid: 42, sessionIndex: "0" },
      paneId: "%7",
      tmuxTmpdir: "/tmp"
    })
    expect(result.ancestors).toEqual([99, 98, 97, 42])
  })

  it("finds nothing without /proc or without TMUX in any ancestor", () => {
    expect(search({}).found).toBeUndefined()
    expect(search({ 99: { ppid: 1, environ: env("HOME=/h") } }).found).toBeUndefined()
  })

  it("passes over an ancestor of another uid without reading its environment, and never names its socket", () => {
    const result = search({
      99: { ppid: 98, uid: 0, environ: env(TMUX, "TMUX_PANE=%3") },
      98: { ppid: 1, environ: env("HOME=/h") }
    })
    expect(result.found).toBeUndefined()
    expect(result.environsRead).not.toContain(99)
    // The walk goes on above it (its parent is read), but it is no ancestor of ours for the pane check.
    expect(result.environsRead).toContain(98)
    expect(result.ancestors).toEqual([98])
  })

  it("an ancestor whose real uid is ours but whose effective uid is not is passed over too", () => {
    const fake = fakeProc({ 99: { ppid: 1, environ: env(TMUX) } })
    const reader: ProcReader = { ...fake.reader, status: () => `Uid:\t${UID}\t0\t0\t0\n` }
    expect(searchProcessTree({ pid: 100, ppid: 99 }, UID, reader).found).toBeUndefined()
  })

  it("a socket of another uid is never named, nor a symlink, nor a file that is not a socket, nor a missing one", () => {
    const files: Array<Record<string, FakeFile>> = [
      { [SOCKET]: { uid: 0 } },
      { [SOCKET]: { symlink: true, socket: false } },
      { [SOCKET]: { socket: false } },
      {}
    ]
    for (const f of files) {
      expect(search({ 99: { ppid: 1, environ: env(TMUX, "TMUX_PANE=%1") } }, f).found).toBeUndefined()
    }
  })

  it("goes on to a farther ancestor when the nearer one's socket is not ours", () => {
    const other = "/tmp/tmux-0/default"
    const result = search(
      {
        99: { ppid: 98, environ: env(`TMUX=${other},7,0`, "TMUX_PANE=%9") },
        98: { ppid: 1, environ: env(TMUX, "TMUX_PANE=%2") }
      },
      { [other]: { uid: 0 }, [SOCKET]: {} }
    )
    expect(result.found).toMatchObject({ pid: 98, paneId: "%2", tmux: { socketPath: SOCKET } })
  })

  it("hostile environments: values of the wrong form are not taken", () => {
    const bad = [
      "TMUX=relative/path,42,0",
      `TMUX=${SOCKET},notapid,0`,
      `TMUX=${SOCKET},0,0`,
      `TMUX=${SOCKET},42,x`,
      `TMUX=${SOCKET}\n,42,0`,
      `TMUX=/tmp/${"x".repeat(200)},42,0`,
      "TMUX=",
      `TMUX=${SOCKET}`
    ]
    for (const entry of bad) {
      const files = { [SOCKET]: {}, [`${SOCKET}\n`]: {}, [`/tmp/${"x".repeat(200)}`]: {} }
      expect(search({ 99: { ppid: 1, environ: env(entry, "TMUX_PANE=%1") } }, files).found, entry).toBeUndefined()
    }
    // A malformed TMUX_PANE or TMUX_TMPDIR is dropped; TMUX alone still names the server.
    for (const extra of ["TMUX_PANE=1", "TMUX_PANE=%1;x", `TMUX_PANE=%${"9".repeat(30)}`, "TMUX_TMPDIR=rel", "TMUX_TMPDIR=/a\u001bb"]) {
      const found = search({ 99: { ppid: 1, environ: env(TMUX, extra) } }).found
      expect(found, extra).toMatchObject({ paneId: null, tmuxTmpdir: undefined })
    }
  })

  it("an environment over its bound is not read at all, and one without NULs is one entry", () => {
    const huge = env(`PAD=${"x".repeat(MAX_ENVIRON_BYTES)}`, TMUX, "TMUX_PANE=%1")
    expect(search({ 99: { ppid: 1, environ: huge } }).found).toBeUndefined()
    // No NUL anywhere: TMUX's value runs to the end and holds the rest.
    expect(search({ 99: { ppid: 1, environ: `${TMUX}TMUX_PANE=%1` } }).found).toBeUndefined()
    // Bytes that are not UTF-8 in TMUX are not taken.
    const invalid = Buffer.concat([Buffer.from("TMUX=/tmp/tmux-1000/def"), Buffer.from([0xff, 0xfe]), Buffer.from("ault,42,0\0")])
    expect(search({ 99: { ppid: 1, environ: invalid } }, { "/tmp/tmux-1000/def\ufffd\ufffdault": {} }).found).toBeUndefined()
  })

  it("the first TMUX of an environment counts, as getenv's would", () => {
    const found = search({ 99: { ppid: 1, environ: env(TMUX, "TMUX=/tmp/tmux-1000/evil,43,0", "TMUX_PANE=%1") } }, {
      [SOCKET]: {},
      "/tmp/tmux-1000/evil": {}
    }).found
    expect(found?.tmux.socketPath).toBe(SOCKET)
  })

  it(`the walk is bounded (${MAX_ANCESTORS} ancestors) and survives a loop or a hostile stat`, () => {
    const chain: Record<number, FakeProcess> = {}
    for (let pid = 1000; pid > 1000 - 200; pid--) chain[pid] = { ppid: pid - 1 }
    chain[1000 - 199] = { ppid: 1, environ: env(TMUX) }
    const deep = search(chain, undefined, { pid: 1001, ppid: 1000 })
    expect(deep.found).toBeUndefined()
    expect(deep.ancestors.length).toBe(MAX_ANCESTORS)

    const loop = search({ 99: { ppid: 98 }, 98: { ppid: 99 } })
    expect(loop.found).toBeUndefined()
    expect(loop.ancestors).toEqual([99, 98])

    // A command name with ") " and spaces: the ppid is read after the last ")".
    const tricky = search({ 99: { ppid: 98, comm: "a) S 5 (b" }, 98: { ppid: 1, environ: env(TMUX, "TMUX_PANE=%4") } })
    expect(tricky.found?.pid).toBe(98)
  })
})
