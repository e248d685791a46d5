/**
 * Prompts (prompts/list, prompts/get): short recipes for the workflows agents get wrong without
 * help, each naming the tools and arguments to use. Every `tool_name(argument, …)` in a prompt's
 * text is checked against the registry by test/unit/Prompts.test.ts.
 */
import type { GetPromptResult, Prompt } from "@modelcontextprotocol/server"
import * as Schema from "effect/Schema"
import { PaneId } from "../domain/Ids.js"
import { MAX_ARGUMENT_BYTES, pathSegment } from "./internal/ArgumentGuard.js"

type Arguments = Readonly<Record<string, string | undefined>>

interface PromptDefinition extends Prompt {
  readonly text: (args: Arguments) => string
}

const isPaneId = Schema.is(PaneId)

/** A pane given, or how to choose one. */
const paneOr = (paneId: string | undefined, choose: string): string => paneId ?? choose

const lines = (...text: ReadonlyArray<string>): string => text.join("\n")

export const prompts: ReadonlyArray<PromptDefinition> = [
  {
    name: "run_and_read",
    title: "Run a command and read only its result",
    description: "run_command, not send_keys plus capture_pane; match for the lines that matter.",
    arguments: [
      { name: "command", description: "The shell command line.", required: true },
      { name: "pane_id", description: "The pane (%N); default: choose one." },
      { name: "look_for", description: "A regular expression for the lines to find, e.g. ^FAIL|error." }
    ],
    text: (args) =>
      lines(
        `Run this command and read only its result: ${args.command}`,
        `Pane: ${paneOr(args.pane_id, "choose one with list_panes(), not one with is_caller true (your own terminal)")}.`,
        "1. run_command(pane_id, command) waits for the command to end and returns exit_status and its own output, nothing else of the screen.",
        `   For a build or test run, run_command(pane_id, command, match=${
          JSON.stringify({ patterns: [args.look_for ?? "^FAIL|error"], regex: true })
        }) returns matches: the matching lines of all its output with their line numbers (match_count counts all), and as output only the last 10 lines (tail_lines).`,
        "2. If timed_out is true, call wait_for_command(handle) with the handle it returned (and the same match) until exit_status is set.",
        "Do not use send_keys() and then capture_pane(): the screen mixes the prompt, the echo and older output, and does not say when the command ended."
      )
  },
  {
    name: "watch_job",
    title: "Watch a long job until it is ready",
    description: "send_keys with wait to start it, or a capture_since cursor, then wait_for_text from it.",
    arguments: [
      { name: "pane_id", description: "The pane the job runs in (%N).", required: true },
      { name: "ready", description: "Text that means ready, e.g. 'listening on'.", required: true },
      { name: "failed", description: "Text that means it failed, e.g. 'Error'." }
    ],
    text: (args) =>
      lines(
        `Watch pane ${args.pane_id} until the job is ready.`,
        `To start the job and wait in one call: send_keys(pane_id, keys=<its command>, wait={patterns: ${JSON.stringify([args.ready])}${
          args.failed === undefined ? "" : `, stop_patterns: ${JSON.stringify([args.failed])}`
        }, timeout}); the wait counts from just before the keys. For a job already running:`,
        "1. capture_since(pane_id) without a cursor returns a cursor for now; keep it.",
        `2. wait_for_text(pane_id, patterns=${JSON.stringify([args.ready])}${
          args.failed === undefined ? "" : `, stop_patterns=${JSON.stringify([args.failed])}`
        }, since=cursor, timeout) returns when a new line matches; a stop pattern means it failed. On timeout, call it again with the same since.`,
        "3. capture_since(pane_id, cursor) returns only the lines printed since and the next cursor.",
        "Do not call capture_pane() in a loop: it rereads the whole screen and cannot tell old text from new."
      )
  },
  {
    name: "find_error",
    title: "Find which pane shows an error",
    description: "search_panes over every pane, then capture_pane around the match.",
    arguments: [{ name: "pattern", description: "What to look for; default: error, failed, panic, Traceback." }],
    text: (args) =>
      lines(
        `1. search_panes(patterns=${
          JSON.stringify([args.pattern ?? "error|failed|panic|Traceback"])
        }, regex=true, ignore_case=true) searches the screen and scrollback of every pane (session_id or window_id narrow it); each match has its pane and a line number.`,
        "2. capture_pane(pane_id, start, end) with start a few lines before the match's line and end after it reads its context.",
        `An error of a command you run: run_command(pane_id, command, match={"patterns":[…],"regex":true,"context":2}) finds it in all the command's output, also what scrolled out of the pane.`,
        "Do not capture_pane() every pane one by one."
      )
  },
  {
    name: "build_workspace",
    title: "Build a workspace",
    description: "One create_session call: its panes, each with an argv command.",
    arguments: [
      { name: "session_name", description: "The new session's name.", required: true },
      { name: "commands", description: "One command per line, each in its own pane." }
    ],
    text: (args) =>
      lines(
        `Build a tmux workspace named ${args.session_name}${
          args.commands === undefined ? "" : ` running, one per pane:\n${args.commands}`
        }`,
        "1. One call builds it: create_session(session_name, command, panes=[{direction, command}, …]). command is argv, an array such as [\"npm\", \"run\", \"dev\"], not a shell string (a shell line: [\"sh\", \"-c\", \"…\"]); omit it for a shell. Each panes entry splits the pane made before it (direction: below, right, above or left; size and start_directory optional). Add allow_server_start=true if no server runs.",
        "2. The result's panes lists every pane's pane_id in the order made (the first command's pane first): keep them for send_keys and run_command.",
        "3. More later: split_window(pane_id, direction, command) adds a pane; create_window(session_id, window_name, panes) a window; select_layout(window_id, layout) tidies one."
      )
  },
  {
    name: "stop_hung_command",
    title: "Stop a hung command safely",
    description: "C-c, check, and never the caller's own pane.",
    arguments: [{ name: "pane_id", description: "The pane with the hung command (%N).", required: true }],
    text: (args) =>
      lines(
        `Stop the hung command in pane ${args.pane_id}.`,
        "1. get_pane_info(pane_id): if is_caller is true, stop here: it is your own terminal. Note its command.",
        "2. send_keys(pane_id, keys=\"C-c\") sends Ctrl-C (a key name: no Enter follows).",
        "3. wait_for_text(pane_id, patterns=null, timeout=2) then get_pane_info(pane_id): the command should be the shell again.",
        "4. Still running: send_keys(pane_id, keys=\"C-c\") once more. Only if the user agrees, respawn_pane(pane_id) restarts the pane (the job is lost). Never kill_pane() or kill_server() for this."
      )
  }
]

