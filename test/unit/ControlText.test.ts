/**
 * Issue 10 item 11 without tmux: names and paths programs set are sent with their controls escaped
 * (the library keeps them exact), and captured screen text drops controls, as newer tmux can keep
 * a C1 character in a cell (3.3a drops it).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { SocketResolver } from "../../src/context/SocketResolver.js"
import { escapeControls, stripControls } from "../../src/domain/ControlText.js"
import { listPanes } from "../../src/operations/hierarchy/Hierarchy.js"
import { paneViewCommands, parsePaneView } from "../../src/operations/watching/Snapshot.js"
import { FakeTmux } from "../../src/testing/FakeTmux.js"
import * as Format from "../../src/tmux/Format.js"
import { call, fakeLayer, socketPathFor } from "../support/fakeWorld.js"
import { okResult } from "../support/runTool.js"

// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/

/** Every string in a value, at any depth. */
const strings = (value: unknown): Array<string> =>
  typeof value === "string" ? [value] : typeof value === "object" && value !== null ? Object.values(value).flatMap(strings) : []

const hostileWorld = () =>
  new Map([
    [
      socketPathFor(),
      FakeTmux.server({
        sessions: [
          {
            name: "s\u009dn",
            windows: [
              {
                name: "w\x07x",
                panes: [
                  {
                    command: "sl\x1be",
                    cwd: "/d\x1b]0;x\x07\u009bz",
                    title: "t\u009c",
                    lines: ["A\u009d52;c;aGk=\u009cB", "tab\there\x7f", "\u0090dcs\u009c done"]
                  }
                ]
              }
            ]
          }
        ]
      })
    ]
  ])

describe("escapeControls and stripControls", () => {
  it("write C0, DEL and C1 as \\xNN and leave everything else", () => {
    expect(escapeControls("a\x00b\x1b[1m\x07\t\n\x7f\u0080\u009fü日🙂\\x1b")).toBe(
      "a\\x00b\\x1b[1m\\x07\\x09\\x0a\\x7f\\x80\\x9fü日🙂\\x1b"
    )
    expect(escapeControls("plain /home/me")).toBe("plain /home/me")
  })

  it("drop controls from a captured row but keep tabs, and ESC when escapes were asked for", () => {
    expect(stripControls("A\u009d52\u009cB\tC\x7f\x07")).toBe("A52B\tC")
    expect(stripControls("\x1b[31mred\u009b", true)).toBe("\x1b[31mred")
  })
})

describe("over FakeTmux", () => {
  it.effect("list_panes, list_sessions and list_windows send names and paths escaped; the library keeps them exact", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(hostileWorld())
      const pane = okResult(yield* call(layer, "list_panes", { fields: "all" })).items[0]
      expect(pane).toMatchObject({
        command: "sl\\x1be",
        cwd: "/d\\x1b]0;x\\x07\\x9bz",
        title: "t\\x9c",
        session_name: "s\\x9dn",
        window_name: "w\\x07x"
      })
      expect(okResult(yield* call(layer, "list_sessions", {})).items[0].session_name).toBe("s\\x9dn")
      expect(okResult(yield* call(layer, "list_windows", {})).items[0].window_name).toBe("w\\x07x")
      expect(okResult(yield* call(layer, "list_panes", { fields: ["cwd"] })).items[0].cwd).toBe("/d\\x1b]0;x\\x07\\x9bz")
      for (const name of ["list_panes", "list_sessions", "list_windows", "get_pane_info"]) {
        const result = yield* call(layer, name, name === "get_pane_info" ? { pane_id: "%0" } : { fields: "all" })
        expect(strings(result.structuredContent).filter((text) => RAW_CONTROL.test(text)), name).toEqual([])
      }
      const exact = yield* Effect.gen(function*() {
        const socket = yield* (yield* SocketResolver).resolve()
        return (yield* listPanes(socket)).items[0]!
      }).pipe(Effect.provide(layer))
      expect(exact).toMatchObject({ command: "sl\x1be", cwd: "/d\x1b]0;x\x07\u009bz" })
    }))

  it.effect("capture_pane and search_panes drop controls from screen text", () =>
    Effect.gen(function*() {
      const layer = fakeLayer(hostileWorld())
      const captured = okResult(yield* call(layer, "capture_pane", { pane_id: "%0" })).content
      expect(captured).toBe("A52;c;aGk=B\ntab\there\ndcs done")
      const found = okResult(yield* call(layer, "search_panes", { patterns: ["aGk"] }))
      expect(found.panes[0].matches[0].text).toBe("A52;c;aGk=B")
      expect(strings(found).filter((text) => RAW_CONTROL.test(text))).toEqual([])
    }))
})

describe("the pane view behind snapshot_pane, capture_since and wait_for_text", () => {
  /** What tmux would print for `paneViewCommands`: the state record (values by variable), then the rows. */
  const printed = (marks: Format.Marks, values: Record<string, string>, rows: ReadonlyArray<string>, escapes: boolean) => {
    const format = paneViewCommands("%0", 0, escapes, marks)[0]![4]!
    return `${format.replace(/#\{([a-z_]+)\}/g, (_, name: string) => values[name] ?? "0")}\n${rows.join("\n")}\n`
  }
  const values = {
    pane_id: "%0",
    pane_height: "3",
    pane_width: "80",
    history_size: "0",
    socket_path: "/s",
    pane_current_command: "sl\x1be",
    pane_current_path: "/d\x07",
    pane_title: "t",
    pane_mode: ""
  }

  it("drops controls from the rows, keeping ESC only when escapes were asked for; state fields stay exact", () => {
    const rows = ["A\u009d52;c;aGk=\u009cB", "\x1b[31mred\x1b[0m\u009b", "tab\t."]
    const marks = Format.newMarks()
    const plain = Result.getOrThrow(parsePaneView(printed(marks, values, rows, false), marks, 0))
    expect(plain.rows).toEqual(["A52;c;aGk=B", "[31mred[0m", "tab\t."])
    expect(plain.state).toMatchObject({ pane_current_command: "sl\x1be", pane_current_path: "/d\x07" })
    const withEscapes = Result.getOrThrow(parsePaneView(printed(marks, values, rows, true), marks, 0, true))
    expect(withEscapes.rows).toEqual(["A52;c;aGk=B", "\x1b[31mred\x1b[0m", "tab\t."])
  })
})
