/** Typing into a pane: text or tmux key names, one request or a checked batch to one pane; clearing a pane. */
export { clearPane, type ClearPaneRequest, PaneCleared } from "../operations/input/ClearPane.js"
export {
  BatchOperationResult,
  isSpecialKey,
  KeysBatchSent,
  KeysSent,
  MAX_BATCH_OPERATIONS,
  MAX_KEYS_BYTES,
  sendKeys,
  sendKeysBatch,
  type SendKeysBatchRequest,
  type SendKeysOnceRequest,
  type SendKeysRequest
} from "../operations/input/Input.js"
export { type KeyReading, readKeys } from "../operations/input/KeyNames.js"
