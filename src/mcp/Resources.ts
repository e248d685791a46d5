/**
 * Resources: `tmux://self`, the where_am_i payload, for clients that read context as a resource.
 */
import type { ReadResourceResult, Resource } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import type { ToolError } from "../domain/Errors.js"
import { whereAmI } from "../operations/servers/WhereAmI.js"
import type { ToolServices } from "../tools/Tool.js"

export const SELF_URI = "tmux://self"

export const resources: ReadonlyArray<Resource> = [
  {
    uri: SELF_URI,
    name: "self",
    title: "Where am I (tmux)",
    description: "The where_am_i payload: caller pane, effective socket, server liveness, safety level.",
    mimeType: "application/json"
  }
]

/** Reads a resource; `undefined` when the URI is not ours. */
export const readResource = (
  uri: string
): Effect.Effect<ReadResourceResult | undefined, ToolError, ToolServices> =>
  uri === SELF_URI
    ? Effect.map(whereAmI(), (payload) => ({
      contents: [{ uri, mimeType: "application/json", text: JSON.stringify(payload) }]
    }))
    : Effect.succeed(undefined)
