/**
 * Literalization, as a property over the whole registry: hostile strings (format jobs, format
 * variables, style sequences, tmux command separators, shell substitutions, control characters,
 * unicode, leading dashes, 1 KB of `#`) go through every string argument of every tool, on a
 * private real tmux server. Nothing may run (no marker file appears), a tool may refuse a string
 * with invalid_input but never fail with tmux's `failed` for a string it accepted, and whatever a
 * tool stores (names, titles, start directories, environment values, argv, typed keys) reads back
 * exactly.
 *
 * The string arguments come from each tool's input schema: id, enum and other pattern-bound
 * strings, socket_name / socket_path and generation are swept generically; every other string
 * argument needs an entry in CASES, so a new tool or argument cannot go untested.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { execFile, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync } from "node:fs"
import { dirname, join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { SocketResolver } from "../../src/context/SocketResolver.js"
import { escapeControls } from "../../src/domain/ControlText.js"
import { WindowId } from "../../src/domain/Ids.js"
import { callTool } from "../../src/mcp/CallTool.js"
import { toolJsonSchema } from "../../src/mcp/internal/JsonSchema.js"
import { shellQuote } from "../../src/operations/commands/internal/CommandFraming.js"
import { checkName, type NameKind } from "../../src/operations/layout/Names.js"
import { escapeArgvArgument, literalizeFormat } from "../../src/tmux/Literal.js"
import { Tmux } from "../../src/tmux/Tmux.js"
import { allTools } from "../../src/tools/registry.js"
import { type AnyTool, defineTool, socketArguments } from "../../src/tools/Tool.js"
import { useWorlds, waitFor } from "../support/liveTmux.js"
import type { PrivateTmux } from "../support/PrivateTmux.js"
import { errorMeta, toolNamed } from "../support/runTool.js"
import { tmuxAtLeast, tmuxEscapesCommandOutput } from "../support/tmuxVersion.js"

const { world, defer } = useWorlds()

type Args = Record<string, unknown>

/** A hostile string; `marker` names a file that exists only if something ran a command. */
const hostileStrings = (marker: (tag: string) => string): ReadonlyArray<{ readonly label: string; readonly text: string }> => [
  { label: "#(job)", text: `#(touch ${marker("job")})` },
  { label: "#{pane_pid}", text: "#{pane_pid}" },
  { label: "##", text: "##" },
  { label: "#[style]", text: "#[fg=red]" },
  { label: "#{E:#(job)}", text: `#{E:#(touch ${marker("expand")})}` },
  { label: "#{?cond,#(job),}", text: `#{?pane_active,#(touch ${marker("cond")}),x}` },
  { label: "a;", text: "a;" },
  { label: ";", text: ";" },
  { label: "\\;", text: "\\;" },
  { label: "; command", text: `x ; run-shell "touch ${marker("run")}"` },
  { label: "{ block }", text: `{ run-shell "touch ${marker("block")}" }` },
  { label: "$(subst)", text: `$(touch ${marker("subst")})` },
  { label: "backticks", text: `\`touch ${marker("tick")}\`` },
  { label: "quotes", text: `x'; touch ${marker("quote")}; '"` },
  { label: "tab", text: "a\tb" },
  { label: "newline", text: "a\nb" },
  { label: "unicode", text: "ünï © 日本語 🎉" },
  { label: "leading -", text: "-t" },
  { label: "--", text: "--" },
  { label: "id-like", text: "%0" },
  { label: "1 KB of #", text: "#".repeat(1024) }
]

/** What a call may do with a hostile string. */
interface Ctx {
  readonly w: PrivateTmux
  /** The tmux CLI on the world's socket, without blocking the event loop (tool calls are in flight). */
  readonly tmux: (...args: Array<string>) => Promise<{ readonly status: number; readonly stdout: string; readonly stderr: string }>
  /** A fresh session (via the tmux CLI) to aim a call at; killed after the call. */
  readonly scratch: () => Promise<{ readonly session_id: string; readonly window_id: string; readonly pane_id: string }>
  /** A fresh file path for a pane's program to write to. */
  readonly outFile: () => string
  /** Makes a directory whose path ends in the text (nested where it holds "/"); returns the path, made or not. */
  readonly directory: (text: string) => string
  readonly call: (name: string, args: Args) => Promise<CallToolResult>
}

/** A way to put a hostile string into a call, and to check what the tool stored. */
interface Variant {
  readonly label: string
  /** Arguments for the call with the text in place, or undefined when this text does not apply. */
  readonly args: (ctx: Ctx, text: string) => Args | undefined | Promise<Args | undefined>
  /** A violation message when what the tool stored is not the text. */
  readonly readBack?: (ctx: Ctx, text: string, result: any, args: Args) => Promise<string | undefined> | string | undefined
  /** Error codes acceptable besides invalid_input. */
  readonly allow?: ReadonlyArray<string>
  /** The text must be accepted (a successful call). */
  readonly mustAccept?: (text: string) => boolean
}

interface ToolCase {
  /**
   * Arguments (besides the ids, which point nowhere) that pass decoding, for the generic sweeps:
   * those stop at the socket or the generation check, before any object is looked up.
   */
  readonly base?: Args
  /** Variants for every free-text argument of the tool. */
  readonly strings?: Readonly<Record<string, ReadonlyArray<Variant>>>
}

// ---------------------------------------------------------------------------------------------
// Read-back helpers: through the list tools, the tmux CLI, or files written by pane programs.

const structured = (result: CallToolResult): any => result.structuredContent

const listed = async (ctx: Ctx, tool: string, args: Args = {}): Promise<Array<any>> => {
  const result = await ctx.call(tool, { ...args, limit: 1000 })
  if (result.isError === true) throw new Error(`${tool} failed while reading back: ${JSON.stringify(result.content)}`)
  return structured(result).items
}

const mismatch = (what: string, expected: string, actual: unknown) =>
  actual === expected ? undefined : `${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`

const sessionNameReadBack = async (ctx: Ctx, text: string, sessionId: string) => {
  const session = (await listed(ctx, "list_sessions")).find((s) => s.session_id === sessionId)
  return mismatch(`list_sessions name of ${sessionId}`, text, session?.session_name)
}

const windowNameReadBack = async (ctx: Ctx, text: string, windowId: string) => {
  const window = (await listed(ctx, "list_windows")).find((w) => w.window_id === windowId)
  return mismatch(`list_windows name of ${windowId}`, text, window?.window_name)
}

const paneField = async (ctx: Ctx, paneId: string, field: string) =>
  (await listed(ctx, "list_panes", { fields: [field] })).find((p) => p.pane_id === paneId)?.[field]

