/**
 * The library's public surface, read from the source by the TypeScript compiler: the namespaces of
 * `effect-tmux-mcp` (src/index.ts) and `effect-tmux-mcp/testing` (src/testing.ts) and the members
 * of each are pinned here, so an accidental export (or a lost one) fails; every namespace and member
 * has a doc comment; none comes from an `internal/` folder or is one of the helpers that stay inside.
 */
import { describe, expect, it } from "@effect/vitest"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const repository = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
const ENTRIES = { index: join(repository, "src/index.ts"), testing: join(repository, "src/testing.ts") } as const
type Entry = keyof typeof ENTRIES

/** Entry -> namespace -> its members (values and types), sorted. */
const PINNED: Record<Entry, Record<string, ReadonlyArray<string>>> = {
  index: {
    Audit: ["Audit", "AuditRecord", "AuditShape", "layer", "layerSilent"],
    Buffers: [
      "BufferContent",
      "BufferDeleted",
      "BufferInfo",
      "BufferLoaded",
      "BufferName",
      "BufferPasted",
      "MAX_BUFFER_BYTES",
      "PasteOptions",
      "deleteBuffer",
      "listBuffers",
      "loadBuffer",
      "pasteBuffer",
      "showBuffer"
    ],
    Capture: ["CaptureLine", "CaptureOptions", "capturePane"],
    Channels: ["ChannelName", "ChannelSignalled", "ChannelWaited", "signalChannel", "waitForChannel"],
    Create: [
      "CreateSessionRequest",
      "CreateWindowRequest",
      "CreatedSession",
      "CreatedWindow",
      "RespawnPaneRequest",
      "SpawnRequest",
      "SpawnedPane",
      "SplitDirection",
      "SplitWindowRequest",
      "createSession",
      "createWindow",
      "respawnPane",
      "splitWindow"
    ],
    Environment: [
      "DEFAULT_ENVIRONMENT_MAX_BYTES",
      "EnvironmentListing",
      "EnvironmentSet",
      "EnvironmentTarget",
      "EnvironmentUnset",
      "MAX_ENVIRONMENT_VALUE_BYTES",
      "setEnvironment",
      "showEnvironment",
      "unsetEnvironment"
    ],
    Errors: [
      "Conflict",
      "ConflictKind",
      "DenialKind",
      "Denied",
      "ErrorCode",
      "Failed",
      "FailureReason",
      "InvalidInput",
      "NoServer",
      "NotFound",
      "ObjectKind",
      "TmuxError",
      "ToolError",
      "errorCode",
      "happenedBeforeTmux",
      "hint",
      "isRetryable"
    ],
    Hierarchy: [
      "Listing",
      "MAX_PLACEMENTS",
      "MAX_PLACEMENT_NAME_CHARS",
      "MAX_VARIABLES",
      "SessionTarget",
      "TreeScope",
      "VARIABLE_NAME",
      "getPane",
      "getPaneDetail",
      "getPaneWindow",
      "getSession",
      "getWindow",
      "listPanes",
      "listSessions",
      "listWindows",
      "readVariables"
    ],
    Ids: ["PaneId", "SessionId", "WindowId"],
    Input: [
      "BatchOperationResult",
      "ClearPaneRequest",
      "KeyReading",
      "KeysBatchSent",
      "KeysSent",
      "MAX_BATCH_OPERATIONS",
      "MAX_KEYS_BYTES",
      "PaneCleared",
      "SendKeysBatchRequest",
      "SendKeysOnceRequest",
      "SendKeysRequest",
      "clearPane",
      "isSpecialKey",
      "readKeys",
      "sendKeys",
      "sendKeysBatch"
    ],
    Options: [
      "ALLOWED_OPTIONS",
      "AllowedOption",
      "OptionEntry",
      "OptionKind",
      "OptionScope",
      "OptionSet",
      "OptionType",
      "OptionsRequest",
      "OptionsWhere",
      "refusalOf",
      "setOption",
      "showOptions"
    ],
    InvocationContext: ["Caller", "InvocationContext", "InvocationContextShape", "layer"],
    Model: [
      "CallerStatus",
      "Capture",
      "ClosedSession",
      "ClosedWindow",
      "Generation",
      "LiveServer",
      "Pane",
      "PaneDetail",
      "PanePlacement",
      "ServerIdentity",
      "ServerInfo",
      "Session",
      "Teardown",
      "UnresponsiveSocket",
      "WhereAmI",
      "Window"
    ],
    Ownership: ["Ownership", "OwnershipShape", "layer"],
    PaneCursor: ["CaptureSinceOptions", "CapturedSince", "captureSince"],
    Paste: ["PasteTextRequest", "TextPasted", "pasteText"],
    Policy: ["Policy", "PolicyShape", "layer"],
    Progress: ["Progress", "ProgressReport", "ProgressShape"],
    RunCommand: [
      "CommandHandle",
      "CommandOutcome",
      "CommandResult",
      "MAX_COMMAND_BYTES",
      "MatchSpec",
      "OutputMatch",
      "OutputOptions",
      "RunRequest",
      "WaitRequest",
      "openHandle",
      "runCommand",
      "waitForCommand"
    ],
    Search: ["PaneMatches", "SearchMatch", "SearchOptions", "SearchResult", "searchPanes"],
    Servers: [
      "HostsDiscovery",
      "ServerDiscovery",
      "StartServerResult",
      "discoverHosts",
      "discoverServers",
      "killServer",
      "listServers",
      "probeServer",
      "serverInfo",
      "startServer"
    ],
    Shape: [
      "LAYOUT_NAMES",
      "MovedWindow",
      "PaneDirection",
      "PaneSelection",
      "PaneSize",
      "ResizedPane",
      "SwappedPanes",
      "WindowDirection",
      "WindowSelection",
      "isLayout",
      "moveWindow",
      "renameSession",
      "renameWindow",
      "resizePane",
      "resizeWindow",
      "selectLayout",
      "selectPane",
      "selectWindow",
      "setPaneTitle",
      "swapPanes",
      "zoomPane"
    ],
    Snapshot: ["PaneSnapshot", "snapshotPane"],
    Services: ["LiveServices", "Settings", "layer"],
    SocketResolver: ["ResolvedSocket", "SocketResolver", "SocketResolverShape", "SocketRule", "SocketSelector", "layer", "resolve"],
    Teardown: ["TeardownKind", "TeardownOptions", "killPane", "killSession", "killWindow"],
    TextWait: ["PatternSpec", "TextWaitRequest", "TextWaitResult", "waitForText"],
    Tmux: ["RunOptions", "Tmux", "TmuxCommand", "TmuxShape", "TransportInUse"],
    TmuxExec: ["layer"],
    TmuxLive: ["layer"],
    Hosts: [
      "Connections",
      "ConnectionsShape",
      "CurrentHost",
      "HostSettings",
      "HostsConfig",
      "LOCAL_HOST",
      "LinkReport",
      "RemoteHostView",
      "RemoteHosts",
      "isRemoteHost",
      "layer",
      "onHost",
      "parseHostsFile"
    ],
    TmuxSocket: ["layer"],
    TmuxMcpConfig: [
      "ConfigError",
      "ConfigFlags",
      "ConfigSources",
      "SAFETY_LEVELS",
      "SafetyLevel",
      "TRANSPORTS",
      "TmuxMcpConfig",
      "TmuxMcpConfigShape",
      "Transport",
      "layer",
      "loadConfig"
    ],
    Tools: ["AnyTool", "ERROR_META_KEY", "Tier", "Tool", "ToolHints", "ToolResult", "ToolServices", "allTools", "callTool"],
    Waiting: ["EffectiveTimeout", "effectiveTimeout"],
    WhereAmI: ["whereAmI"]
  },
  testing: {
    FakeTmux: [
      "FakeClient",
      "FakeInvocation",
      "FakePane",
      "FakePaneSpec",
      "FakeServer",
      "FakeServerSpec",
      "FakeSession",
      "FakeSessionSpec",
      "FakeTmuxState",
      "FakeTmuxStateShape",
      "FakeWindow",
      "FakeWindowSpec",
      "FakeWinlink",
      "FakeWorld",
      "layer",
      "make",
      "server"
    ],
    RecordingTmux: ["RecordedInvocation", "TmuxRecorder", "TmuxRecorderShape", "layer"]
  }
}

