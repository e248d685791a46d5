/**
 * Issue 10 items 14, 16 and 17, over stdio against the built server: an oversized request line is
 * answered with a JSON-RPC error and the server keeps serving; NUL, megabyte strings and deep
 * nesting in any argument of any tool are invalid_input naming the argument, never a defect and
 * never echoed; a `__proto__` key is refused like any other key the schema does not name.
 */
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { errorOf, makeWorld, ok, serve, type Served, textOf, within, type World } from "./harness.js"

/** Writes one raw line to the server and resolves with the JSON-RPC message that answers `id`. */
const rawRequest = async (served: Served, id: string | null, line: string): Promise<Record<string, any>> => {
  const seen = served.stdout().length
  served.child.stdin!.write(`${line}\n`)
  const key = id === null ? `"id":null` : `"id":${JSON.stringify(id)}`
  for (let waited = 0; waited < 30_000; waited += 20) {
    const reply = served
      .stdout()
      .slice(seen)
      .split("\n")
      .find((message) => message.includes(key))
    if (reply !== undefined) return JSON.parse(reply)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`no answer to ${id}`)
}

const toolsCall = (id: string, name: string, argumentsJson: string) =>
  `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{"name":${
    JSON.stringify(name)
  },"arguments":${argumentsJson}}}`

const metaOf = (result: Record<string, any>) => result._meta?.["effect-tmux-mcp/error"] as { code: string } | undefined

describe("an oversized request line", () => {
  let world: World
  beforeAll(() => {
    world = makeWorld()
  })
  afterAll(() => world?.dispose())

  it("gets a JSON-RPC error with its id; the server keeps serving and its owned session lives", async () => {
    const served = await serve(world, { env: { LIBTMUX_ALLOW_SERVER_START: "1" } })
    try {
      const owned = ok(await served.call("create_session", { session_name: "kept", owned: true }))
      const refused = await served.client
        .callTool({ name: "load_buffer", arguments: { name: "big", text: "y".repeat(11 * 1024 * 1024) } })
        .then(
          () => undefined,
          (error: unknown) => error
        )
      expect(refused).toBeInstanceOf(McpError)
      expect((refused as McpError).code).toBe(-32600)
      expect((refused as McpError).message).toContain("8388608")
      expect(ok(await served.call("list_sessions")).items.map((s: { session_id: string }) => s.session_id)).toContain(owned.session_id)
      expect(world.tmux(["has-session", "-t", "kept"]).status).toBe(0)
      expect(served.child.exitCode).toBe(null)
    } finally {
      await served.close()
    }
  })

  it("accepts the largest valid request: 1 MiB of control characters, about 6 MiB once JSON-escaped", async () => {
    world.startTmux()
    const served = await serve(world)
    try {
      const text = "\u0001".repeat(1_048_576)
      expect(JSON.stringify(text).length).toBeGreaterThan(6_000_000)
      expect(ok(await served.call("load_buffer", { name: "max", text })).bytes).toBe(1_048_576)
    } finally {
      await served.close()
    }
  })

  it("without a recoverable id the reply's id is null; unparseable lines get a parse error; serving goes on", async () => {
    const served = await serve(world)
    try {
      const huge = await rawRequest(served, null, `{"params":{"x":"${"z".repeat(9 * 1024 * 1024)}"}}`)
      expect(huge).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } })
      const garbage = await rawRequest(served, null, "this is not json")
      expect(garbage).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } })
      // The id at the start of a line is found too (clients that put it first).
      const first = await rawRequest(
        served,
        "early",
        `{"jsonrpc":"2.0","id":"early","method":"tools/call","params":{"name":"load_buffer","arguments":{"name":"b","text":"${
          "z".repeat(9 * 1024 * 1024)
        }"}}}`
      )
      expect(first).toMatchObject({ id: "early", error: { code: -32600 } })
      expect(ok(await served.call("where_am_i")).server_running).toBe(true)
    } finally {
      await served.close()
    }
  })
})

describe("__proto__ and other keys the schema does not name", () => {
  let world: World
  beforeAll(() => {
    world = makeWorld()
  })
  afterAll(() => world?.dispose())

  it("a __proto__ argument is refused: start_server starts nothing", async () => {
    const served = await serve(world)
    try {
      for (
        const [id, args] of [
          ["proto-1", `{"__proto__":{"socket_name":"x"}}`],
          ["proto-2", `{"__proto__":{}}`],
          ["proto-3", `{"constructor":{}}`],
          ["proto-4", `{"prototype":1}`]
        ] as const
      ) {
        const reply = await rawRequest(served, id, toolsCall(id, "start_server", args))
        expect(reply.result?.isError, `${id}: ${JSON.stringify(reply)}`).toBe(true)
        expect(metaOf(reply.result)?.code).toBe("invalid_input")
      }
      expect(world.socketFiles()).toEqual([])
      // Nested objects too: an environment map with a __proto__ key.
      const nested = await rawRequest(served, "proto-5", toolsCall("proto-5", "create_session", `{"environment":{"__proto__":"x"}}`))
      expect(metaOf(nested.result)?.code).toBe("invalid_input")
      expect(textOf(nested.result as CallToolResult)).toContain("environment")
    } finally {
      await served.close()
    }
  })
})