/** Whether the documented name rules (operations/layout/Names.ts) take the text: then the tool must too. */
const nameRulesTake = (kind: NameKind) => (text: string) => Result.isSuccess(Effect.runSync(Effect.result(checkName(kind, text, "name"))))

/** The file a pane program writes, once it is complete (the program writes it, then a ".done" file). */
const fileReadBack = async (what: string, path: string, text: string) => {
  try {
    // A bound for a loaded machine, not a timing assertion.
    await waitFor(`${what} to be written`, () => existsSync(`${path}.done`), 30_000)
  } catch {
    return `${what}: the pane program never wrote ${path}`
  }
  return mismatch(what, text, readFileSync(path, "utf8"))
}

/** argv that writes its argument $1 to the file $2 (no shell of ours: `sh -c` is the program here). */
const printArgv = (text: string, out: string) => [
  "sh",
  "-c",
  "printf %s \"$1\" > \"$2\"; : > \"$2.done\"; exec sleep 600",
  "sh",
  text,
  out
]
/** argv that writes the variable ETM_VALUE to the file $1. */
const printVariable = (out: string) => ["sh", "-c", "printf %s \"$ETM_VALUE\" > \"$1\"; : > \"$1.done\"; exec sleep 600", "sh", out]

/** The pane a spawning tool created (or respawned). */
const spawnedPane = (tool: string, result: any): string =>
  tool === "create_session" ? result.active_pane_id : tool === "create_window" ? result.pane.pane_id : result.pane.pane_id

/** Waits until the pane's cwd (as list_panes reports it) is the directory, and says when it is not. */
const cwdReadBack = async (ctx: Ctx, paneId: string, directory: string) => {
  // Outputs escape control characters in directories (issue 10 item 11): a tab reads back as \x09.
  const expected = escapeControls(realpathSync(directory))
  // tmux reads a pane's cwd from its foreground process, which a call right after the spawn
  // (well under a millisecond over the socket transport) can beat: "" until the child has
  // its terminal, and (a child forked but not yet in its start directory) the directory it
  // inherited. So the read-back waits for the directory, up to a bound for a loaded machine.
  const deadline = Date.now() + 20_000
  let cwd = await paneField(ctx, paneId, "cwd")
  while (cwd !== expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    cwd = await paneField(ctx, paneId, "cwd")
  }
  return mismatch(`cwd of the new pane`, expected, cwd)
}

/** Variants shared by every tool that starts a process: start_directory, environment, command. */
const spawnVariants = (tool: string, base: (ctx: Ctx) => Promise<Args>): Readonly<Record<string, ReadonlyArray<Variant>>> => ({
  start_directory: [
    {
      label: "directory named by the text",
      args: async (ctx, text) => ({ ...(await base(ctx)), start_directory: ctx.directory(text) }),
      readBack: (ctx, _text, result, args) => cwdReadBack(ctx, spawnedPane(tool, result), args.start_directory as string),
      mustAccept: (text) => text.length < 255
    }
  ],
  environment: [
    {
      label: "value (object)",
      args: async (ctx, text) => {
        const out = ctx.outFile()
        return { ...(await base(ctx)), environment: { ETM_VALUE: text }, command: printVariable(out), _out: out }
      },
      readBack: (_ctx, text, _result, args) => fileReadBack("ETM_VALUE in the new pane", args._out as string, text),
      mustAccept: () => true
    },
    {
      label: "value (JSON string)",
      args: async (ctx, text) => {
        const out = ctx.outFile()
        return { ...(await base(ctx)), environment: JSON.stringify({ ETM_VALUE: text }), command: printVariable(out), _out: out }
      },
      readBack: (_ctx, text, _result, args) => fileReadBack("ETM_VALUE in the new pane", args._out as string, text),
      mustAccept: () => true
    },
    { label: "name", args: async (ctx, text) => ({ ...(await base(ctx)), environment: { [text]: "value" } }) },
    {
      label: "name (JSON string)",
      args: async (ctx, text) => ({ ...(await base(ctx)), environment: JSON.stringify({ [text]: "value" }) })
    },
    { label: "whole JSON string", args: async (ctx, text) => ({ ...(await base(ctx)), environment: text }) }
  ],
  command: [
    {
      label: "argv item",
      args: async (ctx, text) => {
        const out = ctx.outFile()
        return { ...(await base(ctx)), command: printArgv(text, out), _out: out }
      },
      readBack: (_ctx, text, _result, args) => fileReadBack("the argv item as the program got it", args._out as string, text),
      mustAccept: () => true
    },
    { label: "argv[0]", args: async (ctx, text) => ({ ...(await base(ctx)), command: [text] }) },
    { label: "argv[0] with arguments", args: async (ctx, text) => ({ ...(await base(ctx)), command: [text, "-c", "true"] }) }
  ]
})

/**
 * The `fields` of a tool that returns a pane: list_panes' names (tools/list shows no enum here), so
 * a text that is no field name is refused.
 */
const paneFieldsVariants = (base: (ctx: Ctx) => Promise<Args>): ReadonlyArray<Variant> => [
  { label: "field name", args: async (ctx, text) => ({ ...(await base(ctx)), fields: [text] }) },
  { label: "fields", args: async (ctx, text) => ({ ...(await base(ctx)), fields: text }) }
]

/**
 * The `panes` of create_session and create_window: one split of the first pane, with the text as
 * its start directory, an argv item, argv[0] or its size. The split pane is the result's panes[1].
 */
const panesVariants = (base: (ctx: Ctx) => Promise<Args>): ReadonlyArray<Variant> => [
  {
    label: "a pane's start_directory",
    args: async (ctx, text) => ({ ...(await base(ctx)), panes: [{ direction: "right", start_directory: ctx.directory(text) }] }),
    readBack: (ctx, _text, result, args) =>
      cwdReadBack(ctx, result.panes[1].pane_id, (args.panes as Array<{ start_directory: string }>)[0]!.start_directory),
    mustAccept: (text) => text.length < 255
  },
  {
    label: "a pane's argv item",
    args: async (ctx, text) => {
      const out = ctx.outFile()
      return { ...(await base(ctx)), panes: [{ direction: "right", command: printArgv(text, out) }], _out: out }
    },
    readBack: (_ctx, text, _result, args) => fileReadBack("the split pane's argv item as the program got it", args._out as string, text),
    mustAccept: () => true
  },
  { label: "a pane's argv[0]", args: async (ctx, text) => ({ ...(await base(ctx)), panes: [{ direction: "right", command: [text] }] }) },
  { label: "a pane's size", args: async (ctx, text) => ({ ...(await base(ctx)), panes: [{ direction: "right", size: text }] }) }
]

