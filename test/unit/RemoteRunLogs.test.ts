/**
 * run_command's log on a remote host (RemoteRunLogs): the snapshot script as /bin/sh runs it
 * (here, against a file, with a stand-in for tmux that keeps what it was given), its bounded
 * head and tail with the middle counted, reading a snapshot into the framed output from where a
 * wait stands, the poll's answers, the sweep's clock, and the recorder and read commands: shell
 * that parses, and only the host's paths in them.
 */
import { spawnSync } from "node:child_process"
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { HeadTail, joinBounded } from "../../src/operations/bounds/OutputBudget.js"
import { FramedOutput } from "../../src/operations/commands/internal/CommandFraming.js"
import { unreadNotes } from "../../src/operations/commands/internal/CommandOutput.js"
import {
  feedSnapshot,
  HEAD_BYTES,
  parsePoll,
  parseSnapshot,
  READ_SCRIPT,
  readCommands,
  remoteLogPath,
  remoteRecorderCommand,
  type Snapshot,
  staleRuns,
  TAIL_BYTES
} from "../../src/operations/commands/internal/RemoteRunLogs.js"

const ID = "0123456789abcdef"
const SECRET = "00112233445566778899aabbccddeeff"
const dir = mkdtempSync(join(tmpdir(), "etm-remote-logs-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A stand-in for tmux that writes what load-buffer would read into `<dir>/loaded`. */
const fakeTmux = join(dir, "tmux")
writeFileSync(fakeTmux, `#!/bin/sh\ncat > ${JSON.stringify(join(dir, "loaded"))}\n`)
chmodSync(fakeTmux, 0o755)

/** The snapshot READ_SCRIPT loads of `bytes` from `from`. */
const snapshotOf = (bytes: Buffer | null, from: number): Snapshot | "missing" | undefined => {
  const log = join(dir, "x.log")
  rmSync(log, { force: true })
  if (bytes !== null) writeFileSync(log, bytes)
  const ran = spawnSync("/bin/sh", ["-c", READ_SCRIPT, "sh", log, String(from), fakeTmux, "/remote/sock", "etm.read.x"])
  expect(ran.status).toBe(0)
  return parseSnapshot(readFileSync(join(dir, "loaded"), "utf8"))
}

const framed = (maxLines = 200, state = { started: false, offset: 0 }) =>
  new FramedOutput({ id: ID, secret: SECRET }, () => new HeadTail(maxLines), false, state)

/** A log as a recorder sees it: the typed line's echo, the start, `lines`, the end with status 0. */
const logOf = (lines: ReadonlyArray<string>) =>
  Buffer.from(`$ eval ...\r\nETM_S_${ID}\r\n${lines.map((line) => `${line}\r\n`).join("")}ETM_E_${ID}_${SECRET} 0\r\n$ `)

describe("the snapshot script", () => {
  it("sends a small log whole, from an offset, byte for byte (UTF-8 or not)", () => {
    const bytes = Buffer.from([0x61, 0xff, 0x0a, 0xe2, 0x82, 0x0a, 0x62])
    expect(snapshotOf(bytes, 0)).toEqual({ from: 0, size: 7, head: 7, gap: 0, gapLines: 0, bytes })
    expect(snapshotOf(bytes, 3)).toEqual({ from: 3, size: 7, head: 4, gap: 0, gapLines: 0, bytes: bytes.subarray(3) })
    // An offset past the end (a log read by someone else's count) reads nothing rather than failing.
    expect(snapshotOf(bytes, 99)).toEqual({ from: 7, size: 7, head: 0, gap: 0, gapLines: 0, bytes: Buffer.alloc(0) })
  })

  it("says when there is no log", () => {
    expect(snapshotOf(null, 0)).toBe("missing")
  })

  it("sends the head and the tail of a long log, and counts the line ends it leaves out", () => {
    const lines = Array.from({ length: 300_000 }, (_, i) => String(i + 1))
    const bytes = Buffer.from(lines.map((line) => `${line}\n`).join(""))
    const snapshot = snapshotOf(bytes, 10) as Snapshot
    const gap = bytes.length - 10 - HEAD_BYTES - TAIL_BYTES
    expect(snapshot).toMatchObject({ from: 10, size: bytes.length, head: HEAD_BYTES, gap })
    const middle = bytes.subarray(10 + HEAD_BYTES, 10 + HEAD_BYTES + gap)
    expect(snapshot.gapLines).toBe(middle.filter((byte) => byte === 0x0a).length)
    expect(snapshot.bytes.equals(Buffer.concat([bytes.subarray(10, 10 + HEAD_BYTES), bytes.subarray(bytes.length - TAIL_BYTES)]))).toBe(
      true
    )
  })
})

describe("feedSnapshot", () => {
  const whole = (bytes: Buffer, from = 0): Snapshot => ({
    from,
    size: bytes.length,
    head: bytes.length - from,
    gap: 0,
    gapLines: 0,
    bytes: bytes.subarray(from)
  })

  it("feeds only what comes after what was read, wherever the snapshot starts", () => {
    const log = logOf(["one", "two", "three"])
    const output = framed()
    output.feed(log.subarray(0, log.indexOf("two")))
    feedSnapshot(output, whole(log))
    expect(output.state).toEqual({ started: true, ended: true, exitStatus: 0, shellExited: false })
    expect(joinBounded(output.budget.result())).toBe("one\ntwo\nthree")
  })

  it("counts the lines of a gap as elided and marks the line it cuts, keeping the end", () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`)
    const log = logOf(lines)
    // Cut from the middle of line 100 to the middle of line 900.
    const cutFrom = log.indexOf("line 100\r") + 3
    const cutTo = log.indexOf("line 900\r") + 3
    const middle = log.subarray(cutFrom, cutTo)
    const snapshot: Snapshot = {
      from: 0,
      size: log.length,
      head: cutFrom,
      gap: cutTo - cutFrom,
      gapLines: middle.filter((byte) => byte === 0x0a).length,
      bytes: Buffer.concat([log.subarray(0, cutFrom), log.subarray(cutTo)])
    }
    const output = framed(6)
    feedSnapshot(output, snapshot)
    expect(output.state).toEqual({ started: true, ended: true, exitStatus: 0, shellExited: false })
    expect(output.cutLines).toBe(1)
    // Cut by the gap, not for its length: a search's note says what was not read, and why (issue 30 item 13).
    expect(output.longLinesCut).toBe(0)
    expect(output.unfetched).toEqual({ bytes: snapshot.gap, lines: snapshot.gapLines })
    expect(unreadNotes(output)).toEqual([
      `${snapshot.gap} bytes of the output's middle (${snapshot.gapLines} lines) stayed on the host unread`
    ])
    expect(output.offset).toBe(log.lastIndexOf("\n") + 1)
    const result = output.budget.result()
    expect(result).toMatchObject({ lines_total: 1000, elided_lines: 994 })
    expect(joinBounded(result).split("\n")).toEqual([
      "line 1",
      "line 2",
      "line 3",
      "[… 994 lines elided …]",
      "line 998",
      "line 999",
      "line 1000"
    ])
  })

  it("leaves the lines of a gap uncounted when part of it was read before (the cut still said)", () => {
    const log = logOf(Array.from({ length: 100 }, (_, i) => `line ${i + 1}`))
    const output = framed()
    output.feed(log.subarray(0, log.indexOf("line 50\r")))
    const cutFrom = log.indexOf("line 40\r")
    const cutTo = log.indexOf("line 60\r")
    feedSnapshot(output, {
      from: 0,
      size: log.length,
      head: cutFrom,
      gap: cutTo - cutFrom,
      gapLines: 20,
      bytes: Buffer.concat([log.subarray(0, cutFrom), log.subarray(cutTo)])
    })
    expect(output.state.ended).toBe(true)
    expect(output.cutLines).toBe(1)
    // Only what was not read before is unread.
    const unread = cutTo - log.indexOf("line 50\r")
    expect(output.unfetched).toEqual({ bytes: unread, lines: null })
    expect(unreadNotes(output)).toEqual([`${unread} bytes of the output's middle stayed on the host unread`])
    // Lines 1-49 read before, 50-59 left out uncounted, 60-100 (the first of them marked as cut).
    expect(output.budget.result().lines_total).toBe(90)
    expect(joinBounded(output.budget.result())).toMatch(/^line 1\n[^]*\nline 49\n\[… \d+ bytes elided …\]line 60\n/)
  })
})

