/** where_am_i: the invocation context, the first call an agent should make. */
import * as Schema from "effect/Schema"
import { WhereAmI } from "../domain/Model.js"
import { whereAmI } from "../operations/servers/WhereAmI.js"
import { defineTool, socketArguments } from "./Tool.js"

export const whereAmITool = defineTool({
  name: "where_am_i",
  title: "Where Am I",
  description:
    "Where this MCP server runs and what its tools will touch: inside_tmux and, if so, the caller's live pane/window/session; the effective socket and the rule that chose it; whether a tmux server runs there (a real probe that never starts one); how many live servers exist; the safety level. Call it first when unsure which tmux server or pane to use.",
  tier: "readonly",
  hints: { idempotent: true },
  input: Schema.Struct(socketArguments),
  output: WhereAmI,
  handler: (input) => whereAmI(input)
})
