/**
 * doctor's lines about the hosts file's hosts: the ssh client (its version: below OpenSSH 9.6 ssh
 * does not check user and host names itself), then per host, all at once, its link (doctor
 * connects), and each of its sockets asked over its forward, with the reason when a host cannot be
 * used: ssh's own last words and what usually fixes them, sshd refusing Unix-socket forwards, tmux
 * refusing the login user. A host that cannot be used is a warning: this machine's tmux still works.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type { HostSettings } from "../context/HostsConfig.js"
import { onHost } from "../context/RemoteHosts.js"
import { SocketResolver } from "../context/SocketResolver.js"
import type { TmuxMcpConfigShape } from "../context/TmuxMcpConfig.js"
import { failureText, SSHD_FORWARDING } from "../operations/servers/HostSurvey.js"
import { askSocket, PROBE_TIMEOUT_MS, type SurveyProbe } from "../operations/servers/Servers.js"
import { type ConnectionsShape, openSshVersion } from "../tmux/Connections.js"
import type { Tmux } from "../tmux/Tmux.js"
import { runToEnd, TmuxProcesses } from "../tmux/TmuxProcess.js"
import { reportLine } from "./internal/ReportLine.js"

/** `ssh -V` prints one short line. */
const MAX_VERSION_OUTPUT_BYTES = 4096
/** The first OpenSSH that refuses shell characters in user and host names itself (CVE-2023-51385). */
const CHECKED_NAMES_SINCE = [9, 6] as const

/** What usually fixes what ssh said, for the ssh messages people meet first; else nothing. */
const sshAdvice = (words: string): string => {
  if (/Host key verification failed|host key .*changed|No \S* ?host key is known/i.test(words)) {
    return "ssh runs with StrictHostKeyChecking=yes: put the host's key in known_hosts first (ssh to it once by hand and check the fingerprint)."
  }
  if (/Permission denied/i.test(words)) {
    return "ssh runs with BatchMode=yes: the key must be in the agent (SSH_AUTH_SOCK) or have no passphrase, and be in the host's authorized_keys."
  }
  if (
    /Connection refused|timed out|No route to host|Could not resolve hostname|Name or service not known|Network is unreachable/i.test(words)
  ) {
    return "Nothing answers ssh there: is the host up, its sshd running, the name and port right?"
  }
  return ""
}

/** The ssh client's line: what `ssh -V` says, and a warning below OpenSSH 9.6 or for another ssh. */
const sshLine = (environment: Readonly<Record<string, string>>): Effect.Effect<string> =>
  runToEnd("ssh", ["-V"], { env: environment, maxOutputBytes: MAX_VERSION_OUTPUT_BYTES }).pipe(
    // ssh prints its version on stderr.
    Effect.flatMap((run) =>
      run.exitCode === 0 ? Effect.succeed(`${run.stderr}${run.stdout}`.trim().split("\n")[0] ?? "") : Effect.fail("exit")
    ),
    Effect.timeout("5 seconds"),
    Effect.map((version) => {
      const parsed = openSshVersion(version)
      const warning = parsed === undefined
        ? "; WARNING: not OpenSSH? forwarding Unix sockets through a master needs OpenSSH 6.7 or later"
        : parsed[0] < CHECKED_NAMES_SINCE[0] || (parsed[0] === CHECKED_NAMES_SINCE[0] && parsed[1] < CHECKED_NAMES_SINCE[1])
        ? "; WARNING: below OpenSSH 9.6, ssh does not refuse shell characters in user and host names itself (the hosts file's destinations are checked here; a ProxyCommand with %h or %r in your ssh_config still hands them to a shell)"
        : ""
      return `ssh (${version})${warning}`
    }),
    Effect.orElseSucceed(() => "ssh: NOT FOUND or not runnable: install OpenSSH's client; no host can be reached"),
    Effect.provide(TmuxProcesses.layer)
  )

/** A socket's line: what its probe over the forward says, with `forwardingWorks` when another socket of the host answered. */
const socketValue = (probe: Result.Result<SurveyProbe, string>, listed: boolean, forwardingWorks: boolean, directory: string): string => {
  if (Result.isFailure(probe)) return probe.failure
  switch (probe.success._tag) {
    case "Answered": {
      const { server, sessionCount } = probe.success.answer
      return `running (pid ${server.pid}, tmux ${server.version}, ${sessionCount} sessions)`
    }
    case "Unresponsive":
      return `WARNING did not answer within ${PROBE_TIMEOUT_MS / 1000} s (a stopped or wedged tmux): calls there will time out`
    case "NoServer":
      return !listed
        ? `not running (no socket file in ${directory})`
        : forwardingWorks
        ? "closed before any answer: no server behind this socket file (a killed tmux leaves it); forwarding works, other sockets answered"
        : `WARNING closed before any answer, right after the forward: ${SSHD_FORWARDING} (its log then says "but the request was denied"); or no server is behind this socket file (a killed tmux leaves it)`
  }
}