/** Scope by exact session name: a session is renamed to the text first, so the name must find it. */
const sessionNameScope = (
  base: (ctx: Ctx, scope: Args) => Args,
  check?: (ctx: Ctx, sessionId: string) => Promise<string | undefined>,
  checkResult?: (result: any, sessionId: string) => string | undefined
): Variant => ({
  label: "session named by the text",
  args: async (ctx, text) => {
    const { session_id } = await ctx.scratch()
    // As our own commands do: `#` literalized, a trailing `;` kept from ending the command.
    const literal = text.replaceAll("#", "##").replace(/;$/, "\\;")
    if ((await ctx.tmux("rename-session", "-t", session_id, "--", literal)).status !== 0) return undefined
    // Only names tmux stores exactly can be found by exact name.
    if ((await ctx.tmux("display-message", "-p", "-t", session_id, "#{session_name}")).stdout.slice(0, -1) !== text) return undefined
    return { ...base(ctx, { session_name: text }), _session: session_id }
  },
  readBack: (ctx, _text, result, args) => checkResult?.(result, args._session as string) ?? check?.(ctx, args._session as string),
  mustAccept: () => true
})

const showEnvironment = async (ctx: Ctx, sessionId: string, name: string) => {
  const shown = await ctx.tmux("show-environment", "-t", sessionId, name)
  return shown.status === 0 ? shown.stdout.slice(0, -1) : undefined
}

/** A pane running a program that records, raw, the bytes typed into it (after it says it is ready). */
const recordingPane = async (ctx: Ctx, bytes: number) => {
  const { pane_id } = await ctx.scratch()
  const out = ctx.outFile()
  await ctx.tmux(
    "respawn-pane",
    "-k",
    "-t",
    pane_id,
    "sh",
    "-c",
    "stty raw -echo; : > \"$1.ready\"; head -c \"$2\" > \"$1\"; : > \"$1.done\"; exec sleep 600",
    "sh",
    out,
    String(bytes)
  )
  await waitFor("the recording pane to be ready", () => existsSync(`${out}.ready`), 30_000)
  return { pane_id, out }
}

// ---------------------------------------------------------------------------------------------
// The table: how to aim each tool's free-text arguments at something real.

/** Ids nothing has: the generic sweeps fail before any object is looked up. */
const NOWHERE = { session_id: "$999999", window_id: "@999999", pane_id: "%999999" }

let bufferCount = 0

/**
 * `where` of a list tool: the object is named by the text through a tool of ours (which stores it
 * literally), then the filter with the text as its value must find it; the text as a key, as a
 * regex or as a neighbour's pane id may be refused, never run.
 */
const whereVariants = (
  field: string,
  name: (ctx: Ctx, text: string) => Promise<{ readonly id: string; readonly key: string } | undefined>,
  extra: ReadonlyArray<Variant> = []
): Readonly<Record<string, ReadonlyArray<Variant>>> => ({
  where: [
    {
      label: `${field} named by the text`,
      args: async (ctx, text) => {
        const named = await name(ctx, text)
        return named === undefined ? undefined : { where: { [field]: text }, limit: 1000, _id: named.id, _key: named.key }
      },
      readBack: (_ctx, _text, result, args) =>
        result.items.some((item: any) => item[args._key as string] === args._id)
          ? undefined
          : `where.${field} did not find ${args._id as string} named by the text`,
      mustAccept: () => true
    },
    { label: `${field} as a regex`, args: (_ctx, text) => ({ where: { [field]: text, regex: true } }) },
    { label: "key", args: (_ctx, text) => ({ where: { [text]: "x" } }) },
    ...extra
  ]
})

/** Names a scratch object with one of our tools; undefined when the tool refuses the text (its own rules). */
const namedBy = async (ctx: Ctx, tool: string, args: Args, id: string, key: string) => {
  const result = await ctx.call(tool, args)
  return result.isError === true ? undefined : { id, key }
}

/**
 * A tool's variant run as run_batch's only operation: the text goes through that tool's own code
 * (issue 14 item 4), and what it stored reads back the same. Keys starting with `_` stay outside
 * the operation, for the read-back.
 */
const inBatch = (tool: string, argument: string, index = 0): Variant => {
  const variant = CASES[tool]!.strings![argument]![index]!
  return {
    label: `${tool}.${argument} in a batch (${variant.label})`,
    args: async (ctx, text) => {
      const args = await variant.args(ctx, text)
      if (args === undefined) return undefined
      const kept = Object.entries(args).filter(([key]) => key.startsWith("_"))
      const sent = Object.fromEntries(Object.entries(args).filter(([key]) => !key.startsWith("_")))
      return { operations: [{ tool, arguments: sent }], _inner: args, ...Object.fromEntries(kept) }
    },
    ...(variant.mustAccept === undefined ? {} : { mustAccept: variant.mustAccept }),
    readBack: async (ctx, text, result, args) => {
      const operation = result.results[0]
      if (operation.ok !== true) {
        const allowed = ["invalid_input", ...(variant.allow ?? [])]
        if (!allowed.includes(operation.error.code)) return `the operation failed: ${operation.error.code}: ${operation.error.message}`
        return variant.mustAccept?.(text) === true ? `the operation refused a string it must accept: ${operation.error.message}` : undefined
      }
      return variant.readBack?.(ctx, text, operation.result, args._inner as Args)
    }
  }
}

