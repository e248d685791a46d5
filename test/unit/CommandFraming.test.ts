/**
 * The pure parts of run_command: which shells are framed, the typed line, reading the framed output
 * from a raw terminal stream, the head+tail budget, escape stripping, and the handle codec.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { describe, expect, it } from "vitest"
import { HeadTail, joinBounded } from "../../src/operations/bounds/OutputBudget.js"
import { decodeHandle, encodeHandle } from "../../src/operations/commands/CommandHandle.js"
import { FramedOutput, judgeShell, shellQuote, typedLine } from "../../src/operations/commands/internal/CommandFraming.js"
import { plainLine } from "../../src/operations/commands/internal/TerminalText.js"

const ID = "0123456789abcdef"
const SECRET = "00112233445566778899aabbccddeeff"
/** The end marker as the framing script prints it. */
const END = `ETM_E_${ID}_${SECRET}`
const framed = (keepEscapes = false, maxLines = 200) =>
  new FramedOutput({ id: ID, secret: SECRET }, () => new HeadTail(maxLines), keepEscapes, { started: false, offset: 0 })

describe("judgeShell", () => {
  it("frames POSIX shells (login shells too), refuses other shells and programs by name", () => {
    expect(judgeShell("bash")).toEqual({ _tag: "Frameable", shell: "bash" })
    expect(judgeShell("-zsh")).toEqual({ _tag: "Frameable", shell: "zsh" })
    expect(judgeShell("fish")).toEqual({ _tag: "OtherShell", shell: "fish" })
    expect(judgeShell("pwsh")).toEqual({ _tag: "OtherShell", shell: "pwsh" })
    expect(judgeShell("vim")).toEqual({ _tag: "NotAShell", program: "vim" })
  })
})

describe("typedLine", () => {
  it("never holds a marker itself, quotes the socket path, and starts with a space to suppress history", () => {
    const line = typedLine({ id: ID, socketPath: "/tmp/it's here/sock", tmuxProgram: "tmux", suppressHistory: true })
    expect(line.startsWith(" {")).toBe(true)
    expect(line).not.toContain(`ETM_S_${ID}`)
    expect(line).not.toContain(`ETM_E_${ID}`)
    expect(line).toContain(shellQuote("/tmp/it's here/sock"))
    expect(line).not.toContain("\n")
    expect(typedLine({ id: ID, socketPath: "/s", tmuxProgram: "tmux", suppressHistory: false }).startsWith("{")).toBe(true)
  })
})

