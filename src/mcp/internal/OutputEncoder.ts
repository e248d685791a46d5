/**
 * A tool's output as the wire carries it: encoded with its output schema (keys in the schema's
 * order, unknown keys dropped, DisplayText escaped). A value that does not match is a bug of the
 * handler: Effect's error is thrown (a defect).
 *
 * Effect's own encoder, not one compiled here: on Effect 3 a compiled encoder took a 500-pane
 * list_panes result from ~4 ms to ~1 ms, but Effect 4's parser encodes it in ~1.7 ms, and the same
 * compiler rewritten for Effect 4's AST saved ~0.3 ms of that (escaping the text and running the
 * checks, which both do, is most of it).
 */
import * as Schema from "effect/Schema"

type Encoder = (value: unknown) => unknown

/** One encoder per output schema, built at its first call, not at every call. */
const encoders = new WeakMap<Schema.Codec<unknown, unknown>, Encoder>()

/** Encodes a handler's output for the wire; throws when the value does not match the schema. */
export const encodeOutput = (schema: Schema.Codec<unknown, unknown>, value: unknown): unknown => {
  let encode = encoders.get(schema)
  if (encode === undefined) {
    encode = Schema.encodeUnknownSync(schema)
    encoders.set(schema, encode)
  }
  return encode(value)
}