describe("unreadNotes", () => {
  it("names a line cut for its length as such, and nothing else", () => {
    const output = framed()
    feedSnapshot(output, {
      from: 0,
      size: 0,
      head: 0,
      gap: 0,
      gapLines: 0,
      bytes: Buffer.alloc(0)
    })
    output.feed(logOf(["short", "x".repeat(70 * 1024), "after"]))
    expect(output.state.ended).toBe(true)
    expect(output.longLinesCut).toBe(1)
    expect(output.unfetched).toEqual({ bytes: 0, lines: 0 })
    expect(unreadNotes(output)).toEqual(["the middles of 1 lines over 64 KiB were not read"])
  })
})

describe("parsePoll", () => {
  it("tells recording, handed over and gone apart", () => {
    expect(parsePoll("0\n")).toEqual({ _tag: "Recording" })
    expect(parsePoll("1234\n")).toEqual({ _tag: "Recording" })
    expect(parsePoll("\n")).toEqual({ _tag: "Gone" })
    expect(parsePoll("ended\netm-log-snapshot-1 0 2 2 0 0\n 61 0a\n")).toEqual({
      _tag: "HandedOver",
      snapshot: { from: 0, size: 2, head: 2, gap: 0, gapLines: 0, bytes: Buffer.from("a\n") }
    })
    // A buffer that is not a snapshot (someone else's, garbled) is no output.
    expect(parsePoll("ended\nhello\n")).toEqual({ _tag: "HandedOver", snapshot: undefined })
    expect(parseSnapshot("etm-log-snapshot-1 0 3 3 0 0\n 61 0a\n")).toBeUndefined()
  })
})