describe("FramedOutput", () => {
  const stream = (...parts: Array<string>) => Buffer.from(parts.join(""), "utf8")

  it("keeps only the lines between the markers, through echo, escapes and CRLF", () => {
    const output = framed()
    output.feed(
      stream(` printf 'ETM%s\\n' _S_${ID}; eval ...\r\n`, `\x1b[?2004l\rETM_S_${ID}\r\n`, "a\r\nb\r\n", `${END} 3\r\n`, "\x1b[?2004hbash$ ")
    )
    expect(output.state).toEqual({ started: true, ended: true, exitStatus: 3 })
    expect(output.budget.result().lines).toEqual(["a", "b"])
  })

  it("reads output in pieces, lines split anywhere, and counts the bytes of complete lines", () => {
    const output = framed()
    const text = `ETM_S_${ID}\r\nhello wor`
    output.feed(stream(text))
    expect(output.state.started).toBe(true)
    expect(output.offset).toBe(Buffer.byteLength(`ETM_S_${ID}\r\n`))
    expect(output.pendingLength).toBe(Buffer.byteLength("hello wor"))
    output.feed(stream("ld\r\n", END))
    expect(output.state.ended).toBe(false)
    output.feed(stream(" 0\r\n"))
    expect(output.state).toEqual({ started: true, ended: true, exitStatus: 0 })
    expect(output.budget.result().lines).toEqual(["hello world"])
  })

  it("is not fooled by markers of other ids, and keeps output that shares the end marker's line", () => {
    const output = framed()
    output.feed(stream(`ETM_S_${ID}\r\n`, "ETM_E_ffffffffffffffff 0\r\n", `partial ${END} 1\r\n`))
    expect(output.state.exitStatus).toBe(1)
    expect(output.budget.result().lines).toEqual(["ETM_E_ffffffffffffffff 0", "partial "])
  })

  it("rescans a capture from the start and skips lines returned before", () => {
    const output = framed()
    output.rescan(stream(`$ echo\nETM_S_${ID}\nx\ny\n`), 1)
    expect(output.budget.result().lines).toEqual(["y"])
    output.rescan(stream(`ETM_S_${ID}\nx\ny\nz\n${END} 0\n`), 1)
    expect(output.state.ended).toBe(true)
    expect(output.budget.result().lines).toEqual(["y", "z"])
  })

  it("a start known from before (the log, a handle) outlives a rescan whose history lost the start marker", () => {
    const output = new FramedOutput({ id: ID, secret: SECRET }, () => new HeadTail(), false, { started: true, offset: 0 })
    output.rescan(stream("41\n42\n"), 0)
    expect(output.state).toMatchObject({ started: true, ended: false })
    expect(output.budget.result().lines).toEqual(["41", "42"])
    expect(output.startLost).toBe(true)
  })

  it("an end found without its start in the history keeps the lines before it as output, flagged lost", () => {
    const output = framed()
    output.rescan(stream(`41\n42\n${END} 3\n`), 0)
    expect(output.state).toEqual({ started: true, ended: true, exitStatus: 3 })
    expect(output.budget.result().lines).toEqual(["41", "42"])
    expect(output.startLost).toBe(true)
  })

  it("a history that holds its start loses nothing", () => {
    const output = framed()
    output.rescan(stream(`$ line etm.run.${ID}\nETM_S_${ID}\nx\n${END} 0\n`), 0)
    expect(output.budget.result().lines).toEqual(["x"])
    expect(output.startLost).toBe(false)
    expect(output.typedLineSeen).toBe(true)
  })

  it("assumeStarted rereads the last history as output when neither the typed line nor the start is in it", () => {
    const output = framed()
    output.rescan(stream("41\n42\n"), 0)
    expect(output.state.started).toBe(false)
    expect(output.typedLineSeen).toBe(false)
    output.assumeStarted()
    expect(output.state.started).toBe(true)
    expect(output.budget.result().lines).toEqual(["41", "42"])
    expect(output.startLost).toBe(true)
  })

  it("holds a line that never ends as its head and tail only, and says how many bytes it left out (issue 21 item 11)", () => {
    const output = framed()
    output.feed(stream(`ETM_S_${ID}\r\n`))
    // What is held, not what waits for the collector: garbage left by a busy machine's late GC is no leak.
    setFlagsFromString("--expose-gc")
    const collect = runInNewContext("gc") as () => void
    collect()
    const before = process.memoryUsage().arrayBuffers
    const chunk = Buffer.alloc(1024 * 1024, "x")
    for (let i = 0; i < 64; i++) output.feed(chunk)
    // Every byte counts for where the next read starts, but only a bounded part is held.
    expect(output.pendingLength).toBe(64 * chunk.length)
    collect()
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(8 * 1024 * 1024)
    output.feed(stream(`yz${END} 0\r\n`))
    expect(output.state).toEqual({ started: true, ended: true, exitStatus: 0 })
    expect(output.offset).toBe(Buffer.byteLength(`ETM_S_${ID}\r\n`) + 64 * chunk.length + Buffer.byteLength(`yz${END} 0\r\n`))
    const [line] = output.budget.result().lines
    const [, head, elided, tail] = /^(x+)\[… (\d+) bytes elided …\](x+yz)$/.exec(line!)!
    expect(head!.length + Number(elided) + tail!.length).toBe(64 * chunk.length + 2)
    expect(Buffer.byteLength(line!)).toBeLessThanOrEqual(4096)
    expect(output.cutLines).toBe(1)
  })

  it("cuts a long line read whole the same way, at character boundaries", () => {
    const output = framed()
    output.feed(stream(`ETM_S_${ID}\r\n`, "é".repeat(100_000), "\r\n", "short\r\n", `${END} 0\r\n`))
    const [line, short] = output.budget.result().lines
    expect(line).toMatch(/^é+\[… \d+ bytes elided …\]é+$/)
    expect(short).toBe("short")
    expect(output.cutLines).toBe(1)
    // Cut again by a small budget, it is still one cut line.
    const small = new FramedOutput({ id: ID, secret: SECRET }, () => new HeadTail(10, 1000), false, { started: false, offset: 0 })
    small.feed(stream(`ETM_S_${ID}\r\n`, "x".repeat(100_000), "\r\n", `${END} 0\r\n`))
    expect(small.budget.result().cut_lines + small.cutLines).toBe(1)
  })

  it("keeps escapes when asked", () => {
    const output = framed(true)
    output.feed(stream(`ETM_S_${ID}\r\n\x1b[31mred\x1b[0m\r\n${END} 0\r\n`))
    expect(output.budget.result().lines).toEqual(["\x1b[31mred\x1b[0m"])
  })
})