describe("NUL, megabyte strings and deep nesting in every argument of every tool", () => {
  let world: World
  const disposals: Array<() => void> = []
  const defer = (dispose: () => void) => disposals.push(dispose)
  beforeAll(() => {
    world = makeWorld()
  })
  afterAll(() => {
    world?.dispose()
    for (const dispose of disposals) dispose()
  })

  const MEGABYTE = "q".repeat(1_000_000)

  it("the issue's reproductions are invalid_input naming the argument, without the value", async () => {
    const served = await serve(world, { env: { LIBTMUX_ALLOW_SERVER_START: "1" } })
    try {
      const cases: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
        ["list_sessions", { socket_name: "a\u0000b" }, "socket_name"],
        ["list_sessions", { socket_path: "/tmp/a\u0000b" }, "socket_path"],
        ["list_sessions", { socket_name: MEGABYTE }, "socket_name"],
        ["create_session", { environment: { A: MEGABYTE } }, "environment"],
        ["create_session", { start_directory: `/nonexistent/${MEGABYTE}` }, "start_directory"]
      ]
      for (const [tool, args, argument] of cases) {
        const error = errorOf(await served.call(tool, args))
        expect(error.code, `${tool} ${argument}: ${error.text.slice(0, 300)}`).toBe("invalid_input")
        expect(error.text).toContain(argument)
        expect(error.text.length).toBeLessThan(2048)
        expect(error.text).not.toContain("q".repeat(100))
        expect(error.text).not.toContain("a\u0000b")
      }
      const deep = `${"{\"a\":".repeat(100_000)}1${"}".repeat(100_000)}`
      const reply = await rawRequest(served, "deep", toolsCall("deep", "list_sessions", `{"socket_name":${deep}}`))
      expect(metaOf(reply.result)?.code).toBe("invalid_input")
      expect(textOf(reply.result as CallToolResult)).toContain("socket_name")
      expect(textOf(reply.result as CallToolResult).length).toBeLessThan(2048)
      // Under the common string limit a value reaches the lookup: not_found names it by a short prefix at most.
      ok(await served.call("create_session", { session_name: "main" }))
      const long = "q".repeat(10_000)
      for (
        const [tool, args] of [
          ["get_session_info", { session_name: long }],
          ["create_window", { session_id: "$0", generation: long }],
          ["set_environment", { session_name: long, name: "X", value: "v" }]
        ] as const
      ) {
        const error = errorOf(await served.call(tool, args))
        expect(error.code).toBe("not_found")
        expect(error.text.length).toBeLessThan(2048)
        expect(error.text).not.toContain("q".repeat(100))
      }
    } finally {
      await served.close()
    }
  })

  it("a sweep over the registry finds no defect and no error that echoes a value or exceeds 2 KB", async () => {
    const world = makeWorld()
    defer(() => world.dispose())
    world.startTmux()
    // The panes the sweep aims at read their input away, so accepted pastes cost nothing.
    world.tmux(["respawn-pane", "-k", "-t", "main", "cat > /dev/null"])
    const served = await serve(world, { env: { LIBTMUX_SAFETY: "destructive" } })
    try {
      const violations: Array<string> = []
      let calls = 0
      for (const tool of served.tools) {
        for (const path of stringPaths(tool)) {
          for (
            const [label, value] of [
              ["NUL", "a\u0000b"],
              ["1 MB", MEGABYTE],
              ["deep", nested(1000)]
            ] as const
          ) {
            const args = withValue(baseArguments(tool.name), path, value)
            const where = `${tool.name} ${path.join(".")} ${label}`
            calls++
            const result = await within(served.call(tool.name, args), 60_000, where)
            const text = textOf(result)
            if (text.includes("Internal error")) violations.push(`${where}: a defect: ${text.slice(0, 200)}`)
            if (result.isError !== true) {
              if (label !== "1 MB" && !(label === "NUL" && NUL_CARRIERS.has(`${tool.name}.${path[0]}`))) {
                violations.push(`${where}: accepted`)
              }
              continue
            }
            const error = errorOf(result)
            if (text.length >= 2048) violations.push(`${where}: ${text.length} characters of error`)
            if (text.includes("q".repeat(100)) || text.includes("a\u0000b")) violations.push(`${where}: the value is echoed`)
            if (label !== "1 MB" && !(label === "NUL" && NUL_CARRIERS.has(`${tool.name}.${path[0]}`))) {
              if (error.code !== "invalid_input") violations.push(`${where}: ${error.code}, not invalid_input: ${text.slice(0, 200)}`)
              else if (!text.includes(String(path[0]))) {
                violations.push(`${where}: the message does not name ${path[0]}: ${text.slice(0, 200)}`)
              }
            }
          }
        }
      }
      expect(violations).toEqual([])
      expect(calls).toBeGreaterThan(300)
      // The audit log is bounded as well: no line carries a value whole.
      const longest = Math.max(...served.stderr().split("\n").map((line) => line.length))
      expect(longest).toBeLessThan(16_384)
    } finally {
      await served.close()
    }
  }, 600_000)
})

