/**
 * The ssh sockets' names stay short whatever the host and remote path, so they fit a socket
 * address (107 bytes) under any sensible private directory; the sweep reads back only its own names.
 */
import { describe, expect, it } from "@effect/vitest"
import { MAX_SOCKET_PATH_BYTES } from "../../src/context/SocketResolver.js"
import { controlSocketPath, fitsSocketAddress, forwardSocketPath, socketOwner } from "../../src/tmux/internal/SshSocketNames.js"

// tmux's TMUX_TMPDIR default and the largest uid: the private directory as Connections makes it.
const DIRECTORY = "/tmp/effect-tmux-mcp-4294967295/ssh"
const LONG_HOST = `h${"x".repeat(62)}`
const LONG_REMOTE = `/${"r".repeat(MAX_SOCKET_PATH_BYTES - 1)}`

describe("ssh socket names", () => {
  it("are at most 107 bytes for the longest host name, remote path and pid, with room for ssh's control suffix", () => {
    const forward = forwardSocketPath(DIRECTORY, 4_194_304, "0123456789ab", LONG_HOST, LONG_REMOTE, Number.MAX_SAFE_INTEGER)
    const control = controlSocketPath(DIRECTORY, 4_194_304, "0123456789ab", LONG_HOST)
    expect(Buffer.byteLength(forward)).toBeLessThanOrEqual(MAX_SOCKET_PATH_BYTES)
    expect(fitsSocketAddress(forward, "forward")).toBe(true)
    expect(fitsSocketAddress(control, "control")).toBe(true)
    expect(forward.length - DIRECTORY.length).toBeLessThanOrEqual(22)
  })

  it("differ per host, remote path, layer instance and serial, and stay the same for the same ones", () => {
    const names = new Set([
      forwardSocketPath(DIRECTORY, 1, "a", "build", "/tmp/tmux-1/default", 1),
      forwardSocketPath(DIRECTORY, 1, "a", "build", "/tmp/tmux-1/ci", 1),
      forwardSocketPath(DIRECTORY, 1, "a", "gpu", "/tmp/tmux-1/default", 1),
      forwardSocketPath(DIRECTORY, 1, "b", "build", "/tmp/tmux-1/default", 1),
      forwardSocketPath(DIRECTORY, 1, "a", "build", "/tmp/tmux-1/default", 2)
    ])
    expect(names.size).toBe(5)
    expect(forwardSocketPath(DIRECTORY, 1, "a", "build", "/x", 1)).toBe(forwardSocketPath(DIRECTORY, 1, "a", "build", "/x", 1))
  })

  it("refuse a directory that leaves no room, the control socket first", () => {
    const deep = `/${"d".repeat(80)}`
    expect(fitsSocketAddress(controlSocketPath(deep, 1, "a", "build"), "control")).toBe(false)
    expect(fitsSocketAddress(forwardSocketPath(deep, 1, "a", "build", "/x", 1), "forward")).toBe(true)
    expect(fitsSocketAddress(forwardSocketPath(`${deep}${"d".repeat(20)}`, 1, "a", "build", "/x", 1), "forward")).toBe(false)
  })

  it("name their owner's pid and what they are, and only theirs are swept", () => {
    expect(socketOwner("f123-0123456789ab")).toEqual({ kind: "forward", pid: 123 })
    expect(socketOwner("m9-abcdefabcdef")).toEqual({ kind: "control", pid: 9 })
    for (const other of ["f123", "f123-xyz", "notes.txt", "f12-0123456789abc", "x1-0123456789ab"]) {
      expect(socketOwner(other)).toBeUndefined()
    }
  })
})
