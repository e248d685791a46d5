/**
 * operations/commands over FakeTmux. The pane's shell cannot be faked whole, so this pins what can
 * be: every refusal (conflict kinds, a watched pane, the caller's own pane, bad commands) before
 * anything is typed, the one command list that claims the pane, records it and types (and what it
 * leaves in the world), and the protocol end to end with the test playing the shell: it fetches
 * the script from the buffer the typed line names and prints the markers, as a real shell would.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { appendFileSync, mkdtempSync, renameSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { exitToken, layTypedLine } from "../../src/operations/commands/internal/CommandFraming.js"
import { runCommand, type RunRequest } from "../../src/operations/commands/RunCommand.js"
import { type FakePane, type FakeServer, FakeTmux, type FakeWorld } from "../../src/testing/FakeTmux.js"
import { call, callerEnv, fakeOperations, type FakeOptions, socketPathFor } from "../support/fakeWorld.js"
import { errorMeta } from "../support/runTool.js"

const TMPDIR = mkdtempSync(join(tmpdir(), "etm-commands-"))
afterAll(() => rmSync(TMPDIR, { recursive: true, force: true }))
const UID = process.getuid?.() ?? 0
const OPTIONS: FakeOptions = { tmpdir: TMPDIR, uid: UID }
const SOCKET = socketPathFor("default", TMPDIR, UID)
const PID = 100
const LOGS = join(TMPDIR, `effect-tmux-mcp-${UID}`)

/** $0: %0 a bash at its prompt, %1 also bash; $1 (watched by a person): %2. */
const world = (): FakeWorld =>
  new Map([
    [
      SOCKET,
      FakeTmux.server({
        pid: PID,
        sessions: [
          { name: "work", windows: [{ panes: [{ lines: ["$ "] }, { lines: ["$ "] }] }] },
          { name: "seen", windows: [{ panes: [{ lines: ["$ "] }] }] }
        ],
        clients: [{ session: "seen" }]
      })
    ]
  ])

const serverOf = (w: FakeWorld) => w.get(SOCKET)!
const paneOf = (w: FakeWorld, id: string) => FakeTmux.pane(serverOf(w), id)!.pane

const request = (command: string, overrides: Partial<RunRequest> = {}): RunRequest => ({
  command,
  timeout: { seconds: 0, clamped: false },
  interruptOnTimeout: false,
  force: false,
  maxLines: 100,
  maxBytes: 65_536,
  keepEscapes: false,
  ...overrides
})

