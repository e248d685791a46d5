/**
 * Checks on a tool call's raw arguments before any schema sees them, so what no tool can take is
 * `invalid_input` naming the argument, never a defect and never the value:
 *
 * - nesting deeper than MAX_ARGUMENT_DEPTH (a decoder, the audit log or JSON.stringify would run
 *   out of stack on 100,000 levels);
 * - a `__proto__` key: JSON.parse makes it an own key, and the SDK's request parsing then copies
 *   it onto the object's prototype, where no excess-property check sees it;
 * - NUL in a string: no argv item or path can hold one (Node refuses to spawn), except in the text
 *   of a tool's `binary` text arguments (tmux reads those from the client's standard input);
 * - a string over MAX_ARGUMENT_BYTES (what one tmux command line can carry, about 16 KiB; Linux
 *   refuses an argv item over 128 KiB outright), except a tool's declared text arguments, which
 *   it bounds itself.
 *
 * The walk is iterative and stops at the first problem, so its cost is bounded by the request size.
 */
import * as Result from "effect/Result"
import { InvalidInput } from "../../domain/Errors.js"
import type { AnyTool } from "../../tools/Tool.js"

export const MAX_ARGUMENT_DEPTH = 8
export const MAX_ARGUMENT_BYTES = 16_384

/** A path segment fit for a message: a caller's key is shown only when it is short and plain. */
export const pathSegment = (key: string | number): string =>
  typeof key === "number" || /^[A-Za-z0-9_.-]{1,64}$/.test(key) ? String(key) : "[key]"

const describePath = (path: ReadonlyArray<string | number>): string => path.length === 0 ? "arguments" : path.map(pathSegment).join(".")

const refuse = (path: ReadonlyArray<string | number>, problem: string) =>
  Result.fail(new InvalidInput({ reason: `${describePath(path)}: ${problem}` }))

/**
 * A copy of `args` with an own `__proto__` key again, for a request whose key the SDK's parsing
 * dropped (StdioTransport's `hadProtoKey`): the check below then refuses it like any other.
 */
export const withProtoKey = (args: unknown): Record<string, unknown> => {
  const copy: Record<string, unknown> = typeof args === "object" && args !== null ? { ...args } : {}
  Object.defineProperty(copy, "__proto__", { value: {}, enumerable: true, configurable: true, writable: true })
  return copy
}

export const checkArguments = (tool: AnyTool, args: unknown): Result.Result<void, InvalidInput> => {
  const text = tool.textArguments ?? {}
  const stack: Array<{ readonly value: unknown; readonly path: ReadonlyArray<string | number> }> = [{ value: args, path: [] }]
  while (stack.length > 0) {
    const { value, path } = stack.pop()!
    const argument = typeof path[0] === "string" ? path[0] : undefined
    const carrier = argument === undefined ? undefined : Object.hasOwn(text, argument) ? text[argument] : undefined
    if (typeof value === "string") {
      if (carrier !== "binary" && value.includes("\0")) return refuse(path, "must not contain NUL characters.")
      if (carrier === undefined && Buffer.byteLength(value, "utf8") > MAX_ARGUMENT_BYTES) {
        return refuse(path, `must be at most ${MAX_ARGUMENT_BYTES} bytes (one tmux command line holds about 16 KiB).`)
      }
      continue
    }
    if (typeof value !== "object" || value === null) continue
    if (path.length > MAX_ARGUMENT_DEPTH) {
      return refuse(path.slice(0, 1), `nests deeper than ${MAX_ARGUMENT_DEPTH} levels; no argument does.`)
    }
    if (Array.isArray(value)) {
      value.forEach((item, index) => stack.push({ value: item, path: [...path, index] }))
      continue
    }
    const prototype = Object.getPrototypeOf(value)
    if ((prototype !== Object.prototype && prototype !== null) || Object.hasOwn(value, "__proto__")) {
      return refuse(path, "holds the key __proto__, which is not an argument.")
    }
    for (const [key, item] of Object.entries(value)) stack.push({ value: item, path: [...path, key] })
  }
  return Result.succeed(undefined)
}
