/**
 * Some clients send every argument as a string (Cursor sends `"10"` for 10, `"true"` for true, an
 * array as its JSON text). Where the tool's schema wants an integer, a boolean, an object or an
 * array and will not take the string as it is, a string that is exactly that value's JSON is read
 * as the value; anything else is left for decoding to refuse. The rules:
 *
 * - a number or boolean only in its canonical spelling (`String(value) === text`): `"10"`, `"-3"`,
 *   `"1.5"`, `"true"`; not `" 10"`, `"010"`, `"1e1"`, `"yes"`, `"True"`, `"1"` for a boolean. A
 *   number that is not an integer is then refused by the integer schema, as 1.5 would be.
 * - an object or array: JSON text that starts with `{` or `[` and ends with `}` or `]`, no space
 *   around it, decoding to the kind the schema wants.
 * - a string the schema takes as a string (a string argument, a literal such as `"-"`, a pattern
 *   such as `"30%"`) is never touched.
 *
 * It is driven by the schema's encoded side, so it applies to every tool alike; the caller runs the
 * argument guard on the result again, so a decoded value holds no NUL, depth or `__proto__` that
 * the guard would refuse.
 */
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"

type Kind = "number" | "boolean" | "object" | "array"

const kindOf = (value: unknown): Kind | "other" => {
  if (Array.isArray(value)) return "array"
  if (typeof value === "object") return value === null ? "other" : "object"
  if (typeof value === "number") return "number"
  return typeof value === "boolean" ? "boolean" : "other"
}

/** The members a value may be checked against, on the encoded side (with its checks), unions spread. */
const members = (ast: SchemaAST.AST): ReadonlyArray<SchemaAST.AST> => {
  let node = SchemaAST.toEncoded(ast)
  while (SchemaAST.isSuspend(node)) node = SchemaAST.toEncoded(node.thunk())
  return SchemaAST.isUnion(node) ? node.types.flatMap(members) : [node]
}

const kindsOf = (node: SchemaAST.AST): ReadonlyArray<Kind> => {
  switch (node._tag) {
    case "Number":
      return ["number"]
    case "Boolean":
      return ["boolean"]
    case "Literal":
      return typeof node.literal === "number" ? ["number"] : typeof node.literal === "boolean" ? ["boolean"] : []
    case "Objects":
    case "ObjectKeyword":
      return ["object"]
    case "Arrays":
      return ["array"]
    default:
      return []
  }
}

// Checked against the encoded side with its checks, so a pattern string ("30%") counts.
const takesString = new WeakMap<SchemaAST.AST, (value: unknown) => boolean>()
const takenAsString = (ast: SchemaAST.AST, value: string): boolean => {
  let is = takesString.get(ast)
  if (is === undefined) {
    is = Schema.is(Schema.make(SchemaAST.toEncoded(ast)))
    takesString.set(ast, is)
  }
  return is(value)
}

/** The value a string is exactly the JSON of, when it is one of `kinds`; else undefined. */
const parsed = (text: string, kinds: ReadonlyArray<Kind>): unknown => {
  const first = text[0]
  const last = text[text.length - 1]
  const structured = (first === "{" && last === "}") || (first === "[" && last === "]")
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  const kind = kindOf(value)
  if (kind === "other" || !kinds.includes(kind)) return undefined
  if (kind === "object" || kind === "array") return structured ? value : undefined
  return String(value) === text ? value : undefined
}

const coerce = (ast: SchemaAST.AST, value: unknown): unknown => {
  const candidates = members(ast)
  if (typeof value === "string") {
    const kinds = candidates.flatMap(kindsOf)
    if (kinds.length === 0 || takenAsString(ast, value)) return value
    const decoded = parsed(value, kinds)
    return decoded === undefined ? value : coerce(ast, decoded)
  }
  const kind = kindOf(value)
  const node = candidates.find((candidate) => kindsOf(candidate).includes(kind as Kind))
  if (node === undefined) return value
  if (SchemaAST.isArrays(node) && Array.isArray(value)) {
    let changed = false
    const items = value.map((item, index) => {
      const element = node.elements[index] ?? node.rest[0]
      const next = element === undefined ? item : coerce(element, item)
      changed ||= next !== item
      return next
    })
    return changed ? items : value
  }
  if (SchemaAST.isObjects(node) && kind === "object") return coerceObject(node, value as Record<string, unknown>)
  return value
}

const coerceObject = (node: SchemaAST.Objects, value: Record<string, unknown>): Record<string, unknown> => {
  let out: Record<string, unknown> | undefined
  for (const [key, item] of Object.entries(value)) {
    const signature = node.propertySignatures.find((property) => property.name === key)
    const type = signature?.type ?? node.indexSignatures[0]?.type
    if (type === undefined) continue
    const next = coerce(type, item)
    if (next !== item) {
      out ??= { ...value }
      out[key] = next
    }
  }
  return out ?? value
}

/**
 * The arguments with the strings that are exactly a wanted value's JSON read as that value; the
 * arguments themselves when nothing changes (and anything that is not an object, as it is).
 */
export const lenientArguments = (schema: Schema.Top, args: unknown): unknown =>
  typeof args === "object" && args !== null && !Array.isArray(args) ? coerce(schema.ast, args) : args