describe("runCommand's refusals", () => {
  const refusals: ReadonlyArray<[string, (pane: FakePane) => void, Record<string, unknown>]> = [
    ["a dead pane", (pane) => (pane.dead = true), { _tag: "Conflict", kind: "dead" }],
    ["copy mode", (pane) => (pane.inMode = true), { _tag: "Conflict", kind: "copy_mode" }],
    ["a full-screen program", (pane) => (pane.alternate = true), { _tag: "Conflict", kind: "full_screen" }],
    ["a shell it cannot frame", (pane) => (pane.command = "fish"), { _tag: "Conflict", kind: "unsupported_shell" }],
    ["a busy pane", (pane) => (pane.command = "vim"), { _tag: "Conflict", kind: "busy" }],
    ["another run's claim", (pane) => pane.options.set("@etm-run", "0123456789abcdef"), { _tag: "Conflict", kind: "run_pending" }],
    ["a claim that is no run id", (pane) => pane.options.set("@etm-run", "something else"), { _tag: "Conflict", kind: "run_pending" }]
  ]
  for (const [what, arrange, refusal] of refusals) {
    it.effect(`refuses ${what} and types nothing`, () =>
      Effect.gen(function*() {
        const w = world()
        arrange(paneOf(w, "%0"))
        // A claim is fresh while its buffer waits to be fetched.
        serverOf(w).buffers.push({ name: "etm.run.0123456789abcdef", data: "script", created: Math.floor(Date.now() / 1000), order: 99 })
        const fake = fakeOperations(w, OPTIONS)
        expect(yield* Effect.flip(fake.run((socket) => runCommand(socket, "%0", request("echo hi"))))).toMatchObject(refusal)
        expect(paneOf(w, "%0").input).toBe("")
        expect(fake.state.invocations.some((i) => i.stdin !== undefined)).toBe(false)
      }))
  }

  it.effect("refuses a pane a person watches unless forced, and bad commands before looking", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w, OPTIONS)
      expect(yield* Effect.flip(fake.run((socket) => runCommand(socket, "%2", request("ls"))))).toMatchObject({
        _tag: "Denied",
        kind: "watched"
      })
      expect(paneOf(w, "%2").input).toBe("")
      for (const command of ["  ", "nul\0", "x".repeat(262_145)]) {
        expect(yield* Effect.flip(fake.run((socket) => runCommand(socket, "%0", request(command))))).toMatchObject({ _tag: "InvalidInput" })
      }
      expect(yield* Effect.flip(fake.run((socket) => runCommand(socket, "%9", request("ls"))))).toMatchObject({
        _tag: "NotFound",
        kind: "pane"
      })
      const forced = yield* fake.run((socket) => runCommand(socket, "%2", request("ls", { force: true })))
      expect(forced.outcome).toBe("timed_out")
    }))

  it.effect("run_command refuses the caller's own pane unless forced", () =>
    Effect.gen(function*() {
      const w = world()
      const layer = fakeOperations(w, { ...OPTIONS, env: callerEnv(SOCKET, PID, "%0") }).layer
      const refused = errorMeta(yield* call(layer, "run_command", { pane_id: "%0", command: "ls", timeout: 1 }))
      expect(refused).toMatchObject({ code: "denied" })
      expect(refused.text).toContain("force")
      expect(paneOf(w, "%0").input).toBe("")
    }))
})

/** The claim list's condition, claimed commands and refusal, as if-shell -F -t got them. */
const claimOf = (commands: ReadonlyArray<ReadonlyArray<string>>) => {
  expect(commands).toHaveLength(1)
  const [name, flag, targetFlag, pane, condition, claimed, refused] = commands[0]!
  expect([name, flag, targetFlag, pane]).toEqual(["if-shell", "-F", "-t", "%0"])
  return { condition: condition!, claimed: claimed!, refused: refused! }
}

