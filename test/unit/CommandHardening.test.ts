/**
 * The pure parts of run_command's hardening (issue 10): terminal controls stripped from output
 * (8-bit C1 included), the end marker that needs the run's secret, the framing script and typed
 * line that never show the secret, signed handles, the pane claim's atomic check, and the
 * recorder command as tmux's pipe-pane will expand it.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { HeadTail } from "../../src/operations/bounds/OutputBudget.js"
import { decodeHandle, encodeHandle } from "../../src/operations/commands/CommandHandle.js"
import { FramedOutput, framingScript, shellQuote, typedLine } from "../../src/operations/commands/internal/CommandFraming.js"
import { claimCommand } from "../../src/operations/commands/internal/PaneClaim.js"
import { recordAndWatch, RECORDER_LIMITS, recorderCommand } from "../../src/operations/commands/internal/RunLogs.js"
import { plainLine } from "../../src/operations/commands/internal/TerminalText.js"
import { newMarks } from "../../src/tmux/Format.js"

const ID = "0123456789abcdef"
const SECRET = "00112233445566778899aabbccddeeff"
/** A recorder's key (RunLogs.recordAndWatch). */
const KEY = "ffffeeeeddddccccbbbbaaaa99998888"

describe("plainLine without keep_escapes", () => {
  it("drops 8-bit C1 controls and the strings they open, up to ST or BEL", () => {
    expect(plainLine("a\u009d52;c;aGk=\u009cb")).toBe("ab")
    expect(plainLine("a\u009d0;title\u0007b")).toBe("ab")
    expect(plainLine("a\u0090q\u009cb\u0098sos\u009cc\u009epm\u009cd\u009fapc\u009ce")).toBe("abcde")
    expect(plainLine("a\u009b31mb\u009b2Jc")).toBe("abc")
    expect(plainLine("a\u0085b\u0084c\u008dd")).toBe("abcd")
    // A 7-bit string may end with the 8-bit ST as well.
    expect(plainLine("a\x1b]52;c;x\u009cb")).toBe("ab")
  })

  it("leaves no control a terminal would act on, whatever the input", () => {
    let text = ""
    for (let code = 0; code < 0xa0; code++) if (code !== 0x0a) text += String.fromCharCode(code) + "x"
    // eslint-disable-next-line no-control-regex
    expect(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/.test(plainLine(text))).toBe(false)
    expect(plainLine("tab\there é ✓")).toBe("tab\there é ✓")
  })
})

describe("the end marker", () => {
  const framed = () => new FramedOutput({ id: ID, secret: SECRET }, () => new HeadTail(), false, { started: false, offset: 0 })

  it("needs the run's secret: a line with the id alone, or another secret, is output", () => {
    const output = framed()
    output.feed(Buffer.from(`ETM_S_${ID}\r\nETM_E_${ID} 0\r\nETM_E_${ID}_ 0\r\nETM_E_${ID}_${"f".repeat(32)} 0\r\nlast\r\n`))
    expect(output.state).toEqual({ started: true, ended: false, exitStatus: null, shellExited: false })
    output.feed(Buffer.from(`ETM_E_${ID}_${SECRET} 4\r\n`))
    expect(output.state).toEqual({ started: true, ended: true, exitStatus: 4, shellExited: false })
    expect(output.budget.result().lines).toEqual([`ETM_E_${ID} 0`, `ETM_E_${ID}_ 0`, `ETM_E_${ID}_${"f".repeat(32)} 0`, "last"])
  })

  it("keeps the last lines before the start, to show what happened to a line that did not run", () => {
    const output = framed()
    output.feed(Buffer.from(`$ junk eval "$(tmux show-buffer …)"\r\nbash: junk: command not found\r\n`))
    expect(output.state.started).toBe(false)
    expect(output.preamble).toEqual([`$ junk eval "$(tmux show-buffer …)"`, "bash: junk: command not found"])
  })
})

describe("the framing", () => {
  it("types a line without the secret or a marker, and a script whose text holds no marker", () => {
    const line = typedLine({ id: ID, socketPath: "/s", tmuxProgram: "tmux", suppressHistory: true })
    expect(line).not.toContain(SECRET)
    expect(line).not.toContain("ETM_")
    expect(line).toContain("set +xv")
    for (const shell of ["bash", "sh", "zsh"]) {
      const tidy = { rowsUp: 1, rowsUpVerbose: 2, column: 2 }
      const script = framingScript({ id: ID, secret: SECRET }, "echo 'it''s'", {
        shell,
        lease: "/d/x.log",
        markers: "hidden",
        recorderKey: KEY,
        tidy
      })
      expect(script).toContain(SECRET)
      expect(script).not.toContain(`ETM_E_${ID}_${SECRET}`)
      expect(script).not.toContain(`ETM_X_${ID}_${SECRET}`)
      expect(script).not.toContain(`ETM_S_${ID}`)
      // The recorder's key whole only where the start hands it over; the ends write it in two halves, which only printf joins.
      expect(script.split(KEY)).toHaveLength(2)
      expect(script).toContain(`printf '\\033]etm;ETM_S_%s %s\\n\\007' ${ID} ${KEY}; `)
      expect(script).toContain(` ${KEY.slice(0, 16)} ${KEY.slice(16)}`)
      expect(script.startsWith("{ ")).toBe(true)
      expect(script.endsWith("; } 9<'/d/x.log'")).toBe(true)
    }
    expect(framingScript({ id: ID, secret: SECRET }, "true", { shell: "dash", lease: "/l", markers: "visible" })).toMatch(
      /command eval "[^"]*"'true'/
    )
    expect(framingScript({ id: ID, secret: SECRET }, "true", { shell: "zsh", lease: "/l", markers: "hidden" })).not.toContain(
      "command eval"
    )
  })
})