/** What prompts/list shows: everything but the text. */
export const listedPrompts: ReadonlyArray<Prompt> = prompts.map(({ text: _text, ...prompt }) => prompt)

/**
 * Why a prompt's arguments are no strings a prompt can hold, or undefined. A client may send any
 * JSON (the SDK's own check would answer -32603 with its schema dump), and a value lands whole in
 * the prompt's text, so it is bounded as a tool's string is.
 */
const argumentsProblem = (name: string, args: unknown): string | undefined => {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return `${name}: arguments must be an object of strings`
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== "string") return `${name}: arguments.${pathSegment(key)} must be a string`
    if (Buffer.byteLength(value, "utf8") > MAX_ARGUMENT_BYTES) {
      return `${name}: arguments.${pathSegment(key)} must be at most ${MAX_ARGUMENT_BYTES} bytes`
    }
  }
  return undefined
}

/** A prompt filled in; a string says why not (never echoing a value); `undefined`: no such prompt. */
export const getPrompt = (name: string, given: unknown = {}): GetPromptResult | string | undefined => {
  const prompt = prompts.find((candidate) => candidate.name === name)
  if (prompt === undefined) return undefined
  const problem = argumentsProblem(name, given)
  if (problem !== undefined) return problem
  const args = given as Arguments
  const known = prompt.arguments ?? []
  const unknown = Object.keys(args).filter((key) => !known.some((argument) => argument.name === key))
  if (unknown.length > 0) return `${name} takes only ${known.map((argument) => argument.name).join(", ")}`
  const missing = known.filter((argument) => argument.required === true && (args[argument.name] ?? "") === "")
  if (missing.length > 0) return `${name} needs ${missing.map((argument) => argument.name).join(", ")}`
  if (args.pane_id !== undefined && !isPaneId(args.pane_id)) return "pane_id must be a pane id such as %3"
  return {
    description: prompt.description,
    messages: [{ role: "user", content: { type: "text", text: prompt.text(args) } }]
  }
}