describe("runCommand's claim and typing", () => {
  it.effect("claims the pane, opens its recorder, loads the script from stdin and types one line, in one command list", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w, OPTIONS)
      const result = yield* fake.run((socket) => runCommand(socket, "%0", request("echo 'secret payload'")))
      expect(result).toMatchObject({ outcome: "timed_out", started: false, exit_status: null, shell: "bash", output_source: "pipe" })
      expect(result.handle).toMatch(/^cmd1\./)
      const typing = fake.state.invocations.find((i) => i.stdin !== undefined)!
      const { condition, claimed } = claimOf(typing.commands)
      // The claim goes through only while the pane is as it was read.
      for (
        const part of [
          "#{==:#{@etm-run},}",
          "#{==:#{pane_dead},0}",
          "#{==:#{pane_in_mode},0}",
          "#{==:#{alternate_on},0}",
          "#{==:#{pane_current_command},bash}"
        ]
      ) {
        expect(condition).toContain(part)
      }
      const id = paneOf(w, "%0").options.get("@etm-run")!
      expect(id).toMatch(/^[0-9a-f]{16}$/)
      expect(claimed).toContain(`"load-buffer" "-b" "etm.run.${id}" "-"`)
      expect(paneOf(w, "%0").options.get("@etm-pipe")).toBe(id)
      expect(paneOf(w, "%0").pipe).toContain(`tee -a '${join(LOGS, `${id}.log`)}'`)
      // No key buffer: the recorder learns its key from the run's start, in the pane's byte stream.
      expect(claimed).not.toContain("set-buffer")
      expect(serverOf(w).buffers.some((b) => b.name.startsWith("etm.key."))).toBe(false)
      // The script travelled on stdin into the run's buffer; the command is in no argv.
      const script = serverOf(w).buffers.find((b) => b.name === `etm.run.${id}`)!.data
      expect(script).toBe(typing.stdin)
      expect(script).toContain("'echo '\\''secret payload'\\'''")
      const argvs = fake.state.invocations.flatMap((i) => i.commands.flat())
      expect(argvs.some((arg) => arg.includes("secret payload"))).toBe(false)
      // Recorded: hidden markers. The start hands the recorder its key (which is not the secret);
      // the end prints it after the status, written in two halves that only printf joins.
      const start = /printf '\\033\]etm;ETM_S_%s %s\\n\\007' ([0-9a-f]{16}) ([0-9a-f]{32}); /.exec(script)!
      expect(start[1]).toBe(id)
      const key = start[2]!
      const end =
        /printf '\\033\]etm;ETM_E_%s %s %s%s\\n\\007' [0-9a-f]{16}_([0-9a-f]{32}) "\$\{_etm_f%% \*\}" ([0-9a-f]{16}) ([0-9a-f]{16});/
          .exec(script)!
      expect(`${end[2]}${end[3]}`).toBe(key)
      expect(end[1]).not.toBe(key)
      expect(script.split(key)).toHaveLength(2)
      // Neither the key nor the secret in any argv (the recorder's pipe command included).
      expect(argvs.some((arg) => arg.includes(key) || arg.includes(end[1]!))).toBe(false)
      expect(paneOf(w, "%0").pipe).not.toContain(key)
      // bash: the exit hook's trap text holds neither the key whole nor the shell's end as such.
      const trap = /trap ('(?:[^']|'\\'')*') EXIT;; esac/.exec(script)![1]!.slice(1, -1).replaceAll("'\\''", "'")
      expect(trap).toContain(`printf '\\033]etm;ETM_X_%s %s\\n\\007' ${id}_${exitToken(end[1]!)} "$_etm_f"`)
      expect(trap).not.toContain(key)
      expect(trap).not.toContain(end[1])
      // The prompt ("$ ") ends in column 2: the typed line is erased from its row up, from column 3 on, and the command shown there.
      // (What was typed between the keys that clear the edit line and Enter, see below.)
      const typed = paneOf(w, "%0").input.slice("\x1b[4~\x15".length, -"\r".length)
      const { line, tidy } = layTypedLine(typed, 2, paneOf(w, "%0").width)
      expect(line).toBe(typed)
      expect(script).toContain(`*v*) printf '\\r\\033[${tidy.rowsUpVerbose}A';; *) printf '\\r\\033[${tidy.rowsUp}A';;`)
      // The command shown on a line of its own; then the start.
      expect(script).toContain(`printf '\\033[3G\\033[J%s\\n' 'echo '\\''secret payload'\\'''; ${start[0]}`)
      // The edit line is cleared (End, C-u), then the fetch line is typed and entered.
      const input = paneOf(w, "%0").input
      expect(input.startsWith("\x1b[4~\x15")).toBe(true)
      expect(input).toContain(`show-buffer -b etm.run.${id}`)
      expect(input.endsWith("\r")).toBe(true)
      expect(input).not.toMatch(/[0-9a-f]{32}/)
    }))

  it.effect("a pane with a pipe of its own keeps it: the run reads the pane's history instead", () =>
    Effect.gen(function*() {
      const w = world()
      paneOf(w, "%0").pipe = "cat >> /tmp/their.log"
      const fake = fakeOperations(w, OPTIONS)
      const result = yield* fake.run((socket) => runCommand(socket, "%0", request("true")))
      expect(result.output_source).toBe("scrollback")
      expect(paneOf(w, "%0").pipe).toBe("cat >> /tmp/their.log")
      expect(paneOf(w, "%0").options.has("@etm-pipe")).toBe(false)
      // The history holds only what the screen shows: the markers are lines there, and no recorder needs a key.
      const typing = fake.state.invocations.find((i) => i.stdin !== undefined)!
      expect(typing.stdin).toMatch(/printf 'ETM_E_%s %s\\n' [0-9a-f]{16}_[0-9a-f]{32} "\$\{_etm_f%% \*\}";/)
      expect(typing.stdin).not.toContain("\\033]etm;ETM_E_")
      expect(claimOf(typing.commands).claimed).not.toContain("set-buffer")
      expect(serverOf(w).buffers.some((b) => b.name.startsWith("etm.key."))).toBe(false)
    }))

  it.effect("a shell still starting (the cursor in the first column) is asked whether it reads its terminal before the line is typed", () =>
    Effect.gen(function*() {
      const w = world()
      paneOf(w, "%0").lines = ["starting…", ""]
      const fake = fakeOperations(w, OPTIONS)
      yield* fake.run((socket) => runCommand(socket, "%0", request("true")))
      const probe = fake.state.invocations.findIndex((i) => i.commands.some((command) => command[0] === "run-shell"))
      const typing = fake.state.invocations.findIndex((i) => i.stdin !== undefined)
      expect(probe).toBeGreaterThanOrEqual(0)
      expect(probe).toBeLessThan(typing)
      // The fake answers no probe (it has no processes): the line is typed, and erased from the first column.
      expect(fake.state.invocations[typing]!.stdin).toContain("printf '\\033[1G\\033[J%s")
    }))

  it.live("a new pane without a session yet (no directory, a name tmux made of its command) is waited out, not called busy", () =>
    Effect.gen(function*() {
      const w = world()
      const pane = paneOf(w, "%0")
      // What tmux shows until the child of its fork has made its session (HISTFILE=/dev/null bash reads as `null`).
      pane.command = "null"
      pane.cwd = ""
      const fake = fakeOperations(w, OPTIONS)
      yield* Effect.forkChild(Effect.delay(
        Effect.sync(() => {
          pane.command = "bash"
          pane.cwd = "/home/user"
        }),
        "100 millis"
      ))
      const result = yield* fake.run((socket) => runCommand(socket, "%0", request("true")))
      // Typed: the fake's shell never answers, so the run times out at once.
      expect(result.outcome).toBe("timed_out")
      expect(fake.state.invocations.some((i) => i.stdin !== undefined)).toBe(true)
    }))

  it.effect("a shell at its prompt costs no probe", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w, OPTIONS)
      yield* fake.run((socket) => runCommand(socket, "%0", request("true")))
      expect(fake.state.invocations.some((i) => i.commands.some((command) => command[0] === "run-shell"))).toBe(false)
    }))
})

