/**
 * A tool's output encoder, compiled once per schema: the same result as `Schema.encodeSync(schema)`
 * (the same value, keys in the same order, unknown keys dropped, DisplayText escaped), at a
 * fraction of its cost. Effect's parser builds an Either and merges options at every node, which
 * made encoding 500 panes the largest piece of a list_panes call (~4 ms); here each node is a plain
 * function that returns the encoded value or NO_MATCH.
 *
 * The nodes tool outputs use are compiled (keywords, literals, refinements, final transformations,
 * structs, arrays, unions); any other node is encoded by Effect's own parser for that subtree, so
 * nothing is ever encoded differently. A value that does not match is a bug of the handler: the
 * caller gets Effect's own ParseError for it (thrown, a defect).
 */
import * as Result from "effect/Result"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"

const NO_MATCH: unique symbol = Symbol("NO_MATCH")
type Encoder = (value: unknown) => unknown

const hasOwn = (value: object, key: PropertyKey): boolean => Object.prototype.hasOwnProperty.call(value, key)

/** Effect's own encoding of a subtree this compiler does not handle. */
const byEffect = (ast: SchemaAST.AST): Encoder => {
  const encode = ParseResult.encodeUnknownEither(Schema.make(ast))
  return (value) => {
    const result = encode(value)
    return Result.isSuccess(result) ? result.success : NO_MATCH
  }
}

const guard = (test: (value: unknown) => boolean): Encoder => (value) => test(value) ? value : NO_MATCH

const struct = (ast: SchemaAST.TypeLiteral): Encoder => {
  if (ast.indexSignatures.length > 0 || ast.propertySignatures.length === 0) return byEffect(ast)
  const properties = ast.propertySignatures.map((ps) => ({ name: ps.name, optional: ps.isOptional, encode: compile(ps.type) }))
  return (value) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return NO_MATCH
    const input = value as Record<PropertyKey, unknown>
    const output: Record<PropertyKey, unknown> = {}
    for (const property of properties) {
      if (property.optional && !hasOwn(input, property.name)) continue
      const encoded = property.encode(input[property.name])
      if (encoded === NO_MATCH) return NO_MATCH
      output[property.name] = encoded
    }
    return output
  }
}

const tuple = (ast: SchemaAST.TupleType): Encoder => {
  // Only plain arrays (`Schema.Array`): no fixed elements, one rest type.
  if (ast.elements.length > 0 || ast.rest.length !== 1) return byEffect(ast)
  const item = compile(ast.rest[0]!.type)
  return (value) => {
    if (!Array.isArray(value)) return NO_MATCH
    const output = new Array<unknown>(value.length)
    for (let i = 0; i < value.length; i++) {
      const encoded = item(value[i])
      if (encoded === NO_MATCH) return NO_MATCH
      output[i] = encoded
    }
    return output
  }
}

/** Whether a union member is a struct under its refinements and transformations (either side). */
const isObjectLike = (ast: SchemaAST.AST): boolean =>
  ast._tag === "TypeLiteral" || ast._tag === "Suspend" || ast._tag === "Declaration" ||
  (ast._tag === "Refinement" && isObjectLike(ast.from)) ||
  (ast._tag === "Transformation" && (isObjectLike(ast.from) || isObjectLike(ast.to)))

const union = (ast: SchemaAST.Union): Encoder => {
  // Effect tries first the members a literal property points to; with object members that order
  // can differ from declaration order, so such unions stay Effect's.
  if (ast.types.some(isObjectLike)) return byEffect(ast)
  const members = ast.types.map(compile)
  return (value) => {
    for (const member of members) {
      const encoded = member(value)
      if (encoded !== NO_MATCH) return encoded
    }
    return NO_MATCH
  }
}

const refinement = (ast: SchemaAST.Refinement): Encoder => {
  const from = compile(ast.from)
  return (value) => {
    const encoded = from(value)
    return encoded === NO_MATCH || Option.isSome(ast.filter(value, SchemaAST.defaultParseOption, ast)) ? NO_MATCH : encoded
  }
}

const transformation = (ast: SchemaAST.Transformation): Encoder => {
  const kind = ast.transformation
  if (kind._tag === "TypeLiteralTransformation") return byEffect(ast)
  const to = compile(ast.to)
  const from = compile(ast.from)
  // `Schema.compose` joins two schemas without changing the value.
  const encode = kind._tag === "FinalTransformation" ? kind.encode : (value: unknown) => Result.succeed(value)
  return (value) => {
    const typed = to(value)
    if (typed === NO_MATCH) return NO_MATCH
    const result = encode(typed, SchemaAST.defaultParseOption, ast, value)
    // Tool outputs transform synchronously; an effectful transformation is Effect's to run.
    if (!Result.isResult(result)) return byEffect(ast)(value)
    return Result.isSuccess(result) ? from(result.success) : NO_MATCH
  }
}

const compile = (ast: SchemaAST.AST): Encoder => {
  switch (ast._tag) {
    case "StringKeyword":
      return guard((value) => typeof value === "string")
    case "NumberKeyword":
      return guard((value) => typeof value === "number")
    case "BooleanKeyword":
      return guard((value) => typeof value === "boolean")
    case "UndefinedKeyword":
      return guard((value) => value === undefined)
    case "UnknownKeyword":
    case "AnyKeyword":
      return (value) => value
    case "Literal": {
      const literal = ast.literal
      return guard((value) => value === literal)
    }
    case "Refinement":
      return refinement(ast)
    case "Transformation":
      return transformation(ast)
    case "TypeLiteral":
      return struct(ast)
    case "TupleType":
      return tuple(ast)
    case "Union":
      return union(ast)
    default:
      return byEffect(ast)
  }
}

/** One compiled encoder per output schema, kept with the schema. */
const compiled = new WeakMap<SchemaAST.AST, Encoder>()

/**
 * Encodes a handler's output for the wire, as `Schema.encodeSync(schema)` does; throws Effect's
 * ParseError when the value does not match the schema (a broken promise of the handler).
 */
export const encodeOutput = (schema: Schema.Codec<unknown, unknown, never>, value: unknown): unknown => {
  let encoder = compiled.get(schema.ast)
  if (encoder === undefined) {
    encoder = compile(schema.ast)
    compiled.set(schema.ast, encoder)
  }
  const encoded = encoder(value)
  if (encoded !== NO_MATCH) return encoded
  // The failure as Effect describes it; it cannot succeed where the compiled encoder failed.
  Schema.encodeUnknownSync(schema)(value)
  throw new Error("the compiled output encoder refused a value Effect accepts")
}