const CASES: Readonly<Record<string, ToolCase>> = {
  run_batch: {
    strings: {
      operations: [
        { label: "tool name", args: (_ctx, text) => ({ operations: [{ tool: text }] }) },
        { label: "argument name", args: (_ctx, text) => ({ operations: [{ tool: "list_sessions", arguments: { [text]: "x" } }] }) },
        ...[["rename_session", "name"], ["rename_window", "name"], ["set_pane_title", "title"], ["send_keys", "keys"]].map((
          [tool, argument]
        ) => ({
          label: `${tool}.${argument}`,
          args: (ctx: Ctx, text: string) => inBatch(tool!, argument!).args(ctx, text),
          readBack: (ctx: Ctx, text: string, result: any, args: Args) => inBatch(tool!, argument!).readBack!(ctx, text, result, args),
          mustAccept: (text: string) => inBatch(tool!, argument!).mustAccept?.(text) ?? false
        }))
      ]
    }
  },
  list_sessions: {
    strings: whereVariants("session_name", async (ctx, text) => {
      const { session_id } = await ctx.scratch()
      return namedBy(ctx, "rename_session", { session_id, name: text }, session_id, "session_id")
    })
  },
  list_windows: {
    strings: whereVariants("window_name", async (ctx, text) => {
      const { window_id } = await ctx.scratch()
      return namedBy(ctx, "rename_window", { window_id, name: text }, window_id, "window_id")
    })
  },
  list_panes: {
    strings: whereVariants("title", async (ctx, text) => {
      const { pane_id } = await ctx.scratch()
      return namedBy(ctx, "set_pane_title", { pane_id, title: text }, pane_id, "pane_id")
    }, [{ label: "neighbour pane id", args: (_ctx, text) => ({ where: { right_of: text } }), allow: ["not_found"] }])
  },
  list_servers: {
    strings: {
      extra_socket_paths: [
        { label: "extra socket path", args: (ctx, text) => ({ extra_socket_paths: [join(ctx.w.tmpdir, text)] }), mustAccept: () => true }
      ]
    }
  },
  get_session_info: {
    base: { session_id: NOWHERE.session_id },
    strings: {
      session_name: [
        sessionNameScope(
          (_ctx, scope) => scope,
          undefined,
          (result, sessionId) => mismatch("the session found by exact name", sessionId, result.session_id)
        ),
        { label: "no such session", args: (_ctx, text) => ({ session_name: text }), allow: ["not_found"] }
      ]
    }
  },
  select_window: { base: { window_id: NOWHERE.window_id } },
  select_pane: { base: { pane_id: NOWHERE.pane_id } },
  resize_pane: { base: { width: 10 } },
  resize_window: { base: { width: 10 } },
  create_session: {
    strings: {
      session_name: [
        {
          label: "session name",
          args: (_ctx, text) => ({ session_name: text }),
          mustAccept: nameRulesTake("session name"),
          readBack: async (ctx, text, result) =>
            mismatch("create_session's session_name", text, result.session_name) ??
              (await sessionNameReadBack(ctx, text, result.session_id))
        }
      ],
      window_name: [
        {
          label: "window name",
          args: (_ctx, text) => ({ window_name: text }),
          mustAccept: nameRulesTake("window name"),
          readBack: (ctx, text, result) => windowNameReadBack(ctx, text, result.active_window_id)
        }
      ],
      ...spawnVariants("create_session", async () => ({})),
      panes: panesVariants(async () => ({})),
      fields: paneFieldsVariants(async () => ({}))
    }
  },
  create_window: {
    strings: {
      window_name: [
        {
          label: "window name",
          args: async (ctx, text) => ({ session_id: (await ctx.scratch()).session_id, window_name: text }),
          mustAccept: nameRulesTake("window name"),
          readBack: async (ctx, text, result) =>
            mismatch("create_window's window_name", text, result.window.window_name) ??
              (await windowNameReadBack(ctx, text, result.window.window_id))
        }
      ],
      ...spawnVariants("create_window", async (ctx) => ({ session_id: (await ctx.scratch()).session_id })),
      panes: panesVariants(async (ctx) => ({ session_id: (await ctx.scratch()).session_id })),
      fields: paneFieldsVariants(async (ctx) => ({ session_id: (await ctx.scratch()).session_id }))
    }
  },
  split_window: {
    strings: {
      ...spawnVariants("split_window", async (ctx) => ({ pane_id: (await ctx.scratch()).pane_id })),
      fields: paneFieldsVariants(async (ctx) => ({ pane_id: (await ctx.scratch()).pane_id }))
    }
  },
  respawn_pane: {
    strings: {
      ...spawnVariants("respawn_pane", async (ctx) => ({ pane_id: (await ctx.scratch()).pane_id })),
      fields: paneFieldsVariants(async (ctx) => ({ pane_id: (await ctx.scratch()).pane_id }))
    }
  },
  rename_session: {
    base: { name: "renamed" },
    strings: {
      name: [
        {
          label: "session name",
          args: async (ctx, text) => ({ session_id: (await ctx.scratch()).session_id, name: text }),
          mustAccept: nameRulesTake("session name"),
          readBack: async (ctx, text, result) =>
            mismatch("rename_session's session_name", text, result.session_name) ??
              (await sessionNameReadBack(ctx, text, result.session_id))
        }
      ]
    }
  },
  rename_window: {
    base: { name: "renamed" },
    strings: {
      name: [
        {
          label: "window name",
          args: async (ctx, text) => ({ window_id: (await ctx.scratch()).window_id, name: text }),
          mustAccept: nameRulesTake("window name"),
          readBack: async (ctx, text, result) =>
            mismatch("rename_window's window_name", text, result.window_name) ?? (await windowNameReadBack(ctx, text, result.window_id))
        }
      ]
    }
  },
  set_pane_title: {
    base: { title: "title" },
    strings: {
      title: [
        {
          label: "pane title",
          // tmux 3.7 and later store a title's backslash doubled: set_pane_title then fails and says
          // what was stored (shape.test.ts), so such a text cannot read back.
          args: async (ctx, text) =>
            tmuxAtLeast("3.7") && text.includes("\\") ? undefined : { pane_id: (await ctx.scratch()).pane_id, title: text },
          mustAccept: nameRulesTake("pane title"),
          readBack: async (ctx, text, result) =>
            mismatch("set_pane_title's title", text, result.title) ??
              mismatch("list_panes title", text, await paneField(ctx, result.pane_id, "title"))
        }
      ]
    }
  },
  select_layout: {
    base: { layout: "tiled" },
    strings: {
      layout: [
        { label: "layout", args: async (ctx, text) => ({ window_id: (await ctx.scratch()).window_id, layout: text }) },
        // Shaped like a layout string, but no layout of this window: tmux rejects them.
        { label: "layout-shaped", args: async (ctx) => ({ window_id: (await ctx.scratch()).window_id, layout: "ffff,80x24,0,0,0" }) },
        { label: "layout-shaped braces", args: async (ctx) => ({ window_id: (await ctx.scratch()).window_id, layout: "0000,{}[]" }) }
      ]
    }
  },
  send_keys: {
    base: { keys: "x", enter: false },
    strings: {
      keys: [true, false].map(
        (literal): Variant => ({
          label: `keys (literal ${literal})`,
          args: async (ctx, text) => {
            const { pane_id, out } = await recordingPane(ctx, Buffer.byteLength(text))
            return { pane_id, keys: text, literal, enter: false, _out: out }
          },
          mustAccept: () => true,
          readBack: (_ctx, text, _result, args) => fileReadBack("the bytes the pane received", args._out as string, text)
        })
      ),
      wait: [{
        label: "wait's patterns (matched here, never by tmux)",
        args: async (ctx, text) => ({
          pane_id: (await ctx.scratch()).pane_id,
          keys: "x",
          enter: false,
          wait: { patterns: [text], stop_patterns: [text], ignore_patterns: [text], timeout: 0.2 }
        }),
        mustAccept: () => true
      }]
    }
  },
  run_command: {
    base: { command: "true" },
    strings: {
      command: [
        {
          // The command is run by the pane's shell by design; what must hold is that the shell gets
          // it byte for byte: here it prints the hostile text (quoted for the shell) into a file.
          label: "command text reaches the shell exactly",
          args: async (ctx, text) => {
            const { pane_id } = await ctx.scratch()
            const out = ctx.outFile()
            return { pane_id, command: `printf '%s' ${shellQuote(text)} > ${out}; : > ${out}.done`, timeout: 20, _out: out }
          },
          mustAccept: () => true,
          readBack: (_ctx, text, _result, args) => fileReadBack("the text the shell printed", args._out as string, text)
        }
      ],
      match: [{
        label: "match's patterns (matched here, never by tmux)",
        args: async (ctx, text) => ({
          pane_id: (await ctx.scratch()).pane_id,
          command: "echo x",
          timeout: 20,
          match: { patterns: [text], context: 1 }
        }),
        mustAccept: () => true
      }]
    }
  },
  wait_for_command: {
    strings: {
      handle: [{ label: "handle", args: (_ctx, text) => ({ handle: text }) }],
      match: [{
        label: "match's patterns, with a live handle",
        args: async (ctx, text) => {
          const started = await ctx.call("run_command", {
            pane_id: (await ctx.scratch()).pane_id,
            command: "sleep 0.3; echo x",
            timeout: 0.05
          })
          return { handle: structured(started).handle, timeout: 20, match: { patterns: [text] } }
        },
        mustAccept: () => true
      }]
    }
  },
  send_keys_batch: {
    base: { operations: [{ keys: "x", enter: false }] },
    strings: {
      operations: [true, false].map(
        (literal): Variant => ({
          label: `operations[].keys (literal ${literal})`,
          args: async (ctx, text) => {
            const { pane_id, out } = await recordingPane(ctx, Buffer.byteLength(text))
            return { pane_id, operations: [{ keys: text, literal, enter: false }], _out: out }
          },
          mustAccept: () => true,
          readBack: (_ctx, text, _result, args) => fileReadBack("the bytes the pane received", args._out as string, text)
        })
      )
    }
  },
  paste_text: {
    base: { text: "x" },
    strings: {
      text: [
        {
          label: "pasted text",
          args: async (ctx, text) => {
            const { pane_id, out } = await recordingPane(ctx, Buffer.byteLength(text))
            return { pane_id, text, _out: out }
          },
          mustAccept: () => true,
          // A paste sends newlines as carriage returns, as a terminal does.
          readBack: (_ctx, text, _result, args) =>
            fileReadBack("the bytes the pane received", args._out as string, text.replaceAll("\n", "\r"))
        }
      ],
      wait: [{
        label: "wait's patterns (matched here, never by tmux)",
        args: async (ctx, text) => ({
          pane_id: (await ctx.scratch()).pane_id,
          text: "x",
          wait: { patterns: [text], stop_patterns: [text], ignore_patterns: [text], timeout: 0.2 }
        }),
        mustAccept: () => true
      }]
    }
  },
  clear_pane: { base: { pane_id: NOWHERE.pane_id } },
  load_buffer: {
    base: { name: "sweep", text: "x" },
    strings: {
      text: [
        {
          label: "buffer text",
          // The sweep runs calls side by side: each gets a buffer of its own.
          args: (_ctx, text) => ({ name: `sweep${++bufferCount}`, text }),
          mustAccept: () => true,
          readBack: async (ctx, text, _result, args) =>
            mismatch("the buffer's text", text, (await ctx.tmux("show-buffer", "-b", `etm.${args.name as string}`)).stdout)
        }
      ]
    }
  },
  capture_since: {
    strings: { cursor: [{ label: "cursor", args: (_ctx, text) => ({ pane_id: NOWHERE.pane_id, cursor: text }), allow: ["not_found"] }] }
  },
  wait_for_text: {
    base: { patterns: ["x"], timeout: 0.2 },
    strings: {
      patterns: [
        {
          label: "pattern (matched here, never by tmux)",
          args: async (ctx, text) => ({ pane_id: (await ctx.scratch()).pane_id, patterns: [text], timeout: 0.2 }),
          mustAccept: () => true
        }
      ],
      stop_patterns: [
        {
          label: "stop pattern",
          args: async (ctx, text) => ({ pane_id: (await ctx.scratch()).pane_id, patterns: null, stop_patterns: [text], timeout: 0.2 }),
          mustAccept: () => true
        }
      ],
      ignore_patterns: [{
        label: "ignore pattern (matched here, never by tmux)",
        args: async (ctx, text) => ({
          pane_id: (await ctx.scratch()).pane_id,
          patterns: null,
          settle_ms: 50,
          ignore_patterns: [text],
          timeout: 0.2
        }),
        mustAccept: () => true
      }],
      since: [{
        label: "since cursor",
        args: (_ctx, text) => ({ pane_id: NOWHERE.pane_id, patterns: ["x"], since: text }),
        allow: ["not_found"]
      }]
    }
  },
  get_pane_info: {
    strings: {
      variables: [{
        label: "variable name",
        args: async (ctx, text) => ({ pane_id: (await ctx.scratch()).pane_id, variables: ["pane_id", text] })
      }]
    }
  },
  search_panes: {
    base: { patterns: ["x"] },
    strings: {
      patterns: [{ label: "pattern (matched here, never by tmux)", args: (_ctx, text) => ({ patterns: [text] }), mustAccept: () => true }],
      // Names as list_panes' (tools/list shows no enum here): a text that is no field name is refused.
      fields: [
        { label: "field name", args: (_ctx, text) => ({ fields: [text] }) },
        { label: "fields", args: (_ctx, text) => ({ fields: text }) }
      ]
    }
  },
  set_environment: {
    base: { session_id: NOWHERE.session_id, name: "ETM_VALUE", value: "v" },
    strings: {
      value: [
        {
          label: "value",
          args: async (ctx, text) => {
            const { session_id } = await ctx.scratch()
            return { session_id, name: "ETM_VALUE", value: text, _session: session_id }
          },
          readBack: async (ctx, text, _result, args) =>
            mismatch(
              "show-environment of the session",
              `ETM_VALUE=${text}`,
              await showEnvironment(ctx, args._session as string, "ETM_VALUE")
            ),
          mustAccept: () => true
        }
      ],
      session_name: [
        sessionNameScope(
          (_ctx, scope) => ({ ...scope, name: "ETM_VALUE", value: "scoped" }),
          async (ctx, sessionId) =>
            mismatch("the variable in the named session", "ETM_VALUE=scoped", await showEnvironment(ctx, sessionId, "ETM_VALUE"))
        ),
        { label: "no such session", args: (_ctx, text) => ({ session_name: text, name: "ETM_VALUE", value: "v" }), allow: ["not_found"] }
      ]
    }
  },
  unset_environment: {
    base: { session_id: NOWHERE.session_id, name: "ETM_VALUE" },
    strings: {
      session_name: [
        sessionNameScope((_ctx, scope) => ({ ...scope, name: "ETM_VALUE" })),
        { label: "no such session", args: (_ctx, text) => ({ session_name: text, name: "ETM_VALUE" }), allow: ["not_found"] }
      ]
    }
  },
  show_environment: {
    base: { session_id: NOWHERE.session_id },
    strings: {
      session_name: [
        sessionNameScope((_ctx, scope) => scope),
        { label: "no such session", args: (_ctx, text) => ({ session_name: text }), allow: ["not_found"] }
      ]
    }
  },
  show_options: {
    base: { scope: "server" },
    strings: {
      name: [
        { label: "option name", args: (_ctx, text) => ({ scope: "session", global: true, name: text }) },
        {
          // A user option whose name and value hold the text: the value reads back as tmux stores it.
          label: "user option name and value",
          args: async (ctx, text) => {
            const name = `@etm${++userOptions}${text}`
            // eslint-disable-next-line no-control-regex
            if (/[\s\0-\x1f\x7f]/.test(text)) return { scope: "session", global: true, name }
            // set-option expands formats in the name: literalized, tmux stores it as written.
            const set = await ctx.tmux("set-option", "-g", "--", escapeArgvArgument(literalizeFormat(name)), escapeArgvArgument(text))
            return set.status === 0 ? { scope: "session", global: true, name, _value: text } : undefined
          },
          readBack: (_ctx, _text, result, args) =>
            args._value === undefined || tmuxEscapesCommandOutput()
              ? undefined
              : mismatch("the user option's value", args._value as string, result.items[0]?.value)
        }
      ],
      target: [{ label: "target", args: (_ctx, text) => ({ scope: "window", target: text }), allow: ["not_found"] }]
    }
  },
  set_option: {
    base: { name: "mouse", value: "on", global: true },
    strings: {
      name: [{ label: "option name", args: (_ctx, text) => ({ name: text, value: "on", global: true }) }],
      value: [
        { label: "flag value", args: (_ctx, text) => ({ name: "mouse", value: text, global: true }) },
        { label: "choice value", args: (_ctx, text) => ({ name: "mode-keys", value: text, global: true }) },
        { label: "number value", args: (_ctx, text) => ({ name: "history-limit", value: text, global: true }) }
      ],
      target: [{ label: "target", args: (_ctx, text) => ({ name: "mode-keys", value: "vi", target: text }), allow: ["not_found"] }]
    }
  }
}