describe("plainLine", () => {
  it("strips CSI, OSC and charset escapes; carriage returns and backspaces overwrite", () => {
    expect(plainLine("\x1b[1;32mok\x1b[0m")).toBe("ok")
    expect(plainLine("\x1b]0;title\x07text")).toBe("text")
    expect(plainLine("\x1b(Bplain")).toBe("plain")
    expect(plainLine("10%\r100%\r")).toBe("100%")
    expect(plainLine("abc\bd")).toBe("abd")
    expect(plainLine("tab\there")).toBe("tab\there")
  })
})

describe("HeadTail", () => {
  it("keeps the first and last lines and counts the rest", () => {
    const budget = new HeadTail(4)
    for (let i = 1; i <= 10; i++) budget.push(String(i))
    const result = budget.result()
    expect(result).toMatchObject({ lines: ["1", "2", "9", "10"], lines_total: 10, elided_lines: 6, elided_after_line: 2, truncated: true })
    expect(joinBounded(result)).toBe("1\n2\n[… 6 lines elided …]\n9\n10")
  })

  it("holds to the byte budget and cuts over-long lines", () => {
    const budget = new HeadTail(100, 256)
    budget.push("x".repeat(1000))
    for (let i = 0; i < 50; i++) budget.push(`line ${i}`)
    const result = budget.result()
    expect(result.cut_lines).toBe(1)
    expect(Buffer.byteLength(joinBounded(result))).toBeLessThan(400)
    expect(result.lines.at(-1)).toBe("line 49")
  })

  it("returns everything when it fits", () => {
    const budget = new HeadTail()
    budget.push("only")
    expect(budget.result()).toMatchObject({ lines: ["only"], elided_lines: 0, elided_after_line: null, truncated: false })
  })
})

describe("command handles", () => {
  const KEY = Buffer.alloc(32, 7)
  const handle = {
    id: ID,
    secret: SECRET,
    socket: "/tmp/tmux-0/default",
    generation: "12.34",
    pane_id: "%3",
    pane_pid: 99,
    shell: "bash",
    source: "pipe" as const,
    offset: 10,
    started: true,
    fetched_by: null,
    returned_lines: 2,
    typed_at: 1
  }

  it("round-trips", async () => {
    expect(await Effect.runPromise(decodeHandle(KEY, encodeHandle(KEY, handle)))).toEqual(handle)
  })

  it("refuses anything else, forged ids included, without echoing it", async () => {
    const bad = [
      "",
      "nonsense",
      encodeHandle(KEY, handle).slice(0, -4),
      "cmd1." + Buffer.from(JSON.stringify({ ...handle, id: "../../etc/passwd" })).toString("base64url")
    ]
    for (const text of bad) {
      const result = await Effect.runPromise(Effect.either(decodeHandle(KEY, text)))
      expect(Either.isLeft(result)).toBe(true)
      if (Either.isLeft(result)) expect(result.left.reason).not.toContain("passwd")
    }
  })
})
