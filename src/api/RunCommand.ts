/**
 * Running shell text in a pane's own shell and waiting for its end: the exit status and the whole
 * output, or a signed handle to keep waiting with (`openHandle`, then `waitForCommand`).
 */
export { type MatchSpec, OutputMatch } from "../operations/bounds/OutputMatches.js"
export type { CommandHandle } from "../operations/commands/CommandHandle.js"
export {
  CommandOutcome,
  CommandResult,
  MAX_COMMAND_BYTES,
  openHandle,
  type OutputOptions,
  runCommand,
  type RunRequest,
  waitForCommand,
  type WaitRequest
} from "../operations/commands/RunCommand.js"
