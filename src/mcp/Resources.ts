/**
 * Resources: `tmux://self`, the where_am_i payload, for clients that read context as a resource.
 */
import type { ReadResourceResult, Resource } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import type { ToolError } from "../domain/Errors.js"
import { whereAmIWithTools } from "../tools/context.js"
import type { AnyTool, ToolServices } from "../tools/Tool.js"

export const SELF_URI = "tmux://self"

export const resources: ReadonlyArray<Resource> = [
  {
    uri: SELF_URI,
    name: "self",
    title: "Where am I (tmux)",
    description: "The where_am_i payload: caller pane, effective socket, server liveness, safety level, tools enabled.",
    mimeType: "application/json"
  }
]

/** Reads a resource (`tools`: every tool served, of which the payload names those enabled); `undefined` when the URI is not ours. */
export const readResource = (
  uri: string,
  tools: ReadonlyArray<AnyTool>
): Effect.Effect<ReadResourceResult | undefined, ToolError, ToolServices> =>
  uri === SELF_URI
    ? Effect.map(whereAmIWithTools(tools), (payload) => ({
      contents: [{ uri, mimeType: "application/json", text: JSON.stringify(payload) }]
    }))
    : Effect.succeed(undefined)
