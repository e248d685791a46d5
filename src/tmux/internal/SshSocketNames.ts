/**
 * The names of this server's ssh sockets in its private directory: a master's control socket and a
 * forward's local end. Each is `<m|f><pid>-<12 hex digits>`: the pid lets a later start sweep the
 * files of processes that are gone (ssh never unlinks them), and a hash of this layer's random
 * instance token with the host (and the remote path) keeps two layers of one process, and any two
 * remote paths, apart, whatever their length: a name is 22 bytes at most, so the path fits a socket
 * address whenever the directory leaves room. The letter tells the sweep what a leftover is: a
 * control socket (`m`) may still have its master behind it.
 */
import { createHash } from "node:crypto"
import { join } from "node:path"
import { MAX_SOCKET_PATH_BYTES } from "../../context/SocketResolver.js"

/** ssh binds its control socket as `<ControlPath>.<16 random characters>` first, then renames it. */
export const CONTROL_SUFFIX_BYTES = 17

const hash = (...parts: ReadonlyArray<string>): string => createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 12)

export const controlSocketPath = (directory: string, pid: number, instance: string, host: string): string =>
  join(directory, `m${pid}-${hash(instance, host)}`)

/**
 * `serial` counts the forwards this layer made: a forward made again after its release gets a file
 * of its own, so the master never takes it for the old one (which it may still be cancelling).
 */
export const forwardSocketPath = (
  directory: string,
  pid: number,
  instance: string,
  host: string,
  remotePath: string,
  serial: number
): string => join(directory, `f${pid}-${hash(instance, host, remotePath, String(serial))}`)

/** Whether ssh can bind `path` as a socket (a control socket also needs room for its temporary suffix). */
export const fitsSocketAddress = (path: string, kind: "control" | "forward"): boolean =>
  Buffer.byteLength(path, "utf8") + (kind === "control" ? CONTROL_SUFFIX_BYTES : 0) <= MAX_SOCKET_PATH_BYTES

/** What a file of this directory is and which pid made it, or undefined for a file not named here. */
export const socketOwner = (name: string): { readonly kind: "control" | "forward"; readonly pid: number } | undefined => {
  const match = /^([fm])(\d+)-[0-9a-f]{12}$/.exec(name)
  return match === null ? undefined : { kind: match[1] === "m" ? "control" : "forward", pid: Number(match[2]) }
}
