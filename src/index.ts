/**
 * effect-tmux-mcp as a library: the services, their live and fake layers, the operations the MCP
 * tools use, the errors and the domain models. An Effect program provides the layers and calls the
 * operations directly:
 *
 *   const program = Effect.flatMap(SocketResolver, (r) => r.resolve()).pipe(Effect.flatMap(listPanes))
 *   program.pipe(Effect.provide(Layer.mergeAll(TmuxExec.layer, SocketResolver.layer, InvocationContext.layer)
 *     .pipe(Layer.provideMerge(TmuxMcpConfig.layer(config)))))
 */
export * from "./domain/Errors.js"
export * from "./domain/Ids.js"
export * from "./domain/Model.js"

export { Audit, type AuditRecord, type AuditShape, redactArguments } from "./services/Audit.js"
export {
  TmuxMcpConfig,
  ConfigError,
  type ConfigFlags,
  type TmuxMcpConfigShape,
  loadConfig,
  SAFETY_LEVELS,
  type SafetyLevel
} from "./context/TmuxMcpConfig.js"
export { type Caller, InvocationContext, type InvocationContextShape, makeInvocationContext } from "./context/InvocationContext.js"
export { makeOwnership, OWNER_OPTION, Ownership, type OwnershipShape } from "./services/Ownership.js"
export { makePolicy, Policy, type PolicyShape } from "./services/Policy.js"
export {
  makeSocketResolver,
  type ResolvedSocket,
  type SocketRule,
  type SocketSelector,
  SocketResolver,
  type SocketResolverShape
} from "./context/SocketResolver.js"

export { type RunOptions, Tmux, type TmuxCommand, type TmuxShape } from "./tmux/Tmux.js"
export { TmuxExec } from "./tmux/TmuxExec.js"
export { TmuxControl } from "./tmux/TmuxControl.js"
export { TmuxLive } from "./tmux/TmuxLive.js"
export { type RecordedInvocation, RecordingTmux, TmuxRecorder, type TmuxRecorderShape } from "./testing/RecordingTmux.js"
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
} from "./testing/FakeTmux.js"
export { literalizeFormat } from "./tmux/Literal.js"

export { capturePane, type CaptureLine, type CaptureOptions } from "./operations/watching/Capture.js"
export {
  getPane,
  getPaneWindow,
  getSession,
  getWindow,
  type Listing,
  listPanes,
  listSessions,
  listWindows,
  type TreeScope,
  type SessionTarget
} from "./operations/hierarchy/Hierarchy.js"
export {
  discoverServers,
  killServer,
  listServers,
  probeServer,
  type ServerDiscovery,
  serverInfo,
  startServer,
  type StartServerResult
} from "./operations/servers/Servers.js"
export { whereAmI } from "./operations/servers/WhereAmI.js"
export {
  DEFAULT_ENVIRONMENT_MAX_BYTES,
  EnvironmentListing,
  EnvironmentSet,
  type EnvironmentTarget,
  EnvironmentUnset,
  MAX_ENVIRONMENT_VALUE_BYTES,
  parseShellEnvironment,
  type ParsedEnvironment,
  setEnvironment,
  showEnvironment,
  unsetEnvironment
} from "./operations/environment/Environment.js"
export { isSpecialKey, KeysBatchSent, KeysSent, MAX_KEYS_BYTES, sendKeys, sendKeysBatch, type SendKeysRequest } from "./operations/input/Input.js"
export { checkName, MAX_NAME_LENGTH, type NameKind, storedExactly } from "./operations/layout/Names.js"
export {
  isLayout,
  LAYOUT_NAMES,
  MovedWindow,
  moveWindow,
  type PaneDirection,
  type PaneSelection,
  type PaneSize,
  renameSession,
  renameWindow,
  ResizedPane,
  resizePane,
  resizeWindow,
  selectLayout,
  selectPane,
  selectWindow,
  setPaneTitle,
  SwappedPanes,
  swapPanes,
  type WindowDirection,
  type WindowSelection,
  zoomPane
} from "./operations/layout/Shape.js"
export { killPane, killSession, killWindow, type TeardownKind, type TeardownOptions } from "./operations/lifecycle/Teardown.js"
export {
  type CreatedSession,
  type CreatedWindow,
  createSession,
  type CreateSessionRequest,
  createWindow,
  type CreateWindowRequest,
  respawnPane,
  type RespawnPaneRequest,
  type SpawnedPane,
  type SplitDirection,
  splitWindow,
  type SplitWindowRequest
} from "./operations/lifecycle/Create.js"

export { allTools } from "./tools/registry.js"
export type { AnyTool, Tier, Tool, ToolServices } from "./tools/Tool.js"
export { callTool } from "./mcp/CallTool.js"
export { pasteText, TextPasted } from "./operations/input/Paste.js"
export {
  BufferContent,
  BufferDeleted,
  BufferInfo,
  BufferLoaded,
  BufferPasted,
  deleteBuffer,
  listBuffers,
  loadBuffer,
  pasteBuffer,
  showBuffer
} from "./operations/input/Buffers.js"
export { ChannelSignalled, ChannelWaited, signalChannel, waitForChannel } from "./operations/watching/Channels.js"
export { PaneSnapshot, snapshotPane } from "./operations/watching/Snapshot.js"
export { CapturedSince, captureSince } from "./operations/watching/PaneCursor.js"
export { TextWaitResult, waitForText } from "./operations/watching/TextWait.js"
export { SearchResult, searchPanes } from "./operations/watching/Search.js"
export { type CommandHandle, decodeHandle, encodeHandle } from "./operations/commands/CommandHandle.js"
export { CommandResult, runCommand, waitForCommand } from "./operations/commands/RunCommand.js"
export { effectiveTimeout, type EffectiveTimeout, pollUntil } from "./operations/bounds/Waiting.js"
export { Progress, type ProgressReport, reportProgress } from "./services/Progress.js"