let userOptions = 0

// ---------------------------------------------------------------------------------------------
// String arguments, from the JSON schema tools/list sends.

type Json = Record<string, any>

/** Every string node of a property's schema (through unions, arrays and maps). */
const stringNodes = (schema: Json): Array<Json> => {
  const nodes: Array<Json> = []
  const visit = (node: unknown) => {
    if (typeof node !== "object" || node === null) return
    const n = node as Json
    if (
      n.type === "string" || typeof n.const === "string" || (Array.isArray(n.enum) && n.enum.some((v: unknown) => typeof v === "string"))
    ) {
      nodes.push(n)
    }
    for (const key of ["anyOf", "oneOf", "allOf"]) if (Array.isArray(n[key])) n[key].forEach(visit)
    visit(n.items)
    visit(n.additionalProperties)
    if (n.propertyNames !== undefined) nodes.push({ type: "string", ...n.propertyNames })
    if (n.type === "object" && n.additionalProperties !== undefined && n.propertyNames === undefined) nodes.push({ type: "string" })
    // An object listed open (the list tools' `where`): its keys and values may be strings.
    if (n.type === "object" && n.properties === undefined && n.additionalProperties === undefined) nodes.push({ type: "string" })
  }
  visit(schema)
  return nodes
}

const isBound = (node: Json) => typeof node.pattern === "string" || Array.isArray(node.enum) || node.const !== undefined

