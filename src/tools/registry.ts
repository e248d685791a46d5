import { batchTools } from "./batch.js"
import { bufferTools } from "./buffers.js"
import { channelTools } from "./channels.js"
import { commandTools } from "./command.js"
import { makeWhereAmITool } from "./context.js"
import { createTools } from "./create.js"
import { environmentTools } from "./environment.js"
import { inputTools } from "./input.js"
import { optionTools } from "./options.js"
import { capturePaneTool, getPaneInfoTool, listPanesTool } from "./pane.js"
import { searchTools } from "./search.js"
import { getServerInfoTool, killServerTool, listServersTool, startServerTool } from "./server.js"
import { getSessionInfoTool, listSessionsTool } from "./session.js"
import { shapeTools } from "./shape.js"
import { teardownTools } from "./teardown.js"
import type { AnyTool } from "./Tool.js"
import { watchTools } from "./watch.js"
import { getWindowInfoTool, listWindowsTool } from "./window.js"

/** Every tool, in the order tools/list shows them. */
export const allTools: ReadonlyArray<AnyTool> = [
  // where_am_i names the tools enabled, so it reads this list (when called, not now).
  makeWhereAmITool(() => allTools),
  listServersTool,
  getServerInfoTool,
  ...batchTools,
  startServerTool,
  killServerTool,
  listSessionsTool,
  getSessionInfoTool,
  listWindowsTool,
  getWindowInfoTool,
  listPanesTool,
  getPaneInfoTool,
  capturePaneTool,
  ...watchTools,
  ...searchTools,
  ...createTools,
  ...inputTools,
  ...commandTools,
  ...bufferTools,
  ...channelTools,
  ...shapeTools,
  ...environmentTools,
  ...optionTools,
  ...teardownTools
]
