/**
 * The closed set of failures. The `Tmux` service fails only with `NoServer | NotFound | Failed`;
 * tools add `Denied` (policy) and `InvalidInput` (decoding). Each error's recovery hint comes from
 * `hint`, written with `Match.tagsExhaustive` so a new tag without a hint does not compile.
 */
import * as Match from "effect/Match"
import * as Schema from "effect/Schema"
import { escapeMessageControls } from "./ControlText.js"

/**
 * No tmux server answers on the socket: distinct from an empty server. `exitingAfterMs`: a call
 * allowed to start a server waited this long for the one there to finish exiting, in vain (an
 * exiting server closes every new connection until its last client has gone).
 */
export class NoServer extends Schema.TaggedError<NoServer>()("NoServer", {
  socket: Schema.String,
  /** On a remote host: its name, and whether the hosts file lets a server be started there. */
  host: Schema.optionalKey(Schema.String),
  startable: Schema.optionalKey(Schema.Boolean),
  exitingAfterMs: Schema.optionalKey(Schema.Number)
}) {
  override get message(): string {
    return escapeMessageControls(
      this.exitingAfterMs === undefined
        ? `No tmux server is running on socket ${this.socket}.`
        : `The tmux server on socket ${this.socket} is exiting: it still closed new connections after ${
          this.exitingAfterMs / 1000
        } s, so no new server could start there yet.`
    )
  }
}

/** The kinds of object a `NotFound` names (`server`: the server restarted since a generation was read). */
export const ObjectKind = Schema.Literals(["session", "window", "pane", "object", "server"])
export type ObjectKind = typeof ObjectKind.Type

/**
 * Caller text named in a message (a session name, a generation): at most 64 characters of it, and
 * its length when cut, so a megabyte in is never a megabyte out.
 */
export const excerpt = (text: string): string => text.length <= 64 ? text : `${text.slice(0, 64)}… (${text.length} characters)`

/** The server runs but the named object does not exist on it. */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  kind: ObjectKind,
  target: Schema.String,
  socket: Schema.String
}) {
  override get message(): string {
    return escapeMessageControls(
      this.kind === "server"
        ? `The tmux server at socket ${this.socket} is no longer generation ${
          excerpt(this.target)
        }: it restarted, so ids read before may now name other objects.`
        : `No ${this.kind} ${excerpt(this.target)} exists on the tmux server at socket ${this.socket}.`
    )
  }
}

/**
 * Why tmux `Failed`: it exited non-zero (`exit`), did not answer in time, could not be spawned,
 * printed output without the call's end mark (`unparseable`), printed more than a call may hold
 * (`overflow`), was not asked at all because the socket is not one this server may use
 * (`refused`), or the server refused this client before running anything (`access`: its
 * `server-access` list, tmux >= 3.3), or its remote host could not be reached (`host`: the ssh
 * link is down or refused). `refused` and `access` are wired as `denied`.
 */
export const FailureReason = Schema.Literals(["exit", "timeout", "spawn", "unparseable", "overflow", "refused", "access", "host"])
export type FailureReason = typeof FailureReason.Type

/** An error message is read by an agent: what stays of an overlong one. */
const MAX_FAILED_MESSAGE_CHARS = 1500

const cutMessage = (text: string): string =>
  text.length <= MAX_FAILED_MESSAGE_CHARS ? text : `${text.slice(0, MAX_FAILED_MESSAGE_CHARS)}… (cut)`

/** tmux could not be run, did not answer in time, or rejected the command in its own words. */
export class Failed extends Schema.TaggedError<Failed>()("Failed", {
  command: Schema.String,
  reason: FailureReason,
  exitCode: Schema.NullOr(Schema.Number),
  stderr: Schema.String
}) {
  // tmux's words, a socket's or a binary's: what they hold could drive the terminal that shows the error.
  override get message(): string {
    return cutMessage(escapeMessageControls(this.said()))
  }

  /**
   * The message of a failure of `operation` (a tool: what the caller asked for). Neither message
   * names `command`, the tmux command list we built: that is ours, not the caller's, and says
   * nothing they can act on (it stays on the error for logs and embedders).
   */
  messageFor(operation: string): string {
    return cutMessage(escapeMessageControls(this.said(operation)))
  }

  private said(operation?: string): string {
    const who = operation === undefined ? "" : `${operation}: `
    switch (this.reason) {
      case "timeout":
        return `${who}tmux did not answer in time (${this.stderr}).`
      case "spawn":
        return `${operation === undefined ? "tmux could not be run" : `${operation} could not run tmux`}: ${this.stderr}`
      case "unparseable":
        return `${who}tmux printed output this server could not read: ${this.stderr}`
      case "exit":
        return `${who}tmux failed${this.exitCode === null ? "" : ` (exit ${this.exitCode})`}: ${this.stderr}`
      case "overflow":
        return `${who}tmux answered with too much output: ${this.stderr}`
      case "refused":
        return `${who}tmux was not asked: ${this.stderr}`
      case "access":
        return `${who}${operation === undefined ? "The" : "the"} tmux server refused this client: ${this.stderr}`
      case "host":
        return `${operation ?? "tmux"} could not reach its host: ${this.stderr}`
    }
  }
}