/** Arguments taking free text, and those bound to a pattern or enum (with a check to skip texts that fit). */
const stringArguments = (tool: AnyTool) => {
  // With the id patterns tools/list leaves out: they tell the id arguments apart.
  const schema = toolJsonSchema(tool.input, "input with ids") as Json
  const free: Array<string> = []
  const bound: Array<{ readonly name: string; readonly fits: (text: string) => boolean }> = []
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>)) {
    const nodes = stringNodes(property)
    if (nodes.length === 0) continue
    if (nodes.every(isBound)) {
      bound.push({
        name,
        fits: (text) =>
          nodes.some(
            (node) =>
              (node.pattern !== undefined && new RegExp(node.pattern as string).test(text)) ||
              (Array.isArray(node.enum) && node.enum.includes(text)) ||
              node.const === text
          )
      })
    } else free.push(name)
  }
  return { free, bound, required: new Set<string>((schema.required ?? []) as Array<string>), schema }
}

/** Generic arguments for a tool: nonexistent ids for required id arguments. */
const synthesizedBase = (tool: AnyTool): Args => {
  const { schema, required } = stringArguments(tool)
  const args: Args = {}
  for (const name of required) {
    const pattern = (schema.properties?.[name] as Json | undefined)?.pattern as string | undefined
    const id = pattern?.includes("%")
      ? NOWHERE.pane_id
      : pattern?.includes("@")
      ? NOWHERE.window_id
      : pattern?.includes("$")
      ? NOWHERE.session_id
      : undefined
    if (id !== undefined) args[name] = id
  }
  return args
}

const GENERIC = new Set(["socket_name", "socket_path", "generation"])

/** Tools whose answer about a dead socket is data, not an error (start_server starts one). */
const REPORTS_DEAD_SOCKETS = new Set(["where_am_i", "get_server_info", "start_server"])

const lines = (text: string) => text.split("\n").filter((line) => line !== "")