/**
 * Plays the pane's shell: once the typed line is entered, fetches and deletes the script's buffer
 * (as the line's `tmux show-buffer … \; delete-buffer …` does) and writes what the script prints
 * (`print` may go on writing later, as an Effect).
 */
const shell = (w: FakeWorld, print: (marks: PlayedMarks, write: (text: string) => void) => void | Effect.Effect<void>) =>
  Effect.gen(function*() {
    const server: FakeServer = serverOf(w)
    for (;;) {
      const buffer = server.buffers.find((b) => b.name.startsWith("etm.run."))
      if (buffer !== undefined && paneOf(w, "%0").input.endsWith("\r")) {
        server.buffers = server.buffers.filter((b) => b !== buffer)
        const script = buffer.data
        // The start's printf as a recorded run's script holds it: the id and the recorder's key.
        const [, id, key] = /printf '\\033\]etm;ETM_S_%s %s\\n\\007' ([0-9a-f]{16}) ([0-9a-f]{32}); /.exec(script)!
        // The end's: id and secret, the status, the recorder's key in two halves.
        const [, endId, secret, keyHead, keyTail] =
          /printf '\\033\]etm;ETM_E_%s %s %s%s\\n\\007' ([0-9a-f]{16})_([0-9a-f]{32}) "\$\{_etm_f%% \*\}" ([0-9a-f]{16}) ([0-9a-f]{16});/
            .exec(script)!
        expect([endId, `${keyHead}${keyTail}`]).toEqual([id, key])
        // The tidy: the rows up (xtrace and verbose off) and the column the display starts in.
        const [, rowsUp] = /\*\) printf '\\r\\033\[(\d+)A';; esac/.exec(script)!
        const [, column] = /printf '\\033\[(\d+)G\\033\[J%s\\n' /.exec(script)!
        const marks: PlayedMarks = {
          id: id!,
          display: (command) => `\r\x1b[${rowsUp}A\x1b[${column}G\x1b[J${command}\r\n`,
          // The newline inside the string reaches the stream as \r\n, before the BEL that ends it.
          start: `\x1b]etm;ETM_S_${id} ${key}\r\n\x07`,
          // printf joins the key's halves.
          end: (status, kind = "E") =>
            kind === "E"
              ? `\x1b]etm;ETM_E_${id}_${secret} ${status} ${keyHead}${keyTail}\r\n\x07`
              : `\x1b]etm;ETM_X_${id}_${exitToken(secret!)} ${status}\r\n\x07`
        }
        const played = print(marks, (text) => appendFileSync(join(LOGS, `${id}.log`), text))
        if (Effect.isEffect(played)) yield* played
        return
      }
      yield* Effect.sleep("10 millis")
    }
  })

