/**
 * A private OpenSSH sshd on loopback for a test: its own host key, client key, authorized_keys,
 * sshd_config and ssh_config in one 0700 temporary directory, a free high port on 127.0.0.1, and a
 * "remote world" of its own so nothing local can pass for remote: every session sshd starts gets
 * `TMUX_TMPDIR` and `HOME` pointing into that world (sshd's SetEnv, OpenSSH >= 8.7).
 *
 * What reaches a remote command (found by experiment, OpenSSH 9.2p1, `ssh -F cfg alias 'echo …'`,
 * as root and the same for another user):
 * - `HOME` and `TMUX_TMPDIR` are the remote world's (`remote.home`, `remote.tmpdir`): SetEnv does
 *   override HOME. So do `PATH` (set here to this process's PATH, so both sides run the same tmux,
 *   e.g. the version matrix's wrapper), `LANG=C.UTF-8` and `HISTFILE=/dev/null`.
 * - The working directory is NOT the remote HOME: sshd changes into the passwd home directory (here
 *   /root) before it runs the command, whatever HOME says. A path that exists only locally is not
 *   the cwd; the passwd home is the same directory on both sides of this loopback "remote".
 * - `USER`, `LOGNAME`, `SHELL`, `MAIL` come from the passwd entry; `SSH_CLIENT`/`SSH_CONNECTION`
 *   are set; the command runs in the login shell as `<shell> -c`, not as a login shell.
 * - A tmux server started from a remote command (or from `tmux` run locally with `remoteEnv`) puts
 *   its socket at `<remote.tmpdir>/tmux-<uid>/<name>`: `remoteSocketPath(name)`.
 *
 * sshd refuses Unix-socket forwarding whenever `AllowTcpForwarding` is `no`, even with
 * `AllowStreamLocalForwarding` allowing it: `allowTcpForwarding: "no"` gives a host that refuses,
 * where `ssh -O forward -L` still succeeds (it only binds locally) and the first connection through
 * the forward is closed (sshd logs "... but the request was denied").
 *
 * The client side never touches ~/.ssh or /etc/ssh: `ssh -F <sshConfigPath>` skips both
 * configuration files, and the host entry names its identity, an empty agent and a known_hosts
 * pre-seeded with this sshd's host key (StrictHostKeyChecking yes).
 *
 * The login account can be given another login shell and HOME (`account`, as root only): sshd then
 * runs in a mount namespace of its own (`unshare --mount`) where /etc/passwd is a copy with this
 * user's entry changed, bound over the real one, so sshd runs commands with that shell (`<shell> -c`)
 * in that directory, with HOME set from it (not by SetEnv), and nothing outside the namespace sees
 * the change. The HOME directory is made inside dir.
 *
 * As root, sshd needs its privilege separation directory (/run/sshd on Debian, made by the
 * service, absent in a container that never ran it): it is made (0755, root's) when missing.
 *
 * Start-up and `stop()` are synchronous (a world is made inside a test without awaiting; an exit
 * handler cannot await). `stop()` ends sshd and every session process under it (SIGTERM, then
 * SIGKILL), then removes the directory; it also runs at process exit for a sshd never stopped.
 * Processes a session leaves behind by daemonizing (tmux servers) are the caller's to end.
 */
