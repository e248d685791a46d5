/**
 * Resource URIs: what an SDK client's template expansion writes is read back exactly, raw ids work
 * too, and nothing but an exact id reaches a tmux target.
 */
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js"
import { describe, expect, it } from "vitest"
import { parseResourceUri } from "../../src/mcp/internal/ResourceUri.js"

const target = (uri: string) => {
  const parsed = parseResourceUri(uri)
  if (parsed._tag !== "Target") throw new Error(`${uri}: ${parsed._tag}`)
  return parsed.target
}

describe("resource URIs", () => {
  it("the SDK's RFC 6570 expansion of every template round-trips its ids and socket", () => {
    const socket_name = "my sock/€"
    expect(target(new UriTemplate("tmux://pane/{pane_id}/screen{?socket_name}").expand({ pane_id: "%12", socket_name })))
      .toEqual({ kind: "screen", pane_id: "%12", socket: { socket_name } })
    expect(target(new UriTemplate("tmux://pane/{pane_id}").expand({ pane_id: "%0" }))).toEqual({ kind: "pane", pane_id: "%0", socket: {} })
    expect(target(new UriTemplate("tmux://window/{window_id}").expand({ window_id: "@7" }))).toEqual({
      kind: "window",
      window_id: "@7",
      socket: {}
    })
    expect(target(new UriTemplate("tmux://session/{session_id}{?socket_path}").expand({ session_id: "$3", socket_path: "/tmp/a b/s" })))
      .toEqual({ kind: "session", session_id: "$3", socket: { socket_path: "/tmp/a b/s" } })
    expect(new UriTemplate("tmux://pane/{pane_id}").expand({ pane_id: "%12" })).toBe("tmux://pane/%2512")
  })

  it("raw ids are read as written when they are not percent-encoded ids", () => {
    expect(target("tmux://pane/%3/screen")).toEqual({ kind: "screen", pane_id: "%3", socket: {} })
    expect(target("tmux://pane/%25")).toEqual({ kind: "pane", pane_id: "%25", socket: {} })
    expect(target("tmux://session/$1")).toEqual({ kind: "session", session_id: "$1", socket: {} })
    expect(target("tmux://window/@2")).toEqual({ kind: "window", window_id: "@2", socket: {} })
    // Encoded wins: %2512 is %12 (RFC 3986 has no raw %).
    expect(target("tmux://pane/%2512")).toEqual({ kind: "pane", pane_id: "%12", socket: {} })
    expect(target("tmux://sessions")).toEqual({ kind: "sessions", socket: {} })
    expect(target("tmux://self")).toEqual({ kind: "self" })
  })

  it("hostile ids and paths are never a target", () => {
    for (
      const uri of [
        "tmux://pane/%0/../x",
        "tmux://pane/%0/..",
        "tmux://pane/%250%2F..%2Fx",
        "tmux://pane/%0%3Bkill-server",
        "tmux://pane/%0;kill-server/screen",
        "tmux://pane/@1",
        "tmux://pane/%",
        "tmux://pane/",
        "tmux://pane/%0/screen/x",
        "tmux://session/%0",
        "tmux://window/$1",
        "tmux://pane/%0#x",
        "tmux://pane/%0?x",
        "tmux://pane/%0?socket_name=",
        "tmux://pane/%0?socket_name=a&socket_name=b",
        "tmux://pane/%0?socket_name=a&socket_path=b",
        "tmux://pane/%0?socket_name=%E0%A4%A",
        "tmux://self?socket_name=a",
        "tmux://pane/ %0",
        "tmux://pane/%0%0A",
        "tmux://pane/%25%23(touch%20x)",
        "tmux://pane/#(touch x)",
        "tmux://session/$1%3Bkill-server",
        "tmux://window/@1%0Akill-server",
        "tmux://window/@1\\",
        "tmux://session/%241%5C"
      ]
    ) {
      expect(parseResourceUri(uri)._tag, uri).not.toBe("Target")
    }
  })

  it("with a hosts file the query may name the host too; without one, host is no query parameter", () => {
    const hosted = (uri: string) => {
      const parsed = parseResourceUri(uri, { hosts: true })
      if (parsed._tag !== "Target") throw new Error(`${uri}: ${parsed._tag}`)
      return parsed.target
    }
    expect(
      hosted(new UriTemplate("tmux://pane/{pane_id}/screen{?host,socket_name}").expand({ pane_id: "%1", host: "build", socket_name: "ci" }))
    )
      .toEqual({ kind: "screen", pane_id: "%1", socket: { host: "build", socket_name: "ci" } })
    expect(hosted("tmux://sessions?host=local")).toEqual({ kind: "sessions", socket: { host: "local" } })
    expect(hosted("tmux://pane/%0")).toEqual({ kind: "pane", pane_id: "%0", socket: {} })
    for (const uri of ["tmux://sessions?host=", "tmux://sessions?host=a&host=b", "tmux://self?host=build"]) {
      expect(parseResourceUri(uri, { hosts: true })._tag, uri).toBe("Malformed")
    }
    expect(parseResourceUri("tmux://sessions?x=1", { hosts: true })).toEqual({
      _tag: "Malformed",
      reason: "the only query parameters are host, socket_name and socket_path"
    })
    // Without a hosts file, as before hosts existed.
    for (const options of [undefined, { hosts: false }]) {
      expect(parseResourceUri("tmux://sessions?host=build", options)).toEqual({
        _tag: "Malformed",
        reason: "the only query parameters are socket_name and socket_path"
      })
    }
  })

  it("a malformed id is explained without echoing it; other schemes are not ours", () => {
    const parsed = parseResourceUri("tmux://pane/%0%3Bsecret")
    expect(parsed).toMatchObject({ _tag: "Malformed" })
    expect(JSON.stringify(parsed)).not.toContain("secret")
    expect(parseResourceUri("file:///etc/passwd")._tag).toBe("Unknown")
    expect(parseResourceUri("tmux://nothing")._tag).toBe("Unknown")
  })
})