/** Runs `work` over `items`, at most `limit` at a time. */
const inPool = async <A>(items: ReadonlyArray<A>, limit: number, work: (item: A) => Promise<void>) => {
  let next = 0
  const worker = async () => {
    while (next < items.length) await work(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}

interface Sweep {
  readonly calls: number
  readonly accepted: number
  readonly violations: ReadonlyArray<string>
}

/** Runs every hostile string through every string argument of one tool. */
/** Sweeps one tool; `extra` adds tools (and their table entries) that the registry does not have. */
const sweepTool = async (
  w: PrivateTmux,
  tool: AnyTool,
  extra: { readonly tools: ReadonlyArray<AnyTool>; readonly cases: Readonly<Record<string, ToolCase>> } = { tools: [], cases: {} }
): Promise<Sweep> => {
  // One runtime for the whole sweep: building the layers per call would cost more than the calls.
  const runtime = ManagedRuntime.make(w.layer({ flags: { safety: "destructive" } }))
  const named = (name: string) => extra.tools.find((t) => t.name === name) ?? toolNamed(name)
  try {
    return await sweepWith(w, tool, { ...CASES, ...extra.cases }, (name, args) => runtime.runPromise(callTool(named(name), args)))
  } finally {
    await runtime.dispose()
  }
}

const sweepWith = async (
  w: PrivateTmux,
  tool: AnyTool,
  cases: Readonly<Record<string, ToolCase>>,
  call: (name: string, args: Args) => Promise<CallToolResult>
): Promise<Sweep> => {
  const markers = join(w.tmpdir, "markers")
  const outputs = join(w.tmpdir, "out")
  const directories = join(w.tmpdir, "dirs")
  for (const dir of [markers, outputs, directories]) mkdirSync(dir, { recursive: true })
  const baseSession = w.tmuxOk("new-session", "-d", "-P", "-F", "#{session_id}", "-s", "base").trim()
  let counter = 0

  const { free, bound } = stringArguments(tool)
  const entry = cases[tool.name]
  const base: Args = { ...synthesizedBase(tool), ...entry?.base }
  const violations: Array<string> = []
  const uncovered = free.filter((name) => !GENERIC.has(name) && entry?.strings?.[name] === undefined)
  if (uncovered.length > 0) violations.push(`${tool.name}: no CASES entry for free-text argument(s) ${uncovered.join(", ")}`)

  // Generic sweeps stop at the socket, the generation or decoding: no object is touched, so they run side by side.
  const generic: Array<{ readonly argument: string; readonly variant: Variant }> = []
  const specific: Array<{ readonly argument: string; readonly variant: Variant }> = []
  for (const name of free) {
    if (name === "socket_name") {
      generic.push({
        argument: name,
        variant: { label: "socket name", args: (_ctx, text) => ({ ...base, socket_name: text }), allow: ["no_server"] }
      })
    } else if (name === "socket_path") {
      const variant: Variant = {
        label: "socket path",
        args: (_ctx, text) => {
          const path = `${join(w.tmpdir, "sockets", String(++counter))}/${text}`
          try {
            mkdirSync(dirname(path), { recursive: true })
          } catch {
            // A path the file system cannot hold: the tool must still not fail in tmux's words.
          }
          return { ...base, socket_path: path }
        },
        allow: ["no_server"]
      }
      generic.push({ argument: name, variant })
    } else if (name === "generation") {
      generic.push({
        argument: name,
        variant: { label: "generation", args: (_ctx, text) => ({ ...base, generation: text }), allow: ["not_found"] }
      })
    } else {
      for (const variant of entry?.strings?.[name] ?? []) specific.push({ argument: name, variant })
    }
  }
  for (const { name, fits } of bound) {
    generic.push({
      argument: name,
      variant: { label: "bound string", args: (_ctx, text) => (fits(text) ? undefined : { ...base, [name]: text }) }
    })
  }

  let calls = 0
  let accepted = 0
  const described = new Map<string, string>()
  const tmux = (...args: Array<string>) =>
    new Promise<{ status: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        "tmux",
        ["-f", "/dev/null", "-L", w.socketName, ...args],
        { env: w.env, encoding: "utf8", timeout: 10_000 },
        (error, stdout, stderr) =>
          resolve({ status: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
      )
    })
  const startedServers: Array<string> = []
  defer(() => {
    for (const path of startedServers) spawnSync("tmux", ["-S", path, "kill-server"], { env: w.env })
  })

  const runOne = async ({ argument, variant, label, text }: { argument: string; variant: Variant; label: string; text: string }) => {
    const where = `${tool.name}.${argument} (${variant.label}) with ${label}`
    const sessions: Array<string> = []
    const ctx: Ctx = {
      w,
      tmux,
      scratch: async () => {
        const made = await tmux("new-session", "-d", "-P", "-F", "#{session_id} #{window_id} #{pane_id}", "-x", "80", "-y", "24")
        const [session_id = "", window_id = "", pane_id = ""] = made.stdout.trim().split(" ")
        if (made.status !== 0 || pane_id === "") throw new Error(`tmux new-session failed: ${made.stderr}`)
        sessions.push(session_id)
        return { session_id, window_id, pane_id }
      },
      outFile: () => join(outputs, String(++counter)),
      directory: (name) => {
        const path = `${join(directories, String(++counter))}/${name}`
        try {
          mkdirSync(path, { recursive: true })
        } catch {
          // The file system refuses it (a name over 255 bytes): the tool must then refuse it too.
        }
        return path
      },
      call
    }
    try {
      const args = await variant.args(ctx, text)
      if (args === undefined) return
      calls++
      const sent = Object.fromEntries(Object.entries(args).filter(([key]) => !key.startsWith("_")))
      const result = await call(tool.name, sent)
      if (result.isError === true) {
        const error = errorMeta(result)
        const allowed = new Set(["invalid_input", ...(variant.allow ?? [])])
        if (!allowed.has(error.code)) violations.push(`${where}: ${error.code}: ${error.text}`)
        else if (error.code === "invalid_input" && variant.mustAccept?.(text) === true) {
          violations.push(`${where}: refused a string it must accept: ${error.text}`)
        }
        return
      }
      accepted++
      const value = structured(result)
      if (tool.name === "start_server") startedServers.push(value.socket_path)
      else if (argument === "socket_name" || argument === "socket_path") {
        if (!REPORTS_DEAD_SOCKETS.has(tool.name)) violations.push(`${where}: succeeded on a socket where no server runs`)
      }
      if (tool.name === "create_session") sessions.push(value.session_id)
      const wrong = await variant.readBack?.(ctx, text, value, args)
      if (wrong !== undefined) violations.push(`${where}: ${wrong}`)
    } finally {
      for (const id of sessions) if (id !== baseSession) await tmux("kill-session", "-t", id)
    }
  }

  const jobs = (plans: ReadonlyArray<{ readonly argument: string; readonly variant: Variant }>) =>
    plans.flatMap(({ argument, variant }) => {
      const call = ++counter
      return hostileStrings((tag) => {
        const path = join(markers, `${call}-${tag}`)
        described.set(path, `${tool.name}.${argument} (${variant.label})`)
        return path
      }).map(({ label, text }) => ({ argument, variant, label, text }))
    })
  await inPool(jobs(generic), 8, runOne)
  // The jobs of one text run one after another: a variant may make an object named by the text
  // (a session "named by the text") that another variant of the same text expects not to exist
  // ("no such session"); side by side, that one would find and change it.
  const byText = new Map<string, Array<ReturnType<typeof jobs>[number]>>()
  for (const job of jobs(specific)) byText.set(job.label, [...(byText.get(job.label) ?? []), job])
  await inPool([...byText.values()], 4, async (group) => {
    for (const job of group) await runOne(job)
  })

  for (const path of startedServers.splice(0)) spawnSync("tmux", ["-S", path, "kill-server"], { env: w.env })
  if (w.tmux("has-session", "-t", baseSession).status !== 0) violations.push(`${tool.name}: the base session is gone`)
  const leftovers = lines(w.tmux("list-sessions", "-F", "#{session_id}").stdout).filter((id) => id !== baseSession)
  if (leftovers.length > 0) violations.push(`${tool.name}: sessions left behind: ${leftovers.join(" ")}`)

  // A positive control: a job tmux does run must leave its marker, so the absence of the others
  // means something. tmux kills a client's format jobs when the client exits, so a job started by
  // a short-lived client may or may not run: markers catch a leak only sometimes, which is why every
  // stored text is also read back (an expanded `#{pane_pid}` or `#(...)` reads back differently).
  // Here the client stays a moment, so the control job always runs (display-message -p runs none).
  const control = join(w.tmpdir, "control")
  w.tmuxOk("rename-session", "-t", baseSession, `base#(touch ${control})`, ";", "run-shell", "sleep 0.3")
  await waitFor("tmux to run the control job", () => existsSync(control), 30_000)
  for (const name of readdirSync(markers)) {
    violations.push(`a command ran: marker ${name} from ${described.get(join(markers, name)) ?? "?"}`)
  }
  return { calls, accepted, violations }
}

/** Which tools the sweep covered, and how (printed once, for the record). */
const coverage: Array<string> = []

describe("no string argument of any tool makes tmux run anything, and stored text reads back exactly", () => {
  it("the table has no entries for tools the registry lacks", () => {
    const names = new Set(allTools.map((tool) => tool.name))
    expect(Object.keys(CASES).filter((name) => !names.has(name))).toEqual([])
  })

  for (const tool of allTools) {
    it(
      tool.name,
      async () => {
        const sweep = await sweepTool(world(), tool)
        expect(sweep.violations).toEqual([])
        // Every tool has at least the socket arguments (list_servers its paths) to sweep.
        expect(sweep.calls).toBeGreaterThan(0)
        // Where some text must be taken, some was: the sweep did not test refusals only.
        const mustTakeSome = Object.values(CASES[tool.name]?.strings ?? {}).some((variants) => variants.some((v) => v.mustAccept))
        if (mustTakeSome) expect(sweep.accepted).toBeGreaterThan(0)
        coverage.push(`${tool.name}: ${sweep.calls} calls, ${sweep.accepted} accepted`)
      },
      300_000
    )
  }

  it("the sweep catches a tool that hands a name to tmux without literalizing it", async () => {
    const unsafe = defineTool({
      name: "unsafe_rename_window",
      title: "Rename a window, unsafely",
      description: "Test double: passes the name to rename-window as it is, so tmux expands formats in it.",
      tier: "mutating",
      group: "layout",
      hints: { idempotent: true },
      input: Schema.Struct({ window_id: WindowId, name: Schema.String, ...socketArguments }),
      output: Schema.Struct({ window_id: Schema.String, window_name: Schema.String }),
      handler: (input) =>
        Effect.gen(function*() {
          const socket = yield* (yield* SocketResolver).resolve(input)
          yield* (yield* Tmux).run(socket, [["rename-window", "-t", input.window_id, "--", input.name]])
          return { window_id: input.window_id, window_name: input.name }
        })
    })
    const sweep = await sweepTool(world(), unsafe, { tools: [unsafe], cases: { unsafe_rename_window: CASES.rename_window! } })
    const caught = (label: string) => sweep.violations.some((v) => v.startsWith(`unsafe_rename_window.name (window name) with ${label}:`))
    expect(caught("#{pane_pid}")).toBe(true)
    expect(caught("#(job)")).toBe(true)
    expect(caught("##")).toBe(true)
    // The same table entry passes for the real tool (its own test above): the difference is literalization.
    expect(caught("unicode")).toBe(false)
  }, 300_000)

  it("the sweep never runs two jobs of the same text side by side", async () => {
    // A slow variant (it holds its text a while) and a fast one over the same texts: were the jobs
    // pooled variant after variant, the fast job of a text would start while the slow one still held it.
    const held = new Set<string>()
    const overlaps: Array<string> = []
    const probe = defineTool({
      name: "probe_names",
      title: "Probe the sweep's schedule",
      description: "Test double: answers every call, touching nothing.",
      hints: { idempotent: true },
      tier: "mutating",
      group: "layout",
      input: Schema.Struct({ name: Schema.String }),
      output: Schema.Struct({ name: Schema.String }),
      handler: (input) => Effect.succeed({ name: input.name })
    })
    const holding: Variant = {
      label: "holds the text",
      args: (_ctx, text) => {
        held.add(text)
        return { name: text }
      },
      readBack: async (_ctx, text) => {
        await new Promise((resolve) => setTimeout(resolve, 300))
        held.delete(text)
        return undefined
      }
    }
    const checking: Variant = {
      label: "checks the text is free",
      args: (_ctx, text) => {
        if (held.has(text)) overlaps.push(text)
        return { name: text }
      }
    }
    const sweep = await sweepWith(
      world(),
      probe,
      { probe_names: { strings: { name: [holding, checking] } } },
      async (_name, args) => ({ content: [], structuredContent: args })
    )
    expect(sweep.violations).toEqual([])
    expect(sweep.accepted).toBeGreaterThan(0)
    expect(overlaps).toEqual([])
  }, 300_000)

  afterAll(() => {
    if (coverage.length > 0) process.stderr.write(`literalization sweep:\n  ${coverage.join("\n  ")}\n`)
  })
})
