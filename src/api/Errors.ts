/**
 * The errors of the library. The `Tmux` service fails with exactly `NoServer | NotFound | Failed`
 * (`TmuxError`); operations and tools add `Denied`, `Conflict` and `InvalidInput` (`ToolError`).
 * `hint`, `errorCode`, `isRetryable` and `happenedBeforeTmux` answer per tag what the MCP tools put
 * in an error result.
 */
export {
  Conflict,
  ConflictKind,
  DenialKind,
  Denied,
  type ErrorCode,
  errorCode,
  Failed,
  FailureReason,
  happenedBeforeTmux,
  hint,
  InvalidInput,
  isRetryable,
  NoServer,
  NotFound,
  ObjectKind,
  type TmuxError,
  type ToolError
} from "../domain/Errors.js"