/** A probe's failure as doctor says it: tmux refusing the login user gets what to do. */
const probeFailure = (error: Parameters<typeof failureText>[0]): string =>
  error._tag === "Failed" && error.reason === "access"
    ? "WARNING tmux there refuses the ssh login user (access not allowed): log in as the server's owner, or have its owner run `tmux server-access -a <user>` in it"
    : `could not be asked: ${failureText(error)}`

/** One host's lines: its link (connecting now), then each socket. */
const hostLines = (
  connections: ConnectionsShape,
  settings: HostSettings
): Effect.Effect<Array<string>, never, Tmux | SocketResolver> =>
  Effect.gen(function*() {
    const { destination, name } = settings
    const label = `host ${name}`
    const viewed = yield* Effect.result(connections.view(name))
    if (Result.isFailure(viewed)) {
      // The host's errors start with "host <name> (ssh <destination>): "; the label says that.
      const text = failureText(viewed.failure)
      const prefix = `host ${name} (ssh ${destination}): `
      const words = text.startsWith(prefix) ? text.slice(prefix.length) : text
      const advice = sshAdvice(words)
      const said = advice === "" ? words : `${words.replace(/\.$/, "")}. ${advice}`
      return [reportLine(label, `WARNING unreachable: ssh ${destination}: ${said}`)]
    }
    const view = viewed.success
    const link = connections.link(name)
    const head = reportLine(
      label,
      `${link.state}: ssh ${destination}, uid ${view.uid}, sockets in ${view.socketDirectory}; ${
        view.runDirectory === null ? "no private directory for run_command's logs" : `run logs in ${view.runDirectory}`
      }; server start ${view.allowServerStart ? "allowed" : "off"}${
        settings.safety === undefined ? "" : `; safety at most ${settings.safety}`
      }`
    )
    const listing = yield* Effect.result(connections.sockets(name))
    if (Result.isFailure(listing)) return [head, reportLine("  sockets", `could not be listed: ${failureText(listing.failure)}`)]
    const allowed = view.allowedSockets
    const listed = allowed === undefined ? listing.success : listing.success.filter((socket) => allowed.includes(socket))
    const names = [...listed, ...(allowed ?? []).filter((socket) => !listed.includes(socket))]
    if (names.length === 0) {
      return [head, reportLine("  sockets", `none in ${view.socketDirectory}: no tmux server runs there for this user`)]
    }
    const resolver = yield* SocketResolver
    const probes = yield* Effect.forEach(
      names,
      (socket) =>
        onHost(name)(resolver.resolve({ socket_name: socket })).pipe(
          Effect.flatMap((resolved) => askSocket(resolved, [], true)),
          Effect.mapError(probeFailure),
          Effect.result
        ),
      { concurrency: "unbounded" }
    )
    const forwardingWorks = probes.some((probe) => Result.isSuccess(probe) && probe.success._tag === "Answered")
    return [
      head,
      ...names.map((socket, index) =>
        reportLine(`  socket ${socket}`, socketValue(probes[index]!, listed.includes(socket), forwardingWorks, view.socketDirectory))
      )
    ]
  })

/** The hosts section of doctor's report; empty without a hosts file. */
export const hostsReport = (
  config: TmuxMcpConfigShape,
  connections: Option.Option<ConnectionsShape>
): Effect.Effect<Array<string>, never, Tmux | SocketResolver> =>
  Effect.gen(function*() {
    const hosts = config.hosts
    if (hosts === undefined || Option.isNone(connections)) return []
    const [ssh, perHost] = yield* Effect.all([
      sshLine({ ...config.tmuxEnvironment, ...hosts.environment }),
      // Every host at once: the report waits for the slowest one's connect timeout, not their sum.
      Effect.forEach(hosts.hosts, (settings) => hostLines(connections.value, settings), { concurrency: "unbounded" })
    ], { concurrency: "unbounded" })
    return [
      reportLine("hosts", `${hosts.hosts.length} in ${hosts.file}${hosts.sshConfig === undefined ? "" : ` (ssh -F ${hosts.sshConfig})`}`),
      reportLine("ssh", ssh),
      ...perHost.flat()
    ]
  })
