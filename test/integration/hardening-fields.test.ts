/**
 * Issue 10 item 11 (fields): a pane's directory and command are whatever programs made them, so
 * ESC, BEL and C1 controls in them reached the client raw from list_panes, get_pane_info,
 * snapshot_pane, search_panes and the spawning tools. They are sent escaped as `\xNN`; the server
 * itself keeps using the exact values (a split starts in the exact directory).
 */
import { copyFileSync, mkdirSync, realpathSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { escapeControls } from "../../src/domain/ControlText.js"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import { okResult, runTool } from "../support/runTool.js"
import { tmuxAtLeast, tmuxEscapesCommandOutput } from "../support/tmuxVersion.js"

const { world } = useWorlds()

/** Every string in a value, at any depth. */
const strings = (value: unknown): Array<string> =>
  typeof value === "string"
    ? [value]
    : typeof value === "object" && value !== null
    ? Object.values(value).flatMap(strings)
    : []

// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/

describe("text that programs set reaches the client escaped", () => {
  // tmux 3.4 and 3.5 print ESC and BEL as octal escapes, the same text as a name that holds a
  // backslash and digits: the exact directory cannot be read back from them (3.6 prints it raw).
  // tmux 3.8 reports no pane_current_command for a program whose name holds ESC (measured: empty).
  it.skipIf(tmuxEscapesCommandOutput() || tmuxAtLeast("3.8"))(
    "cwd and command with ESC, BEL and C1 are \\xNN in every tool that reports them; the split uses the exact directory",
    async () => {
      const w = world()
      // An OSC title sequence, BEL and a C1 CSI in the directory name; ESC in the program name.
      const directory = join(realpathSync(w.tmpdir), "d\x1b]0;owned\x07\u009b2Jz")
      mkdirSync(directory)
      const program = join(directory, "sl\x1be")
      copyFileSync("/bin/sleep", program)
      w.tmuxOk(
        "new-session",
        "-d",
        "-s",
        "esc",
        "-x",
        "100",
        "-y",
        "30",
        "-c",
        directory,
        "sh",
        "-c",
        "echo marker; exec \"$0\" 600",
        program
      )
      const paneId = w.tmuxOk("display-message", "-p", "-t", "esc", "#{pane_id}").trim()
      await waitFor(
        "the program to run",
        () => w.tmuxOk("display-message", "-p", "-t", paneId, "#{pane_current_command}").trim() === "sl\x1be"
      )
      const layer = w.layer()
      const cwd = escapeControls(directory)
      expect(cwd).toContain("d\\x1b]0;owned\\x07\\x9b2Jz")

      const listed = okResult(await runTool(layer, "list_panes", { fields: "all" })).items.find((pane: { pane_id: string }) =>
        pane.pane_id === paneId
      )
      expect(listed).toMatchObject({ cwd, command: "sl\\x1be" })
      expect(okResult(await runTool(layer, "get_pane_info", { pane_id: paneId }))).toMatchObject({ cwd, command: "sl\\x1be" })
      expect(okResult(await runTool(layer, "snapshot_pane", { pane_id: paneId }))).toMatchObject({
        pane_current_path: cwd,
        pane_current_command: "sl\\x1be"
      })
      const found = okResult(await runTool(layer, "search_panes", { patterns: ["marker"], history_lines: 0 }))
      expect(found.panes).toMatchObject([{ pane_id: paneId, command: "sl\\x1be" }])

      // The split starts in the exact directory, and reports it escaped.
      const split = okResult(await runTool(layer, "split_window", { pane_id: paneId, command: ["sleep", "600"], fields: ["cwd"] }))
      expect(split.pane.cwd).toBe(cwd)
      expect(w.tmuxOk("display-message", "-p", "-t", split.pane.pane_id, "#{pane_start_path}").trim()).toBe(directory)

      for (
        const result of [
          await runTool(layer, "list_panes", { fields: "all" }),
          await runTool(layer, "get_pane_info", { pane_id: paneId }),
          await runTool(layer, "snapshot_pane", { pane_id: paneId }),
          await runTool(layer, "search_panes", { patterns: ["marker"], fields: "all" })
        ]
      ) {
        expect(strings(result.structuredContent).filter((text) => RAW_CONTROL.test(text))).toEqual([])
      }
    }
  )

  it("screen text never carries controls: what a program prints as C1 or escapes is not in the capture", async () => {
    const w = world()
    w.tmuxOk("new-session", "-d", "-s", "sh", "-x", "100", "-y", "30", "env PS1='$ ' HISTFILE=/dev/null bash --norc --noprofile")
    await waitFor("the prompt", () => w.tmuxOk("capture-pane", "-p", "-t", "sh").startsWith("$"))
    // An 8-bit OSC 52 clipboard write (C1 OSC ... C1 ST) and a C1 CSI, as UTF-8, then a marker.
    w.tmuxOk("send-keys", "-t", "sh", "printf 'A\\302\\23552;c;aGk=\\302\\234B\\302\\2332JC\\033[31mD\\n'; echo done-$((1+1))", "Enter")
    await waitFor("the output", () => w.tmuxOk("capture-pane", "-p", "-t", "sh").includes("done-2"))
    const layer = w.layer()
    const captured = okResult(await runTool(layer, "capture_pane", { pane_id: "%0" })).content as string
    expect(captured).toContain("A52;c;aGk=B2JCD")
    const snapshot = okResult(await runTool(layer, "snapshot_pane", { pane_id: "%0" })).content as string
    const searched = okResult(await runTool(layer, "search_panes", { patterns: ["aGk"] }))
    for (const text of [captured, snapshot, ...strings(searched)]) expect(RAW_CONTROL.test(text)).toBe(false)
  })
})