describe("signed handles", () => {
  const key = Buffer.alloc(32, 1)
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
  const payload = (text: string) => JSON.parse(Buffer.from(text.slice(5), "base64url").toString("utf8"))
  const reencode = (fields: Record<string, unknown>) => "cmd1." + Buffer.from(JSON.stringify(fields)).toString("base64url")

  it("refuse a changed field, a missing or foreign signature", async () => {
    const good = encodeHandle(key, handle)
    const refused = [
      reencode({ ...payload(good), pane_id: "%4" }),
      reencode({ ...payload(good), offset: 0 }),
      reencode({ ...payload(good), mac: undefined }),
      encodeHandle(Buffer.alloc(32, 2), handle)
    ]
    for (const text of refused) expect(Result.isFailure(await Effect.runPromise(Effect.result(decodeHandle(key, text))))).toBe(true)
    expect(await Effect.runPromise(decodeHandle(key, good))).toEqual(handle)
  })
})

describe("the claim", () => {
  it("types only if the pane is still as seen, and prints the state back otherwise", () => {
    const seen = {
      pane_id: "%3",
      pid: 42,
      dead: false,
      in_mode: false,
      alternate: false,
      pipe: false,
      command: "bash",
      cwd: "/home/user",
      claim: "",
      pipe_owner: "",
      cursor_x: 2,
      width: 80
    }
    const marks = newMarks()
    const [verb, flag, , , condition, claimed, refused] = claimCommand(marks, {
      paneId: "%3",
      id: ID,
      seen,
      recorder: "rec",
      typing: [["send-keys", "-t", "%3", "Enter"]]
    })
    expect([verb, flag]).toEqual(["if-shell", "-F"])
    for (const part of ["#{==:#{@etm-run},}", "#{==:#{pane_pipe},0}", "#{==:#{pane_pid},42}", "#{==:#{pane_current_command},bash}"]) {
      expect(condition).toContain(part)
    }
    // Where the cursor is only lays the typed line out: it is no condition of the claim.
    expect(condition).not.toContain("cursor_x")
    expect(condition).not.toContain("pane_width")
    // The claim comes first, then the recorder, the typing last; the refusal only prints.
    expect(claimed!.indexOf("@etm-run")).toBeLessThan(claimed!.indexOf("pipe-pane"))
    expect(claimed!.indexOf("pipe-pane")).toBeLessThan(claimed!.indexOf("send-keys"))
    expect(refused!.startsWith("\"display-message\" \"-p\"")).toBe(true)
    // The recorder's key is in no buffer and no argv: the recorder learns it from the start, in the byte stream.
    expect(claimed).not.toContain("set-buffer")
    expect(claimed).not.toMatch(/[0-9a-f]{32}/)
    // No recorder: the pane keeps its own pipe.
    const [, , , , , unrecorded] = claimCommand(marks, { paneId: "%3", id: ID, seen, recorder: null, typing: [] })
    expect(unrecorded).not.toContain("pipe-pane")
  })
})