/**
 * What the played shell prints for a run: the command shown in place of the typed line (a line of
 * its own), its start (the recorder's key after the id; its BEL opens the next line), and an end
 * (E: the command's; X: the shell exited) with a status.
 */
interface PlayedMarks {
  readonly id: string
  readonly display: (command: string) => string
  readonly start: string
  readonly end: (status: number, kind?: "E" | "X") => string
}

describe("runCommand end to end, the test playing the shell", () => {
  it.live("completes with the exit status and the output between the markers, and releases the pane", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w, OPTIONS)
      const playing = yield* Effect.forkChild(
        shell(
          w,
          ({ display, end, id, start }, write) =>
            write(`${display("make")}${start}hello\r\nETM_E_${id}_deadbeef 0\r\nexit\r\nworld\r\n${end(3)}$ `)
        )
      )
      const result = yield* fake.run((socket) => runCommand(socket, "%0", request("make", { timeout: { seconds: 5, clamped: false } })))
      yield* Fiber.join(playing)
      // A marker without the run's secret is output, not the end; so is an `exit` the shell did not end after.
      expect(result).toMatchObject({
        outcome: "completed",
        exit_status: 3,
        started: true,
        handle: null,
        output: `hello\nETM_E_${paneOf(w, "%0").input.match(/etm\.run\.([0-9a-f]{16})/)![1]}_deadbeef 0\nexit\nworld`,
        lines_total: 4
      })
      expect(paneOf(w, "%0").options.has("@etm-run")).toBe(false)
      expect(paneOf(w, "%0").options.has("@etm-pipe")).toBe(false)
      expect(paneOf(w, "%0").pipe).toBeNull()
      // Nothing of the run is left in the server's buffers (there is no key buffer; the shell took the script's).
      expect(serverOf(w).buffers.filter((b) => b.name.startsWith("etm."))).toEqual([])
    }))

  it.live("a command that prints nothing (its end right after its start) completes with no output", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w, OPTIONS)
      const playing = yield* Effect.forkChild(shell(w, ({ display, end, start }, write) => write(`${display("true")}${start}${end(0)}$ `)))
      const result = yield* fake.run((socket) => runCommand(socket, "%0", request("true", { timeout: { seconds: 5, clamped: false } })))
      yield* Fiber.join(playing)
      expect(result).toMatchObject({ outcome: "completed", exit_status: 0, started: true, handle: null, output: "", lines_total: 0 })
    }))

  it.live("a first empty line of output (`echo; echo x`) is kept as an empty line", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w, OPTIONS)
      const playing = yield* Effect.forkChild(
        shell(w, ({ display, end, start }, write) => write(`${display("echo; echo x")}${start}\r\nx\r\n${end(0)}$ `))
      )
      const result = yield* fake.run((socket) =>
        runCommand(socket, "%0", request("echo; echo x", { timeout: { seconds: 5, clamped: false } }))
      )
      yield* Fiber.join(playing)
      expect(result).toMatchObject({ outcome: "completed", exit_status: 0, started: true, output: "\nx", lines_total: 2 })
    }))

  // The start is a line of its own: a command silent for longer than the start's grace (START_GRACE_MS
  // + FETCH_GRACE_MS, 3 s) has started all the same, and is not withdrawn as not_started.
  it.live("a command silent for its first seconds (`sleep 5; echo done`) completes with its output", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w, OPTIONS)
      const playing = yield* Effect.forkChild(
        shell(w, ({ display, end, start }, write) =>
          Effect.gen(function*() {
            write(`${display("sleep 5; echo done")}${start}`)
            yield* Effect.sleep("5 seconds")
            write(`done\r\n${end(0)}$ `)
          }))
      )
      const result = yield* fake.run((socket) =>
        runCommand(socket, "%0", request("sleep 5; echo done", { timeout: { seconds: 10, clamped: false } }))
      )
      yield* Fiber.join(playing)
      expect(result).toMatchObject({ outcome: "completed", exit_status: 0, started: true, output: "done" })
    }), 20_000)

  it.live("a command that ends the shell: shell_exited with the shell's status, without the shell's farewell", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w, OPTIONS)
      const playing = yield* Effect.forkChild(
        shell(w, ({ display, end, start }, write) => {
          write(`${display("echo hello; exit 3")}${start}hello\r\nexit\r\n${end(3, "X")}`)
          // The shell is gone, and its pane with it: the recorder's stream ends.
          const pane = paneOf(w, "%0")
          pane.dead = true
          renameSync(
            join(LOGS, `${pane.input.match(/etm\.run\.([0-9a-f]{16})/)![1]}.log`),
            join(LOGS, `${pane.input.match(/etm\.run\.([0-9a-f]{16})/)![1]}.log.ended`)
          )
        })
      )
      const result = yield* fake.run((socket) =>
        runCommand(socket, "%0", request("echo hello; exit 3", { timeout: { seconds: 5, clamped: false } }))
      )
      yield* Fiber.join(playing)
      expect(result).toMatchObject({ outcome: "shell_exited", exit_status: 3, started: true, handle: null, output: "hello" })
      expect(paneOf(w, "%0").options.has("@etm-run")).toBe(false)
    }))

  // The fake has no processes: whether the shell read the line cannot be told (ShellInput is
  // "unknown"), so the line may still be taken, as from a shell that is still starting.
  it.live("a line the shell has not taken when the time is up stays typed: timed_out, not started, with a handle", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w, OPTIONS)
      const result = yield* fake.run((socket) => runCommand(socket, "%0", request("make", { timeout: { seconds: 3, clamped: false } })))
      expect(result).toMatchObject({ outcome: "timed_out", started: false, exit_status: null })
      expect(result.handle).toEqual(expect.any(String))
      expect(serverOf(w).buffers.some((b) => b.name.startsWith("etm.run."))).toBe(true)
      expect(paneOf(w, "%0").options.get("@etm-run")).toEqual(expect.any(String))
    }))

  it.live("with interrupt_on_timeout, a line the shell has not taken is withdrawn instead: not_started", () =>
    Effect.gen(function*() {
      const w = world()
      const fake = fakeOperations(w, OPTIONS)
      const result = yield* fake.run((socket) =>
        runCommand(socket, "%0", request("make", { timeout: { seconds: 3, clamped: false }, interruptOnTimeout: true }))
      )
      expect(result).toMatchObject({ outcome: "not_started", started: false, handle: null, interrupt_sent: false })
      expect(serverOf(w).buffers.some((b) => b.name.startsWith("etm.run."))).toBe(false)
      expect(paneOf(w, "%0").options.has("@etm-run")).toBe(false)
    }))
})