/**
 * Why a call was `Denied`: the safety tier, the caller's own objects (`self`), a pane a person
 * watches, or starting a server.
 */
export const DenialKind = Schema.Literals(["tier", "self", "watched", "server_start", "host_safety"])
export type DenialKind = typeof DenialKind.Type

/** Policy said no: the safety tier, a guard protecting the caller's own tmux objects or a pane a person watches, or server start. */
export class Denied extends Schema.TaggedError<Denied>()("Denied", {
  kind: DenialKind,
  reason: Schema.String,
  /** For `tier` denials: the LIBTMUX_SAFETY level that would allow the call. */
  requiredTier: Schema.optionalKey(Schema.String)
}) {
  override get message(): string {
    return this.reason
  }
}

/**
 * The target state that refused a call (`Conflict`): a busy pane, another run_command pending, copy
 * mode, a full-screen program, a dead pane, or a shell run_command cannot frame.
 */
export const ConflictKind = Schema.Literals(["busy", "run_pending", "copy_mode", "full_screen", "dead", "unsupported_shell"])
export type ConflictKind = typeof ConflictKind.Type

/**
 * The arguments are fine but the target's state does not allow the call now: a pane busy with a
 * program, waiting on another run_command, in copy mode, showing a full-screen program, dead, or
 * running a shell whose syntax we cannot frame. Not the caller's mistake, so never `InvalidInput`.
 */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  kind: ConflictKind,
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** The arguments do not fit the tool's input schema or its rules. Never echoes payload values. */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  reason: Schema.String
}) {
  override get message(): string {
    return `Invalid arguments: ${this.reason}`
  }
}

/** The errors of the `Tmux` service, and of every operation that only reads. */
export type TmuxError = NoServer | NotFound | Failed
/** Every error an operation or tool can fail with. */
export type ToolError = TmuxError | Denied | Conflict | InvalidInput

const listToolFor: Record<ObjectKind, string> = {
  session: "list_sessions",
  window: "list_windows",
  pane: "list_panes",
  object: "list_sessions, list_windows or list_panes",
  server: "get_server_info (for the new generation) and then list_sessions / list_panes"
}

