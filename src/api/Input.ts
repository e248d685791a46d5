/** Typing into a pane: text or tmux key names, one request or a checked batch to one pane. */
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
  type SendKeysRequest
} from "../operations/input/Input.js"