import { spawn, spawnSync } from "node:child_process"
import { chmodSync, closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"
import { descendantsOf, isRunning, pollSync, terminate } from "./ProcessTree.js"

export interface PrivateSshdOptions {
  /** sshd's AllowTcpForwarding: `local` (default) lets clients forward to remote Unix sockets; `no` refuses every forward. */
  readonly allowTcpForwarding?: "local" | "no"
  /** The ssh_config host alias (default `etm-ci`). */
  readonly alias?: string
  /** More variables for remote sessions (SetEnv), on top of HOME, TMUX_TMPDIR, PATH, LANG, HISTFILE. */
  readonly env?: Readonly<Record<string, string>>
  /** The sshd binary (default /usr/sbin/sshd). */
  readonly sshd?: string
  /** The login account's shell (a path) and HOME (a directory name, made inside dir; no `:` or newline), as passwd says. Root only. */
  readonly account?: { readonly shell?: string; readonly homeName?: string }
}

/** One host entry of the product's hosts file (LIBTMUX_MCP_HOSTS / --hosts), less `ssh`. */
export interface HostsFileEntry {
  readonly sockets?: ReadonlyArray<string>
  readonly allow_server_start?: boolean
  readonly safety?: "readonly" | "mutating" | "destructive"
  readonly connect_timeout_s?: number
}

export interface HostsFile {
  readonly ssh_config?: string
  readonly hosts: Readonly<Record<string, HostsFileEntry & { readonly ssh: string }>>
}

export interface SshResult {
  readonly status: number
  readonly stdout: string
  readonly stderr: string
}

export interface PrivateSshd {
  /** The ssh_config alias that reaches this sshd (`ssh -F sshConfigPath alias`). */
  readonly alias: string
  readonly sshConfigPath: string
  readonly port: number
  /** sshd's pid (the listener). */
  readonly pid: number
  /** The 0700 temporary directory holding everything (removed by stop). */
  readonly dir: string
  readonly identityFile: string
  readonly knownHostsPath: string
  /** sshd's log (`-e`, LogLevel VERBOSE): refused forwards and failed logins are explained here. */
  readonly logPath: string
  readonly log: () => string
  /**
   * The remote world: what remote sessions get as TMUX_TMPDIR and HOME (both 0700, inside dir), and
   * the directory tmux makes in TMUX_TMPDIR for this uid's sockets (`<tmpdir>/tmux-<uid>`).
   */
  readonly remote: { readonly tmpdir: string; readonly home: string; readonly socketDir: string }
  /** The environment of a remote session as far as tmux cares, to start remote-world tmux locally without ssh. */
  readonly remoteEnv: Readonly<Record<string, string>>
  /** Where a tmux server named `socketName` in the remote world has its socket. */
  readonly remoteSocketPath: (socketName: string) => string
  /** `ssh -F sshConfigPath <options> -- alias [command]`, synchronously (BatchMode is in the config). */
  readonly ssh: (options: ReadonlyArray<string>, command?: string) => SshResult
  /** A hosts file for the product naming this sshd as host `name`, with this ssh_config. */
  readonly hostsFile: (name: string, entry?: HostsFileEntry) => HostsFile
  /** Writes `hostsFile(name, entry)` as JSON into dir and answers its path. */
  readonly writeHostsFile: (name: string, entry?: HostsFileEntry) => string
  /** sshd and its session processes still running (empty after stop). */
  readonly processes: () => Array<number>
  readonly stop: () => void
}

/** Bounds for a loaded machine, not timing assertions. */
const LISTEN_TIMEOUT_MS = 10_000
const SSH_TIMEOUT_MS = 15_000
/** Port selection: a port found free can be taken before sshd binds it; then another is tried. */
const PORT_ATTEMPTS = 5

/** sshd_config and ssh_config values are written in double quotes; these would break out or expand. */
const configValue = (value: string): string => {
  if (/["\n\r%]/.test(value)) throw new Error(`cannot write ${JSON.stringify(value)} into an ssh configuration`)
  return `"${value}"`
}

/** A port nothing listens on now, from the kernel (bind to port 0), in a short child process. */
const freePort = (): number => {
  const script =
    "const s = require('node:net').createServer(); s.listen(0, '127.0.0.1', () => { process.stdout.write(String(s.address().port)); s.close() })"
  const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 10_000 })
  const port = Number(result.stdout)
  if (result.status !== 0 || !Number.isInteger(port) || port <= 0) throw new Error(`no free port: ${result.stderr}`)
  return port
}

const run = (command: string, args: ReadonlyArray<string>) => {
  const result = spawnSync(command, args, { encoding: "utf8", timeout: 10_000 })
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed: ${result.stderr}${result.error?.message ?? ""}`)
  return result.stdout
}

const keyPair = (path: string, comment: string) => {
  run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path])
  // `<type> <base64> <comment>`: known_hosts wants the first two.
  return readFileSync(`${path}.pub`, "utf8").trim().split(" ").slice(0, 2).join(" ")
}

/** Run by /bin/sh in the new mount namespace: binds $1 over /etc/passwd, then becomes sshd (same pid). */
const BIND_PASSWD = `mount --bind "$1" /etc/passwd && shift && exec "$@"`

/** A copy of /etc/passwd at `target` whose entry for `user` has `shell` (if given) and `home`. */
const accountPasswd = (user: string, shell: string | undefined, home: string, target: string): string => {
  if (process.getuid?.() !== 0) throw new Error("a login account of its own needs root (a mount namespace over /etc/passwd)")
  if (/[:\n]/.test(home)) throw new Error(`a passwd HOME cannot hold ':' or a newline: ${JSON.stringify(home)}`)
  let found = false
  const lines = readFileSync("/etc/passwd", "utf8").split("\n").map((line) => {
    const fields = line.split(":")
    if (fields[0] !== user || fields.length !== 7) return line
    found = true
    return [...fields.slice(0, 5), home, shell ?? fields[6]].join(":")
  })
  if (!found) throw new Error(`no /etc/passwd entry for ${user}`)
  writeFileSync(target, lines.join("\n"), { mode: 0o644 })
  return target
}

const PRIVSEP_MISSING = /Missing privilege separation directory: (\/\S+)/

/** Checks the configuration with `sshd -t`; as root, makes a missing privilege separation directory first. */
const checkConfig = (sshd: string, configPath: string) => {
  const test = () => spawnSync(sshd, ["-t", "-f", configPath], { encoding: "utf8", timeout: 10_000 })
  let result = test()
  const missing = PRIVSEP_MISSING.exec(result.stderr ?? "")
  if (result.status !== 0 && missing !== null && process.getuid?.() === 0) {
    mkdirSync(missing[1]!, { recursive: true, mode: 0o755 })
    result = test()
  }
  if (result.status !== 0) throw new Error(`sshd -t -f ${configPath} failed: ${result.stderr}${result.error?.message ?? ""}`)
}

export const startPrivateSshd = (options: PrivateSshdOptions = {}): PrivateSshd => {
  const sshd = options.sshd ?? "/usr/sbin/sshd"
  const alias = options.alias ?? "etm-ci"
  const user = userInfo().username
  const uid = process.getuid?.() ?? 0
  // realpath: tmux resolves TMUX_TMPDIR through it, so socket paths compare equal to tmux's own.
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "etm-sshd-")))
  chmodSync(dir, 0o700)
  const path = (name: string) => join(dir, name)
  const remote = {
    tmpdir: path("remote-tmp"),
    home: path(options.account?.homeName ?? "remote-home"),
    socketDir: join(path("remote-tmp"), `tmux-${uid}`)
  }
  const remoteEnv: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LANG: "C.UTF-8",
    // Remote shells would write their history into the remote HOME as they are killed.
    HISTFILE: "/dev/null",
    ...options.env,
    HOME: remote.home,
    TMUX_TMPDIR: remote.tmpdir
  }
  const identityFile = path("client_ed25519")
  const knownHostsPath = path("known_hosts")
  const sshConfigPath = path("ssh_config")
  const sshdConfigPath = path("sshd_config")
  const logPath = path("sshd.log")
  let child: ReturnType<typeof spawn> | undefined
  let stopped = false

  const stop = () => {
    if (stopped) return
    stopped = true
    process.removeListener("exit", stop)
    if (child?.pid !== undefined) {
      // Sessions first in the list: once the listener is gone they are init's, no longer findable.
      const left = terminate([...descendantsOf(child.pid), child.pid])
      if (left.length > 0) process.stderr.write(`PrivateSshd: processes ${left.join(", ")} survived SIGKILL\n`)
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 })
  }
  process.once("exit", stop)

  try {
    mkdirSync(remote.tmpdir, { mode: 0o700 })
    mkdirSync(remote.home, { mode: 0o700 })
    const hostKey = keyPair(path("host_ed25519"), "etm-test-sshd-host")
    keyPair(identityFile, "etm-test-sshd-client")
    writeFileSync(path("authorized_keys"), readFileSync(`${identityFile}.pub`), { mode: 0o600 })

    const passwdCopy = options.account === undefined ? undefined : accountPasswd(user, options.account.shell, remote.home, path("passwd"))

    const writeConfigs = (port: number) => {
      // With an account of its own, HOME comes from its passwd entry, as on a real host.
      const setEnv = Object.entries(remoteEnv)
        .filter(([name]) => passwdCopy === undefined || name !== "HOME")
        .map(([name, value]) => configValue(`${name}=${value}`))
        .join(" ")
      writeFileSync(
        sshdConfigPath,
        [
          "ListenAddress 127.0.0.1",
          `Port ${port}`,
          `HostKey ${configValue(path("host_ed25519"))}`,
          `PidFile ${configValue(path("sshd.pid"))}`,
          `AuthorizedKeysFile ${configValue(path("authorized_keys"))}`,
          `AllowUsers ${user}`,
          "AuthenticationMethods publickey",
          "PasswordAuthentication no",
          "KbdInteractiveAuthentication no",
          "UsePAM no",
          // The key files live in a temporary directory, not in ~/.ssh with the modes sshd checks.
          "StrictModes no",
          // Tests run as root in CI.
          "PermitRootLogin yes",
          "PermitUserEnvironment no",
          `AllowTcpForwarding ${options.allowTcpForwarding ?? "local"}`,
          "AllowStreamLocalForwarding local",
          "AllowAgentForwarding no",
          "X11Forwarding no",
          "PermitTunnel no",
          "GatewayPorts no",
          // Many channels and exec sessions over one master; several masters at once.
          "MaxSessions 64",
          "MaxStartups 64:30:128",
          "UseDNS no",
          "PrintMotd no",
          "PrintLastLog no",
          "LogLevel VERBOSE",
          `SetEnv ${setEnv}`,
          ""
        ].join("\n")
      )
      writeFileSync(knownHostsPath, `[127.0.0.1]:${port} ${hostKey}\n`)
      writeFileSync(
        sshConfigPath,
        [
          `Host ${alias}`,
          "  HostName 127.0.0.1",
          `  Port ${port}`,
          `  User ${user}`,
          `  IdentityFile ${configValue(identityFile)}`,
          "  IdentitiesOnly yes",
          "  IdentityAgent none",
          "  PreferredAuthentications publickey",
          `  UserKnownHostsFile ${configValue(knownHostsPath)}`,
          "  GlobalKnownHostsFile /dev/null",
          "  StrictHostKeyChecking yes",
          "  UpdateHostKeys no",
          "  BatchMode yes",
          ""
        ].join("\n")
      )
    }

    /** Starts sshd on `port`; answers false when the port was taken meanwhile. */
    const listenOn = (port: number): boolean => {
      writeConfigs(port)
      checkConfig(sshd, sshdConfigPath)
      const log = openSync(logPath, "w")
      try {
        const argv = [sshd, "-D", "-e", "-f", sshdConfigPath]
        child = passwdCopy === undefined
          ? spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "ignore", log] })
          : spawn("unshare", ["--mount", "--propagation", "private", "--", "/bin/sh", "-c", BIND_PASSWD, "sh", passwdCopy, ...argv], {
            stdio: ["ignore", "ignore", log]
          })
      } finally {
        closeSync(log)
      }
      // Nothing is awaited on it: stop() ends it; unref keeps a forgotten one from holding the worker.
      child.unref()
      const pid = child.pid
      if (pid === undefined) throw new Error(`${sshd} did not start`)
      const readLog = () => readFileSync(logPath, "utf8")
      const listening = `Server listening on 127.0.0.1 port ${port}.`
      pollSync(() => readLog().includes(listening) || !isRunning(pid), LISTEN_TIMEOUT_MS)
      if (readLog().includes(listening)) return true
      if (!isRunning(pid) && readLog().includes("Address already in use")) return false
      throw new Error(`sshd did not listen on port ${port}:\n${readLog()}`)
    }

    let port = 0
    for (let attempt = 1; port === 0; attempt++) {
      const candidate = freePort()
      if (listenOn(candidate)) port = candidate
      else if (attempt === PORT_ATTEMPTS) throw new Error(`sshd found no free port in ${PORT_ATTEMPTS} tries`)
    }

    const ssh = (sshOptions: ReadonlyArray<string>, command?: string): SshResult => {
      const args = ["-F", sshConfigPath, ...sshOptions, "--", alias, ...(command === undefined ? [] : [command])]
      const result = spawnSync("ssh", args, { encoding: "utf8", timeout: SSH_TIMEOUT_MS })
      return { status: result.status ?? -1, stdout: result.stdout ?? "", stderr: `${result.stderr ?? ""}${result.error?.message ?? ""}` }
    }
    // Listening is not logging in: one login proves keys, known_hosts and the user.
    const login = ssh(["-o", "ConnectTimeout=5"], "true")
    if (login.status !== 0) throw new Error(`ssh to the private sshd failed: ${login.stderr}\nsshd log:\n${readFileSync(logPath, "utf8")}`)

    const hostsFile = (name: string, entry: HostsFileEntry = {}): HostsFile => ({
      ssh_config: sshConfigPath,
      hosts: { [name]: { ssh: alias, ...entry } }
    })
    const pid = child!.pid!
    return {
      alias,
      sshConfigPath,
      port,
      pid,
      dir,
      identityFile,
      knownHostsPath,
      logPath,
      log: () => readFileSync(logPath, "utf8"),
      remote,
      remoteEnv,
      remoteSocketPath: (socketName) => join(remote.socketDir, socketName),
      ssh,
      hostsFile,
      writeHostsFile: (name, entry) => {
        const file = path(`hosts-${name}.json`)
        writeFileSync(file, `${JSON.stringify(hostsFile(name, entry), null, 2)}\n`)
        return file
      },
      processes: () => (isRunning(pid) ? [pid, ...descendantsOf(pid)] : descendantsOf(pid)),
      stop
    }
  } catch (error) {
    stop()
    throw error
  }
}