/** What the caller can do next. The one place recovery advice lives. */
export const hint: (error: ToolError) => string = Match.type<ToolError>().pipe(
  Match.tagsExhaustive({
    NoServer: (e) =>
      e.exitingAfterMs !== undefined
        ? "A tmux server ends once its last client has let go (an attached or control-mode client, a command still running); call again in a few seconds, or use another socket."
        : e.host !== undefined && e.startable !== true
        ? `Call list_servers with host ${e.host} to find live sockets there. This server may not start one on that host (the hosts file's allow_server_start is off): ask the user to start tmux there.`
        : e.host !== undefined
        ? `Call list_servers with host ${e.host} to find live sockets there, or start_server / create_session(allow_server_start=true) with host ${e.host} to start one.`
        : "Call list_servers to find live sockets, or start_server / create_session(allow_server_start=true) to start one.",
    NotFound: (e) =>
      `Call ${
        listToolFor[e.kind]
      } to see what exists on that socket, or where_am_i for your own pane; ids are only valid on the server that issued them.`,
    Failed: (e) => {
      switch (e.reason) {
        case "timeout":
          return "The tmux server may be busy or wedged. Retry once; if it persists, check it with get_server_info."
        case "spawn":
          return "Install tmux or point LIBTMUX_TMUX_BIN (--tmux) at it, then run `effect-tmux-mcp doctor`."
        case "unparseable":
          return "The answer was not tmux's: LIBTMUX_TMUX_BIN (--tmux) may not be tmux, or the socket may be not a tmux server (or one of an unsupported version). `effect-tmux-mcp doctor` shows what the binary says it is (tmux -V) and whether the server answers."
        case "exit":
          return "The message above is tmux's own: correct the arguments and retry."
        case "overflow":
          return "Ask for less at once (a shorter capture range or max_lines, fewer panes); nothing of that answer was kept, and the server goes on serving."
        case "refused":
          return "Name a socket of this user's (list_servers shows them); which other sockets may be used is the user's configuration (docs/configuration.md, section Which sockets are used)."
        case "access":
          return "The server's server-access list does not allow this user (tmux >= 3.3). Only its owner can change that (`tmux server-access -a USER`, in that server); or use a server of your own (list_servers)."
        case "host":
          return "Only the user can fix an ssh link: `effect-tmux-mcp doctor` shows each host's link and why it failed (ssh runs with BatchMode: keys from the agent or without passphrase, the host key in known_hosts). A later call connects again by itself; where_am_i shows the link's state."
      }
    },
    Denied: (e) => {
      switch (e.kind) {
        case "tier":
          return `Only the user can allow this: restart the MCP server with LIBTMUX_SAFETY=${
            e.requiredTier ?? "destructive"
          } (or --safety).`
        case "self":
          return "Target another object by explicit id, or ask the user to do this themselves."
        case "watched":
          return "Ask the person watching that pane first; pass force: true only if typing there while they watch is intended."
        case "server_start":
          return "Call start_server first if starting a tmux server is intended."
        case "host_safety":
          return "Only the user can allow this on that host: its \"safety\" in the hosts file caps what runs there. Use a readonly tool there, or another host."
      }
    },
    Conflict: (e) => {
      switch (e.kind) {
        case "busy":
          return "Wait for the program to finish (wait_for_text, or wait_for_command with the handle of your run), stop it (send_keys C-c), or use another pane (split_window)."
        case "run_pending":
          return "Wait for the earlier run_command to end (or continue it with wait_for_command and its handle), then retry; or use another pane."
        case "copy_mode":
          return "Leave the mode first (send_keys with exit_mode: true and keys \"\"), then retry."
        case "full_screen":
          return "Drive the program with send_keys, or quit it and retry once the shell's prompt is back; or use another pane."
        case "dead":
          return "Restart the pane's program with respawn_pane, or pick another pane (list_panes)."
        case "unsupported_shell":
          return "Use send_keys or paste_text in that pane, or run the command in a pane running bash, zsh or sh."
      }
    },
    InvalidInput: () => "Correct the arguments (tools/list has each tool's input schema) and call again."
  })
)

/**
 * The hint of a failed resource read: as a tool's, but a bad URI (or an argument in it) is fixed by
 * the resource lists, since a resource has no tool schema to read.
 */
export const resourceHint = (error: ToolError): string =>
  error._tag === "InvalidInput"
    ? "Correct the URI: resources/list and resources/templates/list show the ones this server reads (ids as %N, @N, $N)."
    : hint(error)

/** Machine-readable error code carried in `_meta` on the wire. */
export type ErrorCode = "no_server" | "not_found" | "failed" | "denied" | "conflict" | "invalid_input" | "timeout"

/**
 * The wire code of an error (`no_server`, `not_found`, `failed`, `denied`, `conflict`,
 * `invalid_input`, `timeout`), as the MCP tools report it.
 */
export const errorCode: (error: ToolError) => ErrorCode = Match.type<ToolError>().pipe(
  Match.tagsExhaustive({
    NoServer: () => "no_server" as const,
    NotFound: () => "not_found" as const,
    Failed: (
      e
    ) => (e.reason === "timeout"
      ? ("timeout" as const)
      : e.reason === "refused" || e.reason === "access"
      ? ("denied" as const)
      : ("failed" as const)),
    Denied: () => "denied" as const,
    Conflict: () => "conflict" as const,
    InvalidInput: () => "invalid_input" as const
  })
)

/** Whether the same call may succeed if simply retried (a busy pane: after waiting). */
export const isRetryable: (error: ToolError) => boolean = Match.type<ToolError>().pipe(
  Match.tagsExhaustive({
    NoServer: (e) => e.exitingAfterMs !== undefined,
    NotFound: () => false,
    Failed: (e) => e.reason === "timeout" || e.reason === "host",
    Denied: () => false,
    Conflict: (e) => e.kind === "busy" || e.kind === "run_pending",
    InvalidInput: () => false
  })
)

/**
 * Whether the failure happened before anything could reach tmux. A conflict is found by asking tmux
 * (a read), and refused before anything is changed.
 */
export const happenedBeforeTmux: (error: ToolError) => boolean = Match.type<ToolError>().pipe(
  Match.tagsExhaustive({
    NoServer: () => true,
    NotFound: () => false,
    Failed: (e) => e.reason === "spawn" || e.reason === "refused" || e.reason === "access",
    Denied: () => true,
    Conflict: () => true,
    InvalidInput: () => true
  })
)
