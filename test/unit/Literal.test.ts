import { describe, expect, it } from "@effect/vitest"
import { escapeArgvArgument, literalizeFormat } from "../../src/tmux/Literal.js"

describe("literalizeFormat", () => {
  it("doubles every #, so tmux stores #(cmd) and #{var} instead of running or expanding them", () => {
    expect(literalizeFormat("#(rm -rf ~)")).toBe("##(rm -rf ~)")
    expect(literalizeFormat("a #{pid} b")).toBe("a ##{pid} b")
    expect(literalizeFormat("##")).toBe("####")
    expect(literalizeFormat("plain name")).toBe("plain name")
  })

  it("leaves a run of # right before [ as it is: tmux copies that run verbatim", () => {
    expect(literalizeFormat("#[fg=red]")).toBe("#[fg=red]")
    expect(literalizeFormat("a ##[x] #")).toBe("a ##[x] ##")
    expect(literalizeFormat("#[#(touch x)]")).toBe("#[##(touch x)]")
  })
})

describe("escapeArgvArgument", () => {
  it("escapes only a trailing ;", () => {
    expect(escapeArgvArgument("echo hi;")).toBe("echo hi\\;")
    expect(escapeArgvArgument(";")).toBe("\\;")
    expect(escapeArgvArgument("a;b")).toBe("a;b")
    expect(escapeArgvArgument("")).toBe("")
    expect(escapeArgvArgument("ends with \\;")).toBe("ends with \\\\;")
  })
})