/** Arguments that carry text on tmux's standard input, where a NUL is only a byte. */
const NUL_CARRIERS = new Set(["paste_text.text", "load_buffer.text"])

/** `{"a":{"a":…}}`, `depth` levels. */
const nested = (depth: number): unknown => {
  let value: unknown = "leaf"
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

/** Valid arguments for each tool's required ones (and short waits), aimed at the sweep's live session. */
const baseArguments = (tool: string): Record<string, unknown> => {
  const byTool: Record<string, Record<string, unknown>> = {
    run_batch: { operations: [{ tool: "list_sessions" }] },
    capture_pane: { pane_id: "%0" },
    snapshot_pane: { pane_id: "%0" },
    capture_since: { pane_id: "%0" },
    wait_for_text: { pane_id: "%0", patterns: ["never printed"], timeout: 0.1 },
    search_panes: { patterns: ["a"] },
    create_window: { session_id: "$0" },
    split_window: { pane_id: "%0" },
    // The destructive ones aim at objects that do not exist: what is checked before the lookup is what counts.
    respawn_pane: { pane_id: "%999" },
    send_keys: { pane_id: "%0", keys: "x", enter: false },
    send_keys_batch: { pane_id: "%0", operations: [{ keys: "x", enter: false }] },
    paste_text: { pane_id: "%0", text: "x" },
    run_command: { pane_id: "%0", command: "true", timeout: 0.1 },
    wait_for_command: { handle: "cmd1.e30", timeout: 0.1 },
    load_buffer: { name: "b", text: "x" },
    show_buffer: { name: "b" },
    paste_buffer: { name: "b", pane_id: "%0" },
    delete_buffer: { name: "b" },
    wait_for_channel: { channel: "c", timeout: 0.1 },
    signal_channel: { channel: "c" },
    rename_session: { session_id: "$0", name: "main" },
    rename_window: { window_id: "@0", name: "w" },
    select_layout: { window_id: "@0", layout: "tiled" },
    resize_pane: { pane_id: "%0", zoom: false },
    resize_window: { window_id: "@0", width: 80 },
    swap_pane: { source_pane_id: "%0", target_pane_id: "%0" },
    move_window: { window_id: "@999", session_id: "$0" },
    set_pane_title: { pane_id: "%0", title: "t" },
    set_environment: { name: "ETM_SWEEP", value: "v", global: true },
    unset_environment: { name: "ETM_SWEEP", global: true },
    show_environment: { global: true },
    show_options: { scope: "server" },
    set_option: { name: "mouse", value: "on", global: true },
    kill_session: { session_id: "$999" },
    kill_window: { window_id: "@999" },
    kill_pane: { pane_id: "%999" },
    kill_server: { socket_name: "etm-sweep-nobody" }
  }
  return byTool[tool] ?? {}
}

type Path = ReadonlyArray<string | number>

/** Every place in a tool's arguments a string goes: top-level strings, list items, map values, fields of listed objects. */
const stringPaths = (tool: McpTool): Array<Path> => {
  const paths: Array<Path> = []
  const visit = (schema: Record<string, any> | undefined, path: Path) => {
    if (schema === undefined) return
    for (const alternative of schema.anyOf ?? [schema]) {
      if (alternative.type === "string" && alternative.enum === undefined) paths.push(path)
      if (alternative.type === "array") visit(alternative.items, [...path, 0])
      if (alternative.type === "object") {
        for (const [name, property] of Object.entries(alternative.properties ?? {})) visit(property as Record<string, any>, [...path, name])
        if (typeof alternative.additionalProperties === "object") visit(alternative.additionalProperties, [...path, "ETM_NAME"])
      }
    }
  }
  for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {})) visit(property as Record<string, any>, [name])
  // Distinct paths only (a union may list the same place twice).
  return [...new Map(paths.map((path) => [path.join("."), path])).values()]
}

/** `base` with `value` at `path`, building the lists and objects on the way. */
const withValue = (base: Record<string, unknown>, path: Path, value: unknown): Record<string, unknown> => {
  const place = (container: unknown, [key, ...rest]: Path): unknown => {
    if (key === undefined) return value
    if (typeof key === "number") {
      const list = Array.isArray(container) ? [...container] : []
      list[key] = place(list[key] ?? (typeof rest[0] === "string" ? {} : undefined), rest)
      return list
    }
    const object = typeof container === "object" && container !== null && !Array.isArray(container) ? { ...container } : {}
    ;(object as Record<string, unknown>)[key] = place((object as Record<string, unknown>)[key], rest)
    return object
  }
  return place(base, path) as Record<string, unknown>
}
