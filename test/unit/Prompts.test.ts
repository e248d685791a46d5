/**
 * The prompts name real tools with real arguments, take only their own arguments, and stay short.
 */
import { describe, expect, it } from "vitest"
import { getPrompt, listedPrompts, prompts } from "../../src/mcp/Prompts.js"
import { allTools } from "../../src/tools/registry.js"

const SAMPLE: Record<string, string> = {
  command: "make test",
  pane_id: "%3",
  ready: "listening on",
  failed: "Error",
  pattern: "FAIL",
  look_for: "^not ok",
  session_name: "work",
  commands: "npm run dev\nnpm test -- --watch"
}

const textOf = (name: string, args: Record<string, string>): string => {
  const result = getPrompt(name, args)
  if (result === undefined || typeof result === "string") throw new Error(`${name}: ${String(result)}`)
  const content = result.messages[0]!.content
  if (content.type !== "text") throw new Error("not text")
  return content.text
}

const inputFields = (name: string): Array<string> | undefined => {
  const tool = allTools.find((candidate) => candidate.name === name)
  return tool === undefined ? undefined : Object.keys((tool.input as unknown as { fields: Record<string, unknown> }).fields)
}

describe("prompts", () => {
  it("has four to five prompts, each a few hundred bytes, listed without their text", () => {
    expect(prompts.length).toBeGreaterThanOrEqual(4)
    expect(prompts.length).toBeLessThanOrEqual(5)
    expect(Buffer.byteLength(JSON.stringify(listedPrompts))).toBeLessThan(2500)
    for (const prompt of listedPrompts) expect(Object.keys(prompt)).not.toContain("text")
  })

  it("every tool_name(arguments) a prompt mentions is a tool of the registry, and every argument named is one of its inputs", () => {
    let calls = 0
    for (const prompt of prompts) {
      const args = Object.fromEntries((prompt.arguments ?? []).map((argument) => [argument.name, SAMPLE[argument.name]!]))
      const text = textOf(prompt.name, args)
      expect(Buffer.byteLength(text), prompt.name).toBeLessThan(1200)
      for (const match of text.matchAll(/\b([a-z]+(?:_[a-z]+)+)\(([^)]*)\)/g)) {
        calls++
        const fields = inputFields(match[1]!)
        expect(fields, `${prompt.name} mentions ${match[1]}`).toBeDefined()
        for (const piece of match[2]!.split(",")) {
          const argument = piece.trim().match(/^([a-z_]+)(?:=|$)/)?.[1]
          if (argument !== undefined) expect(fields, `${prompt.name}: ${match[1]}(${argument})`).toContain(argument)
        }
      }
    }
    expect(calls).toBeGreaterThan(15)
  })

  it("the workflows name the tool that does them right", () => {
    expect(textOf("run_and_read", { command: "ls" })).toContain("run_command(pane_id, command)")
    expect(textOf("watch_job", { pane_id: "%1", ready: "up" })).toContain("since=cursor")
    expect(textOf("run_and_read", { command: "make test", look_for: "^FAIL" })).toContain(
      `run_command(pane_id, command, match={"patterns":["^FAIL"],"regex":true})`
    )
    expect(textOf("find_error", {})).toContain("search_panes(")
    expect(textOf("find_error", {})).toContain("run_command(pane_id, command, match=")
    expect(textOf("build_workspace", { session_name: "w" })).toContain("create_session(session_name, command, panes=[")
    expect(textOf("stop_hung_command", { pane_id: "%1" })).toMatch(/is_caller[\s\S]*C-c/)
  })

  it("a missing required argument, an unknown one or a bad pane id is refused without echoing it; an unknown prompt is undefined", () => {
    expect(getPrompt("watch_job", { pane_id: "%1" })).toBe("watch_job needs ready")
    expect(getPrompt("find_error", { secret_key: "x" })).toMatch(/^find_error takes only pattern$/)
    const bad = getPrompt("stop_hung_command", { pane_id: "%1;kill-server" })
    expect(bad).toBe("pane_id must be a pane id such as %3")
    expect(getPrompt("no_such_prompt")).toBeUndefined()
  })
})