describe("the recorder", () => {
  it("arrives at sh as written after tmux's format and strftime expansion, and never names the secret nor a key", () => {
    const command = recorderCommand({ id: ID, log: "/tmp/50%#dir/x.log", paneId: "%3", socketPath: "/tmp/s%ock", tmuxProgram: "tmux" })
    expect(command).not.toContain(SECRET)
    // What tmux does to it: strftime (%% -> %), then ## -> #.
    const expanded = command.replaceAll("%%", "%").replaceAll("##", "#")
    expect(spawnSync("/bin/sh", ["-n", "-c", expanded]).status).toBe(0)
    expect(expanded).toContain("'/tmp/50%#dir/x.log'")
    expect(expanded).toContain("'-t' '%3'")
    expect(expanded).toContain("#{==:#{@etm-pipe},0123456789abcdef}")
    // The key comes from the run's start in the stream: no key, no buffer, nothing shaped like an end in the command.
    expect(expanded).toContain(`'ETM_S_${ID} '`)
    expect(expanded).not.toMatch(/[0-9a-f]{32}/)
    expect(expanded).not.toContain("etm.key.")
    expect(expanded).not.toContain("ETM_E")
    // grep reads its pattern (the key) from descriptor 3, never from an argv; as a fixed string.
    expect(expanded.match(/grep -q -F -f \/dev\/fd\/3/g)).toHaveLength(2)
    expect(expanded).not.toContain("grep -q -E")
  })

  describe("run by sh on a stream", () => {
    const dir = mkdtempSync(join(tmpdir(), "etm-recorder-"))
    afterAll(() => rmSync(dir, { recursive: true, force: true }))
    const record = (stream: string) => {
      const log = join(dir, "x.log")
      rmSync(log, { force: true })
      const how = (word: string) => `echo ${word} > ${shellQuote(join(dir, "how"))}`
      const script = [...RECORDER_LIMITS, recordAndWatch(log, ID, how("ended"), how("stopped"))].join("; ")
      const ran = spawnSync("/bin/sh", ["-c", script], { input: stream, encoding: "utf8" })
      expect(ran.status).toBe(0)
      return { how: readFileSync(join(dir, "how"), "utf8").trim(), log: readFileSync(log, "utf8") }
    }
    const lines = (...texts: Array<string>) => texts.map((line) => `${line}\r\n`).join("")
    /** The run's start as the script prints it: the key after the id, the BEL that ends it opening the next line. */
    const START = `\x1b]etm;ETM_S_${ID} ${KEY}\r\n\x07`
    const END = `\x1b]etm;ETM_E_${ID}_${SECRET} 0 ${KEY}\r\n\x07`
    /** What the pane may show before the start: the typed line (with the run id), marker-shaped text. */
    const before = lines(
      `$ { _etm_f=$-; set +xv; } 2>/dev/null; eval "$('tmux' -S '/s' show-buffer -b etm.run.${ID} …)"`,
      `ETM_S_${ID}`,
      `ETM_E_${ID}_${SECRET} 0 ${KEY.slice(0, 16)}`
    )
    /** What a command may print: ends without the key, the key in halves (a listing of the exit hook, a trace of an end's printf). */
    const forged = lines(
      `ETM_E_${ID}_${"f".repeat(32)} 0`,
      `\x1b]etm;ETM_E_${ID}_${SECRET} 0`,
      `\x1b]etm;ETM_E_${ID}_${SECRET} 0 ${"e".repeat(32)}`,
      `a run id read off the pane: ${ID}`,
      `ETM_S_${ID} ${"e".repeat(32)}`,
      `trap -- '_etm_f=$?; { set +x; } 2>/dev/null; printf '\\''\\033]etm;ETM_X_%s %s %s%s\\n\\007'\\'' ${ID}_${SECRET} "$_etm_f" ${
        KEY.slice(0, 16)
      } ${KEY.slice(16)}' EXIT`,
      `+ printf '\\033]etm;ETM_E_%s %s %s%s\\n\\007' ${ID}_${SECRET} 0 ${KEY.slice(0, 16)} ${KEY.slice(16)}`
    )

    it("learns its key from the run's start and stops at the line with it, not at anything shaped like an end", () => {
      const recorded = record(`${before}${START}${forged}${END}after\r\n`)
      expect(recorded.how).toBe("ended")
      expect(recorded.log.startsWith(`${before}${START}${forged}`)).toBe(true)
      // The start shares no line with what follows: the first line after it is read whole.
      expect(record(`${START}${END}`).how).toBe("ended")
      expect(record(`${before}${START}${forged}`).how).toBe("stopped")
    })

    it("a later start (a command that printed one) does not change the key it learnt", () => {
      const other = `\x1b]etm;ETM_S_${ID} ${"e".repeat(32)}\r\n\x07`
      const recorded = record(`${START}${other}${lines(`ETM_E_${ID}_${SECRET} 0 ${"e".repeat(32)}`)}more\r\n`)
      expect(recorded.how).toBe("stopped")
    })

    it("without the run's start (the line never ran), or with a start whose key is no key, records the whole stream and stops with it", () => {
      const starts = [
        "",
        `\x1b]etm;ETM_S_ffffffffffffffff ${KEY}\r\n\x07`,
        `\x1b]etm;ETM_S_${ID}\r\n\x07`,
        `\x1b]etm;ETM_S_${ID} ${KEY.slice(0, 31)}\r\n\x07`,
        `\x1b]etm;ETM_S_${ID} $(rm -rf /)\r\n\x07`
      ]
      for (const start of starts) {
        const stream = `${before}${start}${forged}${KEY}\r\n${END}more\r\n`
        const recorded = record(stream)
        expect(recorded.how).toBe("stopped")
        expect(recorded.log).toBe(stream)
      }
    })
  })
})
