/**
 * The opaque strings operations hand to a caller to give back later (capture_since's cursor,
 * run_command's handle): a prefix naming the kind and its version, then the fields as base64url
 * JSON. A signed token adds `mac`, an HMAC-SHA256 of the fields' JSON with a key of the caller's
 * choosing, so a changed or made-up token is refused before anything is read; its fields are
 * encoded through the schema first, which gives the JSON the one order a signature needs.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { createHmac, timingSafeEqual } from "node:crypto"

export interface OpaqueToken<A> {
  readonly encode: (value: A) => string
  /** Left (no reason: a token is right or not ours) when the prefix, the JSON or a field is wrong. */
  readonly decode: (text: string) => Either.Either<A, void>
  readonly encodeSigned: (key: Buffer, value: A) => string
  /** As `decode`, and Left too when the signature does not match the fields. */
  readonly decodeSigned: (key: Buffer, text: string) => Either.Either<A, void>
}

export const opaqueToken = <A extends object, I extends object>(prefix: string, fields: Schema.Schema<A, I>): OpaqueToken<A> => {
  const encodeFields = Schema.encodeSync(fields)
  const decodeFields = Schema.decodeUnknownEither(fields)
  const sign = (key: Buffer, encoded: I) => createHmac("sha256", key).update(JSON.stringify(encoded)).digest("base64url")
  const wrap = (json: object) => prefix + Buffer.from(JSON.stringify(json), "utf8").toString("base64url")
  const unwrap = (text: string): Either.Either<unknown, void> => {
    if (!text.startsWith(prefix)) return Either.left(undefined)
    return Either.try({
      try: () => JSON.parse(Buffer.from(text.slice(prefix.length), "base64url").toString("utf8")) as unknown,
      catch: () => undefined
    })
  }
  const decode = (text: string) => Either.flatMap(unwrap(text), (json) => Either.mapLeft(decodeFields(json), () => undefined))

  return {
    encode: (value) => wrap(value as object),
    decode,
    encodeSigned: (key, value) => {
      const encoded = encodeFields(value)
      return wrap({ ...encoded, mac: sign(key, encoded) })
    },
    decodeSigned: (key, text) =>
      Either.flatMap(unwrap(text), (json) => {
        const mac = typeof json === "object" && json !== null ? (json as { readonly mac?: unknown }).mac : undefined
        if (typeof mac !== "string") return Either.left(undefined)
        return Either.flatMap(
          Either.mapLeft(decodeFields(json), () => undefined),
          (value): Either.Either<A, void> => {
            const expected = Buffer.from(sign(key, encodeFields(value)))
            const given = Buffer.from(mac)
            return expected.length === given.length && timingSafeEqual(expected, given) ? Either.right(value) : Either.left(undefined)
          }
        )
      })
  }
}
