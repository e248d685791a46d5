/**
 * Resources: `tmux://self` (the where_am_i payload) and the tree as resource templates — the
 * sessions, a session with its windows, a window with its panes, a pane, and a pane's screen. Each
 * read is the matching readonly tool's value (same bounds, same errors); URIs: internal/ResourceUri.ts.
 */
import type { ReadResourceResult, Resource, ResourceTemplateType as ResourceTemplate } from "@modelcontextprotocol/server"
import * as Effect from "effect/Effect"
import { TmuxMcpConfig } from "../context/TmuxMcpConfig.js"
import { InvalidInput, type ToolError } from "../domain/Errors.js"
import { whereAmIWithTools } from "../tools/context.js"
import { capturePaneTool, getPaneInfoTool, listPanesTool } from "../tools/pane.js"
import { getSessionInfoTool, listSessionsTool } from "../tools/session.js"
import type { AnyTool, ToolServices } from "../tools/Tool.js"
import { getWindowInfoTool, listWindowsTool } from "../tools/window.js"
import { toolValue } from "./CallTool.js"
import { type ParsedUri, parseResourceUri, type ResourceTarget } from "./internal/ResourceUri.js"

export const SELF_URI = "tmux://self"
export const SESSIONS_URI = "tmux://sessions"

const JSON_TYPE = "application/json"

export const resources: ReadonlyArray<Resource> = [
  {
    uri: SELF_URI,
    name: "self",
    title: "Where am I (tmux)",
    description: "The where_am_i payload: caller pane, effective socket, server liveness, safety level, tool set.",
    mimeType: JSON_TYPE
  },
  { uri: SESSIONS_URI, name: "sessions", title: "tmux sessions", description: "list_sessions' first page.", mimeType: JSON_TYPE }
]

/**
 * The templates; the query names a socket other than the effective one, and with a hosts file
 * (`hosts`) the host too, as the tools take them.
 */
export const resourceTemplatesFor = (hosts: boolean): ReadonlyArray<ResourceTemplate> => {
  const query = hosts ? "{?host,socket_name,socket_path}" : "{?socket_name,socket_path}"
  return [
    {
      uriTemplate: `tmux://sessions${query}`,
      name: "sessions",
      description: "list_sessions' first page.",
      mimeType: JSON_TYPE
    },
    {
      uriTemplate: `tmux://session/{session_id}${query}`,
      name: "session",
      description: "get_session_info, with list_windows' first page of it as windows.",
      mimeType: JSON_TYPE
    },
    {
      uriTemplate: `tmux://window/{window_id}${query}`,
      name: "window",
      description: "get_window_info, with list_panes' first page of it as panes.",
      mimeType: JSON_TYPE
    },
    {
      uriTemplate: `tmux://pane/{pane_id}${query}`,
      name: "pane",
      description: "get_pane_info.",
      mimeType: JSON_TYPE
    },
    {
      uriTemplate: `tmux://pane/{pane_id}/screen${query}`,
      name: "screen",
      description: "The screen's text (capture_pane's defaults). Subscribable: resources/updated when it changes.",
      mimeType: "text/plain"
    }
  ]
}

const json = (uri: string, value: unknown): ReadResourceResult => ({
  contents: [{ uri, mimeType: JSON_TYPE, text: JSON.stringify(value) }]
})

const asRecord = (value: unknown): Record<string, unknown> => value as Record<string, unknown>

const readTarget = (
  uri: string,
  target: Exclude<ResourceTarget, { readonly kind: "self" }>
): Effect.Effect<ReadResourceResult, ToolError, ToolServices> => {
  const { socket } = target
  switch (target.kind) {
    case "sessions":
      return Effect.map(toolValue(listSessionsTool, socket), (page) => json(uri, page))
    case "session":
      return Effect.gen(function*() {
        const session = yield* toolValue(getSessionInfoTool, { session_id: target.session_id, ...socket })
        const windows = yield* toolValue(listWindowsTool, { session_id: target.session_id, ...socket })
        return json(uri, { ...asRecord(session), windows })
      })
    case "window":
      return Effect.gen(function*() {
        const window = yield* toolValue(getWindowInfoTool, { window_id: target.window_id, ...socket })
        const panes = yield* toolValue(listPanesTool, { window_id: target.window_id, ...socket })
        return json(uri, { ...asRecord(window), panes })
      })
    case "pane":
      return Effect.map(toolValue(getPaneInfoTool, { pane_id: target.pane_id, ...socket }), (pane) => json(uri, pane))
    case "screen":
      return Effect.map(toolValue(capturePaneTool, { pane_id: target.pane_id, ...socket }), (capture) => ({
        contents: [{ uri, mimeType: "text/plain", text: String(asRecord(capture).content) }]
      }))
  }
}

/**
 * Reads a resource (`tools`: every tool served, of which tmux://self counts those enabled);
 * `undefined` when the URI is not ours. A URI's `host` reaches the tool as its `host` argument, so
 * the read runs on that host (checked, and capped by the host's safety, as a call is).
 */
export const readResource = (
  uri: string,
  tools: ReadonlyArray<AnyTool>
): Effect.Effect<ReadResourceResult | undefined, ToolError, ToolServices> =>
  Effect.flatMap(TmuxMcpConfig, (config) => readParsed(uri, parseResourceUri(uri, { hosts: config.hosts !== undefined }), tools))

const readParsed = (
  uri: string,
  parsed: ParsedUri,
  tools: ReadonlyArray<AnyTool>
): Effect.Effect<ReadResourceResult | undefined, ToolError, ToolServices> => {
  switch (parsed._tag) {
    case "Unknown":
      return Effect.succeed(undefined)
    case "Malformed":
      return Effect.fail(new InvalidInput({ reason: parsed.reason }))
    case "Target":
      return parsed.target.kind === "self"
        ? Effect.map(whereAmIWithTools(tools), (payload) => json(uri, payload))
        : readTarget(uri, parsed.target)
  }
}
