/**
 * effect-tmux-mcp as a library: the services, their live and fake layers, the operations the MCP
 * tools use, the errors and the domain models. An Effect program provides the layers and calls the
 * operations directly:
 *
 *   const program = Effect.flatMap(SocketResolver, (r) => r.resolve()).pipe(Effect.flatMap(listPanes))
 *   program.pipe(Effect.provide(Layer.mergeAll(TmuxExec.layer, SocketResolver.layer, InvocationContext.layer)
 *     .pipe(Layer.provideMerge(Config.layer(config)))))
 */
export * from "./domain/Errors.js"
export * from "./domain/Ids.js"
export * from "./domain/Model.js"

export { Audit, type AuditRecord, type AuditShape, redactArguments } from "./services/Audit.js"
export {
  Config,
  ConfigError,
  type ConfigFlags,
  type ConfigShape,
  loadConfig,
  SAFETY_LEVELS,
  type SafetyLevel
} from "./services/Config.js"
export { type Caller, InvocationContext, type InvocationContextShape, makeInvocationContext } from "./services/InvocationContext.js"
export { makePolicy, Policy, type PolicyShape } from "./services/Policy.js"
export {
  makeSocketResolver,
  type ResolvedSocket,
  type SocketRule,
  type SocketSelector,
  SocketResolver,
  type SocketResolverShape
} from "./services/SocketResolver.js"

export { type RunOptions, Tmux, type TmuxCommand, type TmuxShape } from "./tmux/Tmux.js"
export { TmuxExec } from "./tmux/TmuxExec.js"
export {
  type FakeClient,
  type FakeInvocation,
  type FakePane,
  type FakePaneSpec,
  type FakeServer,
  type FakeServerSpec,
  type FakeSession,
  type FakeSessionSpec,
  FakeTmux,
  FakeTmuxState,
  type FakeTmuxStateShape,
  type FakeWindow,
  type FakeWindowSpec,
  type FakeWinlink,
  type FakeWorld
} from "./tmux/FakeTmux.js"
export { literalizeFormat } from "./tmux/Literal.js"

export { capturePane, type CaptureLine, type CaptureOptions } from "./operations/Capture.js"
export {
  getPane,
  getSession,
  getWindow,
  type Listing,
  listPanes,
  listSessions,
  listWindows,
  type Scope,
  type SessionTarget
} from "./operations/Hierarchy.js"
export { killServer, listServers, probeServer, serverInfo, startServer, type StartServerResult } from "./operations/Servers.js"
export { whereAmI } from "./operations/WhereAmI.js"

export { allTools } from "./tools/registry.js"
export type { AnyTool, Tier, Tool, ToolServices } from "./tools/Tool.js"
export { callTool } from "./mcp/CallTool.js"
