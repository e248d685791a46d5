/**
 * The text block of a successful result: a compact rendering of the same value `structuredContent`
 * carries as typed JSON, for the many clients that hand the model only the text. Nothing is left
 * out; what JSON would repeat is said once:
 *
 * - a field is a line `name: value` (strings bare unless empty, padded or holding control
 *   characters, which are JSON-quoted); a nested object is `name:` with its fields indented;
 * - a list of objects is a table: `name (N): column column …`, then one line per item with its
 *   values in column order, separated by spaces (a value with a space is JSON-quoted, `-` is null
 *   or absent); an item's own lists of objects follow its line, indented, as tables of their own;
 * - a multi-line text of the result (a capture, a command's output) comes last, raw, after a line
 *   `name (N lines):`, so the framing above it cannot be forged by what a pane printed.
 */

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type JsonObject = { readonly [key: string]: Json }

const isObject = (value: Json | undefined): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value)

const isTable = (value: Json | undefined): value is ReadonlyArray<JsonObject> =>
  Array.isArray(value) && value.length > 0 && value.every((item) => isObject(item))

// eslint-disable-next-line no-control-regex
const UNSAFE_LINE_TEXT = /[\u0000-\u001f\u007f-\u009f]|^\s|\s$|^$/
// eslint-disable-next-line no-control-regex
const UNSAFE_CELL_TEXT = /[\s\u0000-\u001f\u007f-\u009f]|^"|^-$|^$/

/** A value on a `name: value` line. */
const fieldValue = (value: Json): string =>
  typeof value === "string" ? (UNSAFE_LINE_TEXT.test(value) ? JSON.stringify(value) : value) : JSON.stringify(value)

/** A value in a table row. */
const cell = (value: Json | undefined): string => {
  switch (typeof value) {
    case "string":
      return UNSAFE_CELL_TEXT.test(value) ? JSON.stringify(value) : value
    // What JSON.stringify would say, without its call (a 500-pane table has thousands of cells).
    case "number":
      return Number.isFinite(value) ? String(value) : "null"
    case "boolean":
      return value ? "true" : "false"
    default:
      return value === undefined || value === null ? "-" : JSON.stringify(value)
  }
}

const lineCount = (text: string): number => text.split("\n").length

const renderTable = (name: string, items: ReadonlyArray<JsonObject>, indent: string, out: Array<string>): void => {
  const columns: Array<string> = []
  const nested: Array<string> = []
  // A key's place is decided by its first item; a set keeps 500 items × their keys linear.
  const placed = new Set<string>()
  for (const item of items) {
    for (const key of Object.keys(item)) {
      if (placed.has(key)) continue
      placed.add(key)
      ;(isTable(item[key]) ? nested : columns).push(key)
    }
  }
  out.push(`${indent}${name} (${items.length}): ${columns.join(" ")}`)
  for (const item of items) {
    let line = indent
    for (let i = 0; i < columns.length; i++) line += i === 0 ? cell(item[columns[i]!]) : ` ${cell(item[columns[i]!])}`
    out.push(line)
    for (const key of nested) {
      const value = item[key]
      if (isTable(value)) renderTable(key, value, `${indent}  `, out)
      else out.push(`${indent}  ${key}: ${fieldValue(value ?? null)}`)
    }
  }
}

const renderObject = (object: JsonObject, indent: string, out: Array<string>, top: boolean): void => {
  const entries = Object.entries(object)
  const isBlock = (value: Json) => top && typeof value === "string" && value.includes("\n")
  for (const [key, value] of entries) {
    if (isBlock(value) || isTable(value) || (isObject(value) && Object.keys(value).length > 0)) continue
    out.push(`${indent}${key}: ${fieldValue(value)}`)
  }
  for (const [key, value] of entries) if (isTable(value)) renderTable(key, value, indent, out)
  for (const [key, value] of entries) {
    if (isObject(value) && Object.keys(value).length > 0) {
      out.push(`${indent}${key}:`)
      renderObject(value, `${indent}  `, out, false)
    }
  }
  for (const [key, value] of entries) {
    if (isBlock(value)) out.push(`${key} (${lineCount(value as string)} lines):`, value as string)
  }
}

/** The text block for a result value (the encoded output, plain JSON). */
export const renderResultText = (value: unknown): string => {
  if (!isObject(value as Json)) return JSON.stringify(value)
  const out: Array<string> = []
  renderObject(value as JsonObject, "", out, true)
  return out.join("\n")
}
