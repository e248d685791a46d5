/**
 * Creating things that run: sessions, windows, splits and respawned panes, each with an argv command
 * (never a shell string), a start directory and environment, and its placement in the answer.
 */
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
} from "../operations/lifecycle/Create.js"
export type { SpawnRequest } from "../operations/lifecycle/Spawn.js"