/** Helpers that serve the layers below and must never become public (the issue named these). */
const INTERNAL_NAMES = [
  "makeOwnership",
  "makePolicy",
  "makeSocketResolver",
  "makeInvocationContext",
  "OWNER_OPTION",
  "redactArguments",
  "checkName",
  "storedExactly",
  "encodeHandle",
  "decodeHandle",
  "pollUntil",
  "literalizeFormat",
  "describeCommands",
  "excerpt"
]

interface Member {
  readonly name: string
  readonly documented: boolean
  readonly isValue: boolean
  /** The file that declares it, relative to the repository. */
  readonly declaredIn: ReadonlyArray<string>
}

interface Namespace {
  readonly name: string
  readonly documented: boolean
  readonly members: ReadonlyArray<Member>
}

const compilerOptions: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  strict: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: true,
  noEmit: true,
  types: ["node"]
}

/** A doc comment right before the node (`/** … *\/`), as the compiler attaches it. */
const hasLeadingDoc = (node: ts.Node): boolean =>
  (ts.getLeadingCommentRanges(node.getSourceFile().text, node.getFullStart()) ?? []).some((range) =>
    node.getSourceFile().text.startsWith("/**", range.pos)
  )

/** The namespaces an entry file exports, each with its members, as the compiler sees them. */
const readEntry = (program: ts.Program, entryFile: string, root: string): Array<Namespace> => {
  const checker = program.getTypeChecker()
  const resolveAlias = (symbol: ts.Symbol): ts.Symbol =>
    (symbol.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(symbol) : symbol
  const file = program.getSourceFile(entryFile)
  const moduleSymbol = file === undefined ? undefined : checker.getSymbolAtLocation(file)
  if (moduleSymbol === undefined) throw new Error(`${entryFile} is not a module of the program`)
  return checker.getExportsOfModule(moduleSymbol).map((exported) => {
    const declaration = exported.declarations?.[0]
    const statement = declaration !== undefined && ts.isNamespaceExport(declaration) ? declaration.parent : declaration
    const members = checker.getExportsOfModule(resolveAlias(exported)).map((member): Member => {
      const target = resolveAlias(member)
      return {
        name: member.name,
        documented: target.getDocumentationComment(checker).some((part) => part.text.trim() !== ""),
        isValue: (target.flags & ts.SymbolFlags.Value) !== 0,
        declaredIn: (target.declarations ?? []).map((d) => relative(root, d.getSourceFile().fileName).split("\\").join("/"))
      }
    })
    return {
      name: exported.name,
      documented: statement !== undefined && hasLeadingDoc(statement),
      members: members.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    }
  })
}

const program = ts.createProgram(Object.values(ENTRIES), compilerOptions)
const surface = {
  index: readEntry(program, ENTRIES.index, repository),
  testing: readEntry(program, ENTRIES.testing, repository)
}

describe.each(["index", "testing"] as const)("the %s entry", (entry) => {
  const namespaces = surface[entry]

  it("exports exactly the pinned namespaces and members", () => {
    const actual = Object.fromEntries(
      [...namespaces].sort((a, b) => (a.name < b.name ? -1 : 1)).map((namespace) => [namespace.name, namespace.members.map((m) => m.name)])
    )
    expect(actual).toEqual(PINNED[entry])
  })

  it("documents every namespace and every member", () => {
    expect(namespaces.filter((namespace) => !namespace.documented).map((namespace) => namespace.name)).toEqual([])
    const undocumented = namespaces.flatMap((namespace) =>
      namespace.members.filter((member) => !member.documented).map((member) => `${namespace.name}.${member.name}`)
    )
    expect(undocumented).toEqual([])
  })

  it("exports nothing from an internal/ folder and none of the helpers that stay inside", () => {
    const members = namespaces.flatMap((namespace) => namespace.members.map((member) => ({ namespace: namespace.name, ...member })))
    expect(members.filter((m) => m.declaredIn.some((file) => file.includes("/internal/"))).map((m) => `${m.namespace}.${m.name}`)).toEqual(
      []
    )
    expect(members.filter((m) => INTERNAL_NAMES.includes(m.name)).map((m) => `${m.namespace}.${m.name}`)).toEqual([])
  })

  it("holds at run time the values the types say, nothing more", async () => {
    const loaded: Record<string, Record<string, unknown>> = await import(ENTRIES[entry])
    expect(Object.keys(loaded).sort()).toEqual(namespaces.map((namespace) => namespace.name).sort())
    for (const namespace of namespaces) {
      expect([Object.keys(loaded[namespace.name] ?? {}).sort(), namespace.name]).toEqual([
        namespace.members.filter((member) => member.isValue).map((member) => member.name),
        namespace.name
      ])
    }
  })
})

describe("the namespaces", () => {
  it("share no name with a module of effect, which a user imports side by side (Config, Scope, …)", async () => {
    const effectModules = Object.keys(await import("effect"))
    expect(effectModules).toContain("Config")
    const names = [...surface.index, ...surface.testing].map((namespace) => namespace.name)
    expect(names.filter((name) => effectModules.includes(name))).toEqual([])
  })
})

describe("the reading of the surface", () => {
  it("sees namespaces, members, values, declaring files and missing doc comments", () => {
    // On a made-up package, so the rules above can be seen to fail.
    const dir = mkdtempSync(join(tmpdir(), "etm-api-"))
    try {
      mkdirSync(join(dir, "internal"))
      writeFileSync(join(dir, "package.json"), `{ "type": "module" }`)
      writeFileSync(join(dir, "internal/helper.ts"), "/** Documented. */\nexport const helper = 1\n")
      writeFileSync(
        join(dir, "Module.ts"),
        [`/** A value. */`, `export const value = 1`, `export type Bare = number`, `export { helper } from "./internal/helper.js"`].join(
          "\n"
        )
      )
      writeFileSync(
        join(dir, "entry.ts"),
        [`/** Documented. */`, `export * as Module from "./Module.js"`, `export * as Again from "./Module.js"`].join("\n")
      )
      const made = ts.createProgram([join(dir, "entry.ts")], { ...compilerOptions, types: [] })
      expect(readEntry(made, join(dir, "entry.ts"), dir)).toEqual(
        ["Module", "Again"].map((name, index) => ({
          name,
          documented: index === 0,
          members: [
            { name: "Bare", documented: false, isValue: false, declaredIn: ["Module.ts"] },
            { name: "helper", documented: true, isValue: true, declaredIn: ["internal/helper.ts"] },
            { name: "value", documented: true, isValue: true, declaredIn: ["Module.ts"] }
          ]
        }))
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