describe("staleRuns", () => {
  it("measures a log buffer's age on the server's clock", () => {
    const clock = "etm.clock.abc"
    const listing = [`5000 ${clock}`, `1399 etm.log.${ID}`, `1401 etm.log.fedcba9876543210`, "1 etm.log.not-a-run"].join("\n")
    expect(staleRuns(listing, clock)).toEqual([ID])
    expect(staleRuns(`1399 etm.log.${ID}`, clock)).toEqual([])
  })
})

describe("the commands for a remote pane", () => {
  /** A pipe-pane or run-shell command as tmux hands it to the shell: formats (and, for pipe-pane, strftime) expanded. */
  const expanded = (command: string, strftime: boolean) => {
    const text = command.replaceAll("##", "#")
    return strftime ? text.replaceAll("%%", "%") : text
  }
  const parses = (script: string) => spawnSync("/bin/sh", ["-n", "-c", script]).status

  it("records into the host's log, hands it over and names no other path", () => {
    const log = remoteLogPath("/remote/run dir", ID)
    expect(log).toBe(`/remote/run dir/${ID}.log`)
    const command = remoteRecorderCommand({ id: ID, log, paneId: "%3", socketPath: "/remote/tmux-0/default", tmuxProgram: "tmux" })
    const script = expanded(command, true)
    expect(parses(script)).toBe(0)
    expect(script).toContain(`tee -a '${log}'`)
    expect(script).toContain(`#{@etm-log-${ID}}`)
    expect(script).toContain(`rm -f '${log}'`)
    // Its key comes from the run's start in the pane's byte stream: no key buffer, no key in the command.
    expect(script).toContain(`'ETM_S_${ID} '`)
    expect(script).not.toContain("etm.key.")
    expect(script).toContain("grep -q -F -f /dev/fd/3")
    expect(script).not.toMatch(/[0-9a-f]{32}/)
    const paths = script.match(/'\/[^']*'/g) ?? []
    expect(new Set(paths)).toEqual(new Set([`'${log}'`, "'/remote/tmux-0/default'"]))
  })

  it("reads the log on the host with /bin/sh, whatever the server's default-shell", () => {
    const [runShell] = readCommands({ id: ID, log: "/remote/x#y.log", from: 42, socketPath: "/remote/sock", buffer: "etm.read.z" })
    expect(runShell![0]).toBe("run-shell")
    const command = expanded(runShell![1]!, false)
    expect(command.startsWith("exec /bin/sh -c ")).toBe(true)
    expect(command).not.toContain("\n")
    expect(parses(command)).toBe(0)
    expect(command.endsWith(" sh '/remote/x#y.log' '42' 'tmux' '/remote/sock' 'etm.read.z'")).toBe(true)
  })
})
